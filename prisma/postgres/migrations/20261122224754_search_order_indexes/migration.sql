-- DropIndex
DROP INDEX "Restaurant_titleSearch_idx";

-- DropIndex
DROP INDEX "Restaurant_createdAt_idx";

-- DropIndex
DROP INDEX "Restaurant_ratingAvg_idx";

-- DropIndex
DROP INDEX "Grocery_createdAt_idx";

-- CreateIndex
CREATE INDEX "Restaurant_titleSearch_id_idx" ON "Restaurant"("titleSearch", "id");

-- CreateIndex
CREATE INDEX "Restaurant_createdAt_id_idx" ON "Restaurant"("createdAt", "id");

-- CreateIndex
-- NULLS LAST written by hand (Prisma's schema cannot say it): the RATING order is
-- "ratingAvg" DESC NULLS LAST, "id"; PostgreSQL's DESC alone puts NULLs first and could not serve it.
CREATE INDEX "Restaurant_ratingAvg_id_idx" ON "Restaurant"("ratingAvg" DESC NULLS LAST, "id");

-- CreateIndex
CREATE INDEX "Grocery_createdAt_id_idx" ON "Grocery"("createdAt", "id");

