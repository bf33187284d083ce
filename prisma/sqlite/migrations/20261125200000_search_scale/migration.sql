-- ---- Search at a million rows (written by hand) ---------------------------------------------
-- Derived data only, like 20261125165728_search: the triggers below keep it in step with
-- Restaurant, RestaurantTag, Grocery and GroceryTag, and this migration fills it for the rows
-- already there (a copy of the model tables gets it back the same way).

-- How many restaurants have each list value (cuisine, category, price range) and each city, and
-- how many there are ('ALL'): exact totals and facets without counting rows, and the planner's
-- statistics for choosing how to read a page (src/db/searches.ts). "value" is the smallest
-- spelling written of the key, as facets show it.
CREATE TABLE "RestaurantFacetCount" (
    "kind" TEXT NOT NULL,
    "valueKey" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    PRIMARY KEY ("kind", "valueKey")
) WITHOUT ROWID;

CREATE TABLE "GroceryFacetCount" (
    "kind" TEXT NOT NULL,
    "valueKey" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    PRIMARY KEY ("kind", "valueKey")
) WITHOUT ROWID;

CREATE TRIGGER "Restaurant_count_insert" AFTER INSERT ON "Restaurant" BEGIN
    INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n") VALUES ('ALL', '', '', 1)
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
    INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
        SELECT 'CITY', NEW."citySearch", COALESCE(NEW."city", NEW."citySearch"), 1 WHERE NEW."citySearch" IS NOT NULL
        ON CONFLICT DO UPDATE SET "n" = "n" + 1, "value" = min("value", excluded."value");
END;

CREATE TRIGGER "Restaurant_count_delete" AFTER DELETE ON "Restaurant" BEGIN
    UPDATE "RestaurantFacetCount" SET "n" = "n" - 1
        WHERE ("kind" = 'ALL' AND "valueKey" = '') OR ("kind" = 'CITY' AND "valueKey" = OLD."citySearch");
    DELETE FROM "RestaurantFacetCount" WHERE "n" <= 0 AND "kind" IN ('ALL', 'CITY') AND "valueKey" IN ('', OLD."citySearch");
END;

CREATE TRIGGER "Restaurant_count_city" AFTER UPDATE OF "city", "citySearch" ON "Restaurant"
WHEN OLD."citySearch" IS NOT NEW."citySearch" OR OLD."city" IS NOT NEW."city" BEGIN
    UPDATE "RestaurantFacetCount" SET "n" = "n" - 1 WHERE "kind" = 'CITY' AND "valueKey" = OLD."citySearch";
    DELETE FROM "RestaurantFacetCount" WHERE "kind" = 'CITY' AND "valueKey" = OLD."citySearch" AND "n" <= 0;
    INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
        SELECT 'CITY', NEW."citySearch", COALESCE(NEW."city", NEW."citySearch"), 1 WHERE NEW."citySearch" IS NOT NULL
        ON CONFLICT DO UPDATE SET "n" = "n" + 1, "value" = min("value", excluded."value");
END;

CREATE TRIGGER "RestaurantTag_count_insert" AFTER INSERT ON "RestaurantTag"
WHEN NEW."kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') BEGIN
    INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n") VALUES (NEW."kind", NEW."valueKey", NEW."value", 1)
        ON CONFLICT DO UPDATE SET "n" = "n" + 1, "value" = min("value", excluded."value");
END;

CREATE TRIGGER "RestaurantTag_count_delete" AFTER DELETE ON "RestaurantTag"
WHEN OLD."kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') BEGIN
    UPDATE "RestaurantFacetCount" SET "n" = "n" - 1 WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey";
    DELETE FROM "RestaurantFacetCount" WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "n" <= 0;
END;

CREATE TRIGGER "RestaurantTag_count_update" AFTER UPDATE OF "kind", "valueKey", "value" ON "RestaurantTag" BEGIN
    UPDATE "RestaurantFacetCount" SET "n" = "n" - 1
        WHERE OLD."kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') AND "kind" = OLD."kind" AND "valueKey" = OLD."valueKey";
    DELETE FROM "RestaurantFacetCount" WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "n" <= 0;
    INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
        SELECT NEW."kind", NEW."valueKey", NEW."value", 1 WHERE NEW."kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE')
        ON CONFLICT DO UPDATE SET "n" = "n" + 1, "value" = min("value", excluded."value");
END;

CREATE TRIGGER "Grocery_count_insert" AFTER INSERT ON "Grocery" BEGIN
    INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n") VALUES ('ALL', '', '', 1)
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
END;

CREATE TRIGGER "Grocery_count_delete" AFTER DELETE ON "Grocery" BEGIN
    UPDATE "GroceryFacetCount" SET "n" = "n" - 1 WHERE "kind" = 'ALL' AND "valueKey" = '';
    DELETE FROM "GroceryFacetCount" WHERE "kind" = 'ALL' AND "valueKey" = '' AND "n" <= 0;
END;

CREATE TRIGGER "GroceryTag_count_insert" AFTER INSERT ON "GroceryTag" WHEN NEW."kind" = 'CATEGORY' BEGIN
    INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n") VALUES (NEW."kind", NEW."valueKey", NEW."value", 1)
        ON CONFLICT DO UPDATE SET "n" = "n" + 1, "value" = min("value", excluded."value");
END;

CREATE TRIGGER "GroceryTag_count_delete" AFTER DELETE ON "GroceryTag" WHEN OLD."kind" = 'CATEGORY' BEGIN
    UPDATE "GroceryFacetCount" SET "n" = "n" - 1 WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey";
    DELETE FROM "GroceryFacetCount" WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "n" <= 0;
END;

CREATE TRIGGER "GroceryTag_count_update" AFTER UPDATE OF "kind", "valueKey", "value" ON "GroceryTag" BEGIN
    UPDATE "GroceryFacetCount" SET "n" = "n" - 1 WHERE OLD."kind" = 'CATEGORY' AND "kind" = OLD."kind" AND "valueKey" = OLD."valueKey";
    DELETE FROM "GroceryFacetCount" WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "n" <= 0;
    INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n")
        SELECT NEW."kind", NEW."valueKey", NEW."value", 1 WHERE NEW."kind" = 'CATEGORY'
        ON CONFLICT DO UPDATE SET "n" = "n" + 1, "value" = min("value", excluded."value");
END;

-- Each restaurant with coordinates as a point in an R*Tree, keyed like the search tables (its
-- "RestaurantSearchRow" rowid): a near search reads the box around its circle from here instead
-- of a latitude band of the (latitude, longitude) index, which spans every restaurant at those
-- latitudes. The box columns are 32-bit floats rounded outwards; the exact coordinates ride
-- along (auxiliary columns), so the distance is tested without reading the restaurant.
CREATE VIRTUAL TABLE "RestaurantPlace" USING rtree(
    "rowid", "minLatitude", "maxLatitude", "minLongitude", "maxLongitude", +"latitude" REAL, +"longitude" REAL
);

CREATE TRIGGER "RestaurantSearchRow_place_insert" AFTER INSERT ON "RestaurantSearchRow" BEGIN
    INSERT INTO "RestaurantPlace" ("rowid", "minLatitude", "maxLatitude", "minLongitude", "maxLongitude", "latitude", "longitude")
        SELECT NEW."rowid", r."latitude", r."latitude", r."longitude", r."longitude", r."latitude", r."longitude"
        FROM "Restaurant" r WHERE r."id" = NEW."restaurantId" AND r."latitude" IS NOT NULL AND r."longitude" IS NOT NULL;
END;

CREATE TRIGGER "RestaurantSearchRow_place_delete" AFTER DELETE ON "RestaurantSearchRow" BEGIN
    DELETE FROM "RestaurantPlace" WHERE "rowid" = OLD."rowid";
END;

CREATE TRIGGER "Restaurant_place_update" AFTER UPDATE OF "latitude", "longitude" ON "Restaurant" BEGIN
    DELETE FROM "RestaurantPlace" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = NEW."id");
    INSERT INTO "RestaurantPlace" ("rowid", "minLatitude", "maxLatitude", "minLongitude", "maxLongitude", "latitude", "longitude")
        SELECT s."rowid", NEW."latitude", NEW."latitude", NEW."longitude", NEW."longitude", NEW."latitude", NEW."longitude"
        FROM "RestaurantSearchRow" s WHERE s."restaurantId" = NEW."id" AND NEW."latitude" IS NOT NULL AND NEW."longitude" IS NOT NULL;
END;

-- The rows already there.
INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
    SELECT 'ALL', '', '', COUNT(*) FROM "Restaurant" HAVING COUNT(*) > 0;
INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
    SELECT 'CITY', "citySearch", MIN(COALESCE("city", "citySearch")), COUNT(*) FROM "Restaurant" WHERE "citySearch" IS NOT NULL GROUP BY "citySearch";
INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
    SELECT "kind", "valueKey", MIN("value"), COUNT(*) FROM "RestaurantTag" WHERE "kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') GROUP BY "kind", "valueKey";
INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n")
    SELECT 'ALL', '', '', COUNT(*) FROM "Grocery" HAVING COUNT(*) > 0;
INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n")
    SELECT "kind", "valueKey", MIN("value"), COUNT(*) FROM "GroceryTag" WHERE "kind" = 'CATEGORY' GROUP BY "kind", "valueKey";
INSERT INTO "RestaurantPlace" ("rowid", "minLatitude", "maxLatitude", "minLongitude", "maxLongitude", "latitude", "longitude")
    SELECT s."rowid", r."latitude", r."latitude", r."longitude", r."longitude", r."latitude", r."longitude"
    FROM "RestaurantSearchRow" s JOIN "Restaurant" r ON r."id" = s."restaurantId"
    WHERE r."latitude" IS NOT NULL AND r."longitude" IS NOT NULL;
