-- ---- Opening pattern and city beside the search keys (written by hand; SQLite only) ----------
-- Derived data, like 20261126013000_search_row_coordinates: each restaurant's opening pattern and
-- city key are copied onto its "RestaurantSearchRow" beside its coordinates, so a search with
-- words or near tests an hour to be open at on the row it reads to find the restaurant by its
-- key, and the matches its total and facets count (their id and city) come from that row alone:
-- the restaurant itself, a wide row found through its text id, is read only for a condition the
-- search row does not hold, or for a page's columns. PostgreSQL has no search rows.
--
-- Rebuilt, not altered, for the reason 20261126013000 gives (rows updated in place spread over
-- new pages). The keys (rowids) stay: they are the keys of the text indexes and of the R*Tree.

CREATE TABLE "RestaurantSearchRow_next" (
    "rowid" INTEGER PRIMARY KEY,
    "restaurantId" TEXT NOT NULL UNIQUE REFERENCES "Restaurant" ("id") ON DELETE CASCADE,
    "latitude" REAL,
    "longitude" REAL,
    "openingPattern" INTEGER,
    "citySearch" TEXT
);
INSERT INTO "RestaurantSearchRow_next" ("rowid", "restaurantId", "latitude", "longitude", "openingPattern", "citySearch")
    SELECT s."rowid", s."restaurantId", s."latitude", s."longitude", r."openingPattern", r."citySearch"
    FROM "RestaurantSearchRow" s JOIN "Restaurant" r ON r."id" = s."restaurantId" ORDER BY s."rowid";
-- Its own triggers go with the old table (made again below); the view and the other tables'
-- triggers find the new one under the same name (legacy renaming leaves them as written).
DROP TABLE "RestaurantSearchRow";
PRAGMA legacy_alter_table = ON;
ALTER TABLE "RestaurantSearchRow_next" RENAME TO "RestaurantSearchRow";
PRAGMA legacy_alter_table = OFF;

CREATE TRIGGER "RestaurantSearchRow_delete" AFTER DELETE ON "RestaurantSearchRow" BEGIN
    DELETE FROM "RestaurantSearch" WHERE "rowid" = OLD."rowid";
    DELETE FROM "RestaurantTitleTrigrams" WHERE "rowid" = OLD."rowid";
END;

CREATE TRIGGER "RestaurantSearchRow_place_insert" AFTER INSERT ON "RestaurantSearchRow"
WHEN NEW."latitude" IS NOT NULL AND NEW."longitude" IS NOT NULL BEGIN
    INSERT INTO "RestaurantPlace" ("rowid", "minLatitude", "maxLatitude", "minLongitude", "maxLongitude", "latitude", "longitude")
        VALUES (NEW."rowid", NEW."latitude", NEW."latitude", NEW."longitude", NEW."longitude", NEW."latitude", NEW."longitude");
END;

CREATE TRIGGER "RestaurantSearchRow_place_delete" AFTER DELETE ON "RestaurantSearchRow" BEGIN
    DELETE FROM "RestaurantPlace" WHERE "rowid" = OLD."rowid";
END;

-- A new restaurant's search row takes its opening pattern as the restaurant holds it now: another
-- trigger of the insert may have set it already (Restaurant_pattern_insert); a restaurant written
-- before its hours has none yet (the hours' triggers set it later: the trigger below copies it).
DROP TRIGGER "Restaurant_search_insert";
CREATE TRIGGER "Restaurant_search_insert" AFTER INSERT ON "Restaurant" BEGIN
    INSERT INTO "RestaurantSearchRow" ("restaurantId", "latitude", "longitude", "openingPattern", "citySearch")
        VALUES (NEW."id", NEW."latitude", NEW."longitude",
                (SELECT "openingPattern" FROM "Restaurant" WHERE "id" = NEW."id"), NEW."citySearch");
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body", "place")
        SELECT "rowid", "title", "tags", "body", "place" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
    INSERT INTO "RestaurantTitleTrigrams" ("rowid", "title")
        SELECT "rowid", "titleSearch" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
END;

-- Every change of a restaurant's pattern (its hours, its time zone: the patterns' triggers update
-- this column) or of its city.
CREATE TRIGGER "Restaurant_search_filters" AFTER UPDATE OF "openingPattern", "citySearch" ON "Restaurant"
WHEN OLD."openingPattern" IS NOT NEW."openingPattern" OR OLD."citySearch" IS NOT NEW."citySearch" BEGIN
    UPDATE "RestaurantSearchRow" SET "openingPattern" = NEW."openingPattern", "citySearch" = NEW."citySearch"
        WHERE "restaurantId" = NEW."id";
END;
