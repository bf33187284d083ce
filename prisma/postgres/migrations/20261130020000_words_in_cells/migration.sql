-- ---- Each word of a restaurant's search document within its map cell (written by hand; PostgreSQL) ----
-- restaurant_word_cells(document, latitude, longitude) names every word of the document within
-- the document's cell at the three finest levels of restaurant_cells (20261126040000_search_cells:
-- 1/32, 1/8 and 1/2 degree), one lexeme each, `<cell>_<word>` ("g1y1029x1366_pizza"); no
-- coordinates, none. A search with words and near asks this index for the words within the cells
-- covering its circle (src/db/postgres/search/engine.ts wordsInCells): each word within a cell is
-- one entry list holding exactly the documents wanted. Asked of the two-column index, the words'
-- entries were intersected with the cells', which in a dense city hold most of it: "pizza" within
-- 5 km of a Lisbon of 500,000 took 13-15 ms to find its 9,653 documents (docs/performance.md).
--
-- A prefix of the last word ('g1y1029x1366_pizz':*) is a prefix within the cell. The lexemes never
-- meet what users type: the users' words are matched against "document" alone when the circle is
-- wider than these levels hold, and against these lexemes only as the server composes them.
-- Not STRICT, with the test for nulls in the body: a SQL function PostgreSQL can inline.

CREATE FUNCTION restaurant_word_cells(document tsvector, latitude double precision, longitude double precision) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN latitude IS NOT NULL AND longitude IS NOT NULL AND document IS NOT NULL THEN array_to_tsvector(ARRAY(
        SELECT c."cell" || '_' || w."word"
        FROM unnest(tsvector_to_array(document)) AS w("word")
        CROSS JOIN (VALUES
            ('g0y' || CAST(floor((latitude + 90) / CAST(0.03125 AS double precision)) AS bigint) || 'x' || CAST(floor((longitude + 180) / CAST(0.03125 AS double precision)) AS bigint)),
            ('g1y' || CAST(floor((latitude + 90) / CAST(0.125 AS double precision)) AS bigint) || 'x' || CAST(floor((longitude + 180) / CAST(0.125 AS double precision)) AS bigint)),
            ('g2y' || CAST(floor((latitude + 90) / CAST(0.5 AS double precision)) AS bigint) || 'x' || CAST(floor((longitude + 180) / CAST(0.5 AS double precision)) AS bigint))
        ) AS c("cell"))) ELSE CAST('' AS tsvector) END
$$;

SET LOCAL maintenance_work_mem = '512MB'; -- the index sorted in memory once

CREATE INDEX "RestaurantSearch_word_cells_idx" ON "RestaurantSearch" USING gin (restaurant_word_cells("document", "latitude", "longitude"));
-- Statistics of the new expression for the planner; not of an empty table (a new database: see
-- 20261126020000_search_document_coordinates).
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM "RestaurantSearch") THEN ANALYZE "RestaurantSearch"; END IF;
END $$;
