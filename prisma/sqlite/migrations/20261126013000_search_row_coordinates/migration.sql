-- ---- Coordinates beside the search keys (written by hand; SQLite only) -----------------------
-- Derived data, like 20261125165728_search: each restaurant's coordinates are copied onto its
-- "RestaurantSearchRow", so a search with words and near tests the circle on the row it already
-- reads to find the restaurant by its key, and reads only the restaurants within it ("pizza" near
-- Lisbon at 1,000,000 restaurants: 19,414 restaurants read to keep 2,414). PostgreSQL has no
-- search rows: its search documents are keyed by the restaurant.
--
-- The table is rebuilt, not altered: rows updated in place to take two more columns spread over
-- new pages, and reading 19,414 of them by key took 27 ms instead of 18 at 1,000,000. The keys
-- (rowids) stay: they are the keys of the text indexes and of the R*Tree.

CREATE TABLE "RestaurantSearchRow_next" (
    "rowid" INTEGER PRIMARY KEY,
    "restaurantId" TEXT NOT NULL UNIQUE REFERENCES "Restaurant" ("id") ON DELETE CASCADE,
    "latitude" REAL,
    "longitude" REAL
);
INSERT INTO "RestaurantSearchRow_next" ("rowid", "restaurantId", "latitude", "longitude")
    SELECT s."rowid", s."restaurantId", r."latitude", r."longitude"
    FROM "RestaurantSearchRow" s JOIN "Restaurant" r ON r."id" = s."restaurantId" ORDER BY s."rowid";
-- Its own triggers go with the old table (they are made again below). The view and the other
-- tables' triggers name the table and find the new one under the same name: legacy renaming
-- leaves them as written instead of refusing because the old table has gone.
DROP TABLE "RestaurantSearchRow";
PRAGMA legacy_alter_table = ON;
ALTER TABLE "RestaurantSearchRow_next" RENAME TO "RestaurantSearchRow";
PRAGMA legacy_alter_table = OFF;

CREATE TRIGGER "RestaurantSearchRow_delete" AFTER DELETE ON "RestaurantSearchRow" BEGIN
    DELETE FROM "RestaurantSearch" WHERE "rowid" = OLD."rowid";
    DELETE FROM "RestaurantTitleTrigrams" WHERE "rowid" = OLD."rowid";
END;

-- The R*Tree takes a new search row's coordinates from it.
CREATE TRIGGER "RestaurantSearchRow_place_insert" AFTER INSERT ON "RestaurantSearchRow"
WHEN NEW."latitude" IS NOT NULL AND NEW."longitude" IS NOT NULL BEGIN
    INSERT INTO "RestaurantPlace" ("rowid", "minLatitude", "maxLatitude", "minLongitude", "maxLongitude", "latitude", "longitude")
        VALUES (NEW."rowid", NEW."latitude", NEW."latitude", NEW."longitude", NEW."longitude", NEW."latitude", NEW."longitude");
END;

CREATE TRIGGER "RestaurantSearchRow_place_delete" AFTER DELETE ON "RestaurantSearchRow" BEGIN
    DELETE FROM "RestaurantPlace" WHERE "rowid" = OLD."rowid";
END;

-- A new restaurant's search row takes its coordinates.
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
