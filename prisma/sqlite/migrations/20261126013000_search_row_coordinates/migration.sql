-- ---- Coordinates beside the search keys (written by hand; SQLite only) -----------------------
-- Derived data, like 20261125165728_search: each restaurant's coordinates are copied onto its
-- "RestaurantSearchRow", so a search with words and near tests the circle on the row it already
-- reads to find the restaurant by its key, and reads only the restaurants within it ("pizza" near
-- Lisbon at 1,000,000 restaurants: 19,414 restaurants read to keep 2,414). PostgreSQL has no
-- search rows: its search documents are keyed by the restaurant.

ALTER TABLE "RestaurantSearchRow" ADD COLUMN "latitude" REAL;
ALTER TABLE "RestaurantSearchRow" ADD COLUMN "longitude" REAL;

UPDATE "RestaurantSearchRow" SET ("latitude", "longitude") =
    (SELECT r."latitude", r."longitude" FROM "Restaurant" r WHERE r."id" = "RestaurantSearchRow"."restaurantId");

-- A new restaurant's search row takes its coordinates (the R*Tree's trigger reads them from it).
DROP TRIGGER "Restaurant_search_insert";
CREATE TRIGGER "Restaurant_search_insert" AFTER INSERT ON "Restaurant" BEGIN
    INSERT INTO "RestaurantSearchRow" ("restaurantId", "latitude", "longitude") VALUES (NEW."id", NEW."latitude", NEW."longitude");
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body")
        SELECT "rowid", "title", "tags", "body" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
    INSERT INTO "RestaurantTitleTrigrams" ("rowid", "title")
        SELECT "rowid", "titleSearch" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
END;

-- Moved coordinates move in both copies.
DROP TRIGGER "Restaurant_place_update";
CREATE TRIGGER "Restaurant_place_update" AFTER UPDATE OF "latitude", "longitude" ON "Restaurant" BEGIN
    UPDATE "RestaurantSearchRow" SET "latitude" = NEW."latitude", "longitude" = NEW."longitude" WHERE "restaurantId" = NEW."id";
    DELETE FROM "RestaurantPlace" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = NEW."id");
    INSERT INTO "RestaurantPlace" ("rowid", "minLatitude", "maxLatitude", "minLongitude", "maxLongitude", "latitude", "longitude")
        SELECT s."rowid", NEW."latitude", NEW."latitude", NEW."longitude", NEW."longitude", NEW."latitude", NEW."longitude"
        FROM "RestaurantSearchRow" s WHERE s."restaurantId" = NEW."id" AND NEW."latitude" IS NOT NULL AND NEW."longitude" IS NOT NULL;
END;
