-- ---- Coordinates beside the search documents (written by hand; PostgreSQL only) --------------
-- Derived data, like 20261125165728_search: each restaurant's coordinates are copied onto its
-- "RestaurantSearch" document, so a search with words and near tests the circle on the document
-- it already reads for the words, and reads only the restaurants within it ("pizza" near Lisbon,
-- 5 km, at 1,000,000 restaurants: 19,414 restaurants read to keep about 2,200). SQLite did the
-- same for its search rows in 20261126013000_search_row_coordinates.
--
-- The table is rebuilt, not updated in place: an UPDATE of every document writes a second copy of
-- each row and of its entries in both indexes (the GIN index one document at a time), and leaves
-- the table twice its size. Copied, then indexed once from the whole table.

SET LOCAL maintenance_work_mem = '512MB'; -- the word index sorted in memory once

CREATE TABLE "RestaurantSearch_next" AS
    SELECT s."restaurantId", s."document", r."latitude", r."longitude"
    FROM "RestaurantSearch" s JOIN "Restaurant" r ON r."id" = s."restaurantId";
DROP TABLE "RestaurantSearch";
ALTER TABLE "RestaurantSearch_next" RENAME TO "RestaurantSearch";
ALTER TABLE "RestaurantSearch" ALTER COLUMN "restaurantId" SET NOT NULL, ALTER COLUMN "document" SET NOT NULL;
ALTER TABLE "RestaurantSearch" ADD CONSTRAINT "RestaurantSearch_pkey" PRIMARY KEY ("restaurantId");
ALTER TABLE "RestaurantSearch" ADD CONSTRAINT "RestaurantSearch_restaurantId_fkey"
    FOREIGN KEY ("restaurantId") REFERENCES "Restaurant" ("id") ON DELETE CASCADE;
CREATE INDEX "RestaurantSearch_document_idx" ON "RestaurantSearch" USING gin ("document");
-- The planner's statistics of the words, lost with the old table; not of an empty table (a new
-- database): the bulk seed's refresh, planned on "empty, analyzed", took 278 s for 200,000
-- documents instead of 8.
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM "RestaurantSearch") THEN ANALYZE "RestaurantSearch"; END IF;
END $$;

-- A new restaurant's document takes its coordinates (the insert trigger and the tag triggers
-- refresh documents through this function; so does the bulk seed).
CREATE OR REPLACE FUNCTION restaurant_search_refresh(ids TEXT[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO "RestaurantSearch" ("restaurantId", "document", "latitude", "longitude")
    SELECT r."id",
        search_words('A', r."title")
        || search_words('B', (SELECT string_agg(t."value", ' ') FROM "RestaurantTag" t
            WHERE t."restaurantId" = r."id" AND t."kind"::text IN ('CUISINE', 'CATEGORY')))
        || search_words('C', COALESCE(r."description", '') || ' ' || COALESCE((SELECT string_agg(t."value", ' ') FROM "RestaurantTag" t
            WHERE t."restaurantId" = r."id" AND t."kind"::text = 'DISH'), '')),
        r."latitude", r."longitude"
    FROM "Restaurant" r WHERE r."id" = ANY (ids)
    ON CONFLICT ("restaurantId") DO UPDATE
        SET "document" = EXCLUDED."document", "latitude" = EXCLUDED."latitude", "longitude" = EXCLUDED."longitude";
    INSERT INTO "SearchTerm" ("term")
    SELECT DISTINCT w.lexeme FROM "RestaurantSearch" s, unnest(s."document") w
    WHERE s."restaurantId" = ANY (ids) AND length(w.lexeme) >= 4
    ON CONFLICT DO NOTHING;
$$;

-- Moved coordinates move in the copy (a row trigger: ratings change with every comment, and only
-- changed coordinates may run anything). A deleted restaurant takes its document with it (the
-- foreign key cascades).
CREATE FUNCTION restaurant_search_place_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE "RestaurantSearch" SET "latitude" = NEW."latitude", "longitude" = NEW."longitude" WHERE "restaurantId" = NEW."id";
    RETURN NULL;
END $$;

CREATE TRIGGER "Restaurant_search_place" AFTER UPDATE OF "latitude", "longitude" ON "Restaurant" FOR EACH ROW
    WHEN (OLD."latitude" IS DISTINCT FROM NEW."latitude" OR OLD."longitude" IS DISTINCT FROM NEW."longitude")
    EXECUTE FUNCTION restaurant_search_place_changed();
