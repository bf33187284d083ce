-- ---- A restaurant's facet values beside its search document (written by hand; PostgreSQL only) ----
-- Derived data, like 20261129053000_search_document_opening: each restaurant's cuisines,
-- categories and price range are copied onto its "RestaurantSearch" document as "facetKeys"
-- ('KIND:valueKey', in the order of the restaurant's lists), so the facets of a search with words
-- are counted from the documents the words already read. Read from "RestaurantTag", the facets of
-- "pizza" near Lisbon (1,069 matches at 1,000,000 restaurants) probed its key for every match and
-- kind: 13,953 buffers, ~47 ms, where the matches themselves took 2,465 buffers.
--
-- Rebuilt, not updated in place, for the reason 20261126020000 gives (an UPDATE of every document
-- leaves the table and its word index twice their size).

SET LOCAL maintenance_work_mem = '512MB'; -- the word index sorted in memory once

CREATE TABLE "RestaurantSearch_next" AS
    SELECT s."restaurantId", s."document", s."latitude", s."longitude", s."openingPattern", s."citySearch",
        COALESCE(k."facetKeys", '{}') AS "facetKeys"
    FROM "RestaurantSearch" s
    LEFT JOIN (SELECT t."restaurantId", array_agg(t."kind"::text || ':' || t."valueKey" ORDER BY t."kind", t."position") AS "facetKeys"
        FROM "RestaurantTag" t WHERE t."kind"::text IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') GROUP BY t."restaurantId") k
        ON k."restaurantId" = s."restaurantId";
DROP TABLE "RestaurantSearch";
ALTER TABLE "RestaurantSearch_next" RENAME TO "RestaurantSearch";
ALTER TABLE "RestaurantSearch" ALTER COLUMN "restaurantId" SET NOT NULL, ALTER COLUMN "document" SET NOT NULL,
    ALTER COLUMN "facetKeys" SET NOT NULL;
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

-- The facet values, as the restaurant holds them when its document is refreshed.
CREATE OR REPLACE FUNCTION restaurant_search_refresh(ids TEXT[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO "RestaurantSearch" ("restaurantId", "document", "latitude", "longitude", "openingPattern", "citySearch", "facetKeys")
    SELECT r."id",
        search_words('A', r."title")
        || search_words('B', (SELECT string_agg(t."value", ' ') FROM "RestaurantTag" t
            WHERE t."restaurantId" = r."id" AND t."kind"::text IN ('CUISINE', 'CATEGORY')))
        || search_words('C', COALESCE(r."description", '') || ' ' || COALESCE((SELECT string_agg(t."value", ' ') FROM "RestaurantTag" t
            WHERE t."restaurantId" = r."id" AND t."kind"::text = 'DISH'), '')),
        r."latitude", r."longitude", r."openingPattern", r."citySearch",
        ARRAY(SELECT t."kind"::text || ':' || t."valueKey" FROM "RestaurantTag" t
            WHERE t."restaurantId" = r."id" AND t."kind"::text IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE')
            ORDER BY t."kind", t."position")
    FROM "Restaurant" r WHERE r."id" = ANY (ids)
    ON CONFLICT ("restaurantId") DO UPDATE
        SET "document" = EXCLUDED."document", "latitude" = EXCLUDED."latitude", "longitude" = EXCLUDED."longitude",
            "openingPattern" = EXCLUDED."openingPattern", "citySearch" = EXCLUDED."citySearch", "facetKeys" = EXCLUDED."facetKeys";
    INSERT INTO "SearchTerm" ("term")
    SELECT DISTINCT w.lexeme FROM "RestaurantSearch" s, unnest(s."document") w
    WHERE s."restaurantId" = ANY (ids) AND length(w.lexeme) >= 4
    ON CONFLICT DO NOTHING;
$$;

-- A changed price range now refreshes the document too (it was words only: cuisines, categories, dishes).
CREATE OR REPLACE FUNCTION restaurant_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'Restaurant' THEN
        PERFORM restaurant_search_refresh(ARRAY(SELECT "id" FROM changed));
    ELSE
        PERFORM restaurant_search_refresh(ARRAY(SELECT DISTINCT "restaurantId" FROM changed
            WHERE "kind"::text IN ('CUISINE', 'CATEGORY', 'DISH', 'PRICE_RANGE')));
    END IF;
    RETURN NULL;
END $$;
