-- ---- Opening pattern and city beside the search documents (written by hand; PostgreSQL only) ----
-- Derived data, like 20261126020000_search_document_coordinates: each restaurant's opening pattern
-- and city key are copied onto its "RestaurantSearch" document beside its coordinates, so a search
-- with words tests open at an instant and the city on the document it reads for the words and the
-- circle, and reads a restaurant only for a condition the document does not hold or for a page's
-- columns. Facets of "pizza" near Lisbon open at 05:00 UTC (none open) at 1,000,000 restaurants
-- read the 2,208 documents within the circle and probed each restaurant for its pattern: 11,302
-- buffers. SQLite did the same for its search rows in 20261129050000_search_row_filters.
--
-- Rebuilt, not updated in place, for the reason 20261126020000 gives (an UPDATE of every document
-- leaves the table and its word index twice their size).

SET LOCAL maintenance_work_mem = '512MB'; -- the word index sorted in memory once

CREATE TABLE "RestaurantSearch_next" AS
    SELECT s."restaurantId", s."document", s."latitude", s."longitude", r."openingPattern", r."citySearch"
    FROM "RestaurantSearch" s JOIN "Restaurant" r ON r."id" = s."restaurantId";
DROP TABLE "RestaurantSearch";
ALTER TABLE "RestaurantSearch_next" RENAME TO "RestaurantSearch";
ALTER TABLE "RestaurantSearch" ALTER COLUMN "restaurantId" SET NOT NULL, ALTER COLUMN "document" SET NOT NULL;
ALTER TABLE "RestaurantSearch" ADD CONSTRAINT "RestaurantSearch_pkey" PRIMARY KEY ("restaurantId");
ALTER TABLE "RestaurantSearch" ADD CONSTRAINT "RestaurantSearch_restaurantId_fkey"
    FOREIGN KEY ("restaurantId") REFERENCES "Restaurant" ("id") ON DELETE CASCADE;
CREATE INDEX "RestaurantSearch_document_idx" ON "RestaurantSearch" USING gin ("document", restaurant_cells("latitude", "longitude"));
CREATE INDEX "RestaurantSearch_owner_hash_idx" ON "RestaurantSearch" (hashtext("restaurantId"));
-- The planner's statistics, lost with the old table; not of an empty table (a new database: see
-- 20261126020000_search_document_coordinates).
DO $$ BEGIN
    IF EXISTS (SELECT 1 FROM "RestaurantSearch") THEN ANALYZE "RestaurantSearch"; END IF;
END $$;

-- A new restaurant's document takes its pattern and city as the restaurant holds them then (the
-- insert trigger, the tag triggers and the bulk seed refresh documents through this function). A
-- restaurant written before its hours has no pattern yet: the trigger below copies it later.
CREATE OR REPLACE FUNCTION restaurant_search_refresh(ids TEXT[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO "RestaurantSearch" ("restaurantId", "document", "latitude", "longitude", "openingPattern", "citySearch")
    SELECT r."id",
        search_words('A', r."title")
        || search_words('B', (SELECT string_agg(t."value", ' ') FROM "RestaurantTag" t
            WHERE t."restaurantId" = r."id" AND t."kind"::text IN ('CUISINE', 'CATEGORY')))
        || search_words('C', COALESCE(r."description", '') || ' ' || COALESCE((SELECT string_agg(t."value", ' ') FROM "RestaurantTag" t
            WHERE t."restaurantId" = r."id" AND t."kind"::text = 'DISH'), '')),
        r."latitude", r."longitude", r."openingPattern", r."citySearch"
    FROM "Restaurant" r WHERE r."id" = ANY (ids)
    ON CONFLICT ("restaurantId") DO UPDATE
        SET "document" = EXCLUDED."document", "latitude" = EXCLUDED."latitude", "longitude" = EXCLUDED."longitude",
            "openingPattern" = EXCLUDED."openingPattern", "citySearch" = EXCLUDED."citySearch";
    INSERT INTO "SearchTerm" ("term")
    SELECT DISTINCT w.lexeme FROM "RestaurantSearch" s, unnest(s."document") w
    WHERE s."restaurantId" = ANY (ids) AND length(w.lexeme) >= 4
    ON CONFLICT DO NOTHING;
$$;

-- Moved coordinates, a changed pattern (its hours, its time zone: the patterns' triggers update the
-- column) or a changed city move in the copy: one row trigger for the four columns, in place of
-- "Restaurant_search_place" (ratings change with every comment, and only a changed copy may run
-- anything).
DROP TRIGGER "Restaurant_search_place" ON "Restaurant";
DROP FUNCTION restaurant_search_place_changed();

CREATE FUNCTION restaurant_search_copies_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE "RestaurantSearch" SET "latitude" = NEW."latitude", "longitude" = NEW."longitude",
        "openingPattern" = NEW."openingPattern", "citySearch" = NEW."citySearch"
        WHERE "restaurantId" = NEW."id";
    RETURN NULL;
END $$;

CREATE TRIGGER "Restaurant_search_copies" AFTER UPDATE OF "latitude", "longitude", "openingPattern", "citySearch" ON "Restaurant"
    FOR EACH ROW WHEN (OLD."latitude" IS DISTINCT FROM NEW."latitude" OR OLD."longitude" IS DISTINCT FROM NEW."longitude"
        OR OLD."openingPattern" IS DISTINCT FROM NEW."openingPattern" OR OLD."citySearch" IS DISTINCT FROM NEW."citySearch")
    EXECUTE FUNCTION restaurant_search_copies_changed();
