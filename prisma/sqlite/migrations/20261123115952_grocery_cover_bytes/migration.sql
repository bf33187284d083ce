-- AlterTable (SQLite adds a NOT NULL column with a constant default in place; no table rebuild needed)
ALTER TABLE "Grocery" ADD COLUMN "coverBytes" INTEGER NOT NULL DEFAULT 0;
