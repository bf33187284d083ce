-- ---- Finer statistics of the titles a substring is looked for in (written by hand; PostgreSQL only) ----
-- A title substring (`text`, REST's `q`) is read as the planner judges it from pg_trgm's index and
-- the column's statistics (src/db/postgres/search/engine.ts: countsTitleMatches is false). With the
-- default 100 histogram entries a substring in 0.7% of the titles matched none of them: "pizz" at
-- 1,000,000 restaurants was estimated at 93 rows for its 7,182, so the newest 20 were found by
-- reading and sorting all 7,182 (7,801 buffers, ~40 ms) instead of walking the createdAt index
-- until 20 matched (1,189 buffers, ~10 ms). 1,000 entries estimated 7,637. ANALYZE then samples
-- 300,000 rows of each table (17 s for the restaurants at 1M).

ALTER TABLE "Restaurant" ALTER COLUMN "titleSearch" SET STATISTICS 1000;
ALTER TABLE "Grocery" ALTER COLUMN "titleSearch" SET STATISTICS 1000;
-- Not of an empty table (a new database: see 20261126020000_search_document_coordinates).
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM "Restaurant") THEN ANALYZE "Restaurant"; END IF;
    IF EXISTS (SELECT 1 FROM "Grocery") THEN ANALYZE "Grocery"; END IF;
END $$;
