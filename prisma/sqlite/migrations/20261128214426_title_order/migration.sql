-- ---- Title order: accents and case folded (Prisma's steps, then written by hand) -------------
-- TITLE order compared the lower-cased title by character code: "João's" came after "Jonas's".
-- It now compares "titleOrder", the title with accents and case folded (titleOrderKey in src/db/search/words.ts:
-- NFKD, combining marks removed, lower case, a few letters spelled out), by character code on both
-- databases, then the id. The service writes it with the title; the rows already there get theirs
-- when the migrations have run (the migration appliers fill every empty one: SQL has no such fold).
-- Not derived data: copies and backups carry it as written.

ALTER TABLE "Restaurant" ADD COLUMN "titleOrder" TEXT NOT NULL DEFAULT '';

DROP INDEX "Restaurant_titleSearch_id_idx";
CREATE INDEX "Restaurant_titleOrder_id_idx" ON "Restaurant"("titleOrder", "id");
