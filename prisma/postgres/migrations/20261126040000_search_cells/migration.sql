-- ---- Map cells beside the restaurants' search documents (written by hand; PostgreSQL) ---------
-- Derived data, like 20261125165728_search. restaurant_cells(latitude, longitude) names the map
-- cells holding a point at five levels (src/db/search-cells.ts: cells of 1/32, 1/8, 1/2, 2 and 8
-- degrees, one lexeme a level, `g<level>y<row>x<column>`, row = floor((latitude + 90) / size),
-- column = floor((longitude + 180) / size); sizes are powers of two, so PostgreSQL computes
-- exactly the cells the server names); no coordinates, no cells.
--
-- The word index becomes a two-column GIN index: the document's words, and the cells of the
-- document's copy of the coordinates (20261126020000_search_document_coordinates; the triggers that
-- keep that copy keep the cells, which are computed from it). A search with words and near asks
-- it for the words AND one of the cells covering the circle in one index scan, and reads only
-- those documents to test the circle ("pizza" near Lisbon, 5 km, at 1,000,000 restaurants: 19,414
-- documents on 16,016 pages read to keep 2,208; the index scan of both takes 10 ms). Measured
-- against a GIN index of the cells alone beside the word index: the planner ANDs the two bitmaps,
-- and the cells' bitmap of every restaurant near Lisbon cost 70 ms.
--
-- The cells are a tsvector of their own, never part of "document": the users' words are matched
-- against "document" only, so no word or prefix typed ("g1y10") can meet a cell, and the cells
-- stay out of ts_rank and of the typo vocabulary ("SearchTerm", filled from "document").
--
-- Not STRICT, with the test for nulls in the body: a SQL function PostgreSQL can inline, 30% less
-- time for the index's 1,000,000 rows than a call each.

CREATE FUNCTION restaurant_cells(latitude double precision, longitude double precision) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN latitude IS NOT NULL AND longitude IS NOT NULL THEN array_to_tsvector(ARRAY[
        'g0y' || CAST(floor((latitude + 90) / CAST(0.03125 AS double precision)) AS bigint) || 'x' || CAST(floor((longitude + 180) / CAST(0.03125 AS double precision)) AS bigint),
        'g1y' || CAST(floor((latitude + 90) / CAST(0.125 AS double precision)) AS bigint) || 'x' || CAST(floor((longitude + 180) / CAST(0.125 AS double precision)) AS bigint),
        'g2y' || CAST(floor((latitude + 90) / CAST(0.5 AS double precision)) AS bigint) || 'x' || CAST(floor((longitude + 180) / CAST(0.5 AS double precision)) AS bigint),
        'g3y' || CAST(floor((latitude + 90) / CAST(2 AS double precision)) AS bigint) || 'x' || CAST(floor((longitude + 180) / CAST(2 AS double precision)) AS bigint),
        'g4y' || CAST(floor((latitude + 90) / CAST(8 AS double precision)) AS bigint) || 'x' || CAST(floor((longitude + 180) / CAST(8 AS double precision)) AS bigint)]) END
$$;

SET LOCAL maintenance_work_mem = '512MB'; -- the index sorted in memory once

DROP INDEX "RestaurantSearch_document_idx";
CREATE INDEX "RestaurantSearch_document_idx" ON "RestaurantSearch" USING gin ("document", restaurant_cells("latitude", "longitude"));
-- Statistics of the new expression for the planner; not of an empty table (a new database: see
-- 20261126020000_search_document_coordinates, the bulk seed's refresh planned on "empty, analyzed").
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM "RestaurantSearch") THEN ANALYZE "RestaurantSearch"; END IF;
END $$;
