-- ---- Opening patterns (Prisma's steps, reordered, then written by hand; SQLite) --------------
-- An open-now search tested every candidate restaurant's opening hours in its own zone, row by
-- row: "open now" in Lisbon at 05:00 UTC (none open) read all 125,000 of the city's restaurants at
-- 1,000,000 (660 ms; PostgreSQL passed its statement timeout). Restaurants share few zone + hours
-- combinations (the seed: its cities' zones x 8 patterns), so each combination is an
-- OpeningPattern, tested once per search (src/db/opening-patterns.ts), and the restaurants of the
-- open ones are read from the index ("citySearch", "openingPattern") or ("openingPattern").
--
-- Derived data, kept by the triggers below (the bulk seed sets them aside and runs the same
-- backfill): a restaurant's pattern is its zone and its distinct periods "HH:MM-HH:MM", sorted,
-- comma-separated; none without a zone or without periods (never open, as before). A pattern no
-- restaurant uses any more is deleted, so patterns stay at most the restaurants' distinct
-- combinations whatever the writes.

ALTER TABLE "Restaurant" ADD COLUMN "openingPattern" INTEGER;

CREATE TABLE "OpeningPattern" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "timeZone" TEXT NOT NULL,
    "periods" TEXT NOT NULL
);
CREATE UNIQUE INDEX "OpeningPattern_timeZone_periods_key" ON "OpeningPattern"("timeZone", "periods");

-- Each restaurant's zone and periods, as its pattern names them.
CREATE VIEW "RestaurantOpeningPeriods" AS
SELECT r."id" AS "restaurantId", r."timeZone" AS "timeZone",
    (SELECT group_concat("period", ',') FROM (SELECT DISTINCT h."open" || '-' || h."close" AS "period"
        FROM "OpeningHours" h WHERE h."restaurantId" = r."id" ORDER BY 1)) AS "periods"
FROM "Restaurant" r;

-- The restaurants already there (before the indexes: one write a row instead of three).
INSERT OR IGNORE INTO "OpeningPattern" ("timeZone", "periods")
    SELECT DISTINCT "timeZone", "periods" FROM "RestaurantOpeningPeriods" WHERE "timeZone" IS NOT NULL AND "periods" IS NOT NULL;
UPDATE "Restaurant" SET "openingPattern" = (SELECT o."id" FROM "RestaurantOpeningPeriods" v
    JOIN "OpeningPattern" o ON o."timeZone" = v."timeZone" AND o."periods" = v."periods" WHERE v."restaurantId" = "Restaurant"."id");

CREATE INDEX "Restaurant_citySearch_openingPattern_idx" ON "Restaurant"("citySearch", "openingPattern");
CREATE INDEX "Restaurant_openingPattern_idx" ON "Restaurant"("openingPattern");

-- A period added, changed or removed, or the zone changed: the restaurant's pattern again.
CREATE TRIGGER "OpeningHours_pattern_insert" AFTER INSERT ON "OpeningHours" BEGIN
    INSERT OR IGNORE INTO "OpeningPattern" ("timeZone", "periods")
        SELECT "timeZone", "periods" FROM "RestaurantOpeningPeriods" WHERE "restaurantId" = NEW."restaurantId" AND "timeZone" IS NOT NULL AND "periods" IS NOT NULL;
    UPDATE "Restaurant" SET "openingPattern" = (SELECT o."id" FROM "RestaurantOpeningPeriods" v
        JOIN "OpeningPattern" o ON o."timeZone" = v."timeZone" AND o."periods" = v."periods" WHERE v."restaurantId" = NEW."restaurantId")
    WHERE "id" = NEW."restaurantId";
END;
CREATE TRIGGER "OpeningHours_pattern_delete" AFTER DELETE ON "OpeningHours" BEGIN
    INSERT OR IGNORE INTO "OpeningPattern" ("timeZone", "periods")
        SELECT "timeZone", "periods" FROM "RestaurantOpeningPeriods" WHERE "restaurantId" = OLD."restaurantId" AND "timeZone" IS NOT NULL AND "periods" IS NOT NULL;
    UPDATE "Restaurant" SET "openingPattern" = (SELECT o."id" FROM "RestaurantOpeningPeriods" v
        JOIN "OpeningPattern" o ON o."timeZone" = v."timeZone" AND o."periods" = v."periods" WHERE v."restaurantId" = OLD."restaurantId")
    WHERE "id" = OLD."restaurantId";
END;
CREATE TRIGGER "OpeningHours_pattern_update" AFTER UPDATE ON "OpeningHours" BEGIN
    INSERT OR IGNORE INTO "OpeningPattern" ("timeZone", "periods")
        SELECT "timeZone", "periods" FROM "RestaurantOpeningPeriods" WHERE "restaurantId" = OLD."restaurantId" AND "timeZone" IS NOT NULL AND "periods" IS NOT NULL;
    UPDATE "Restaurant" SET "openingPattern" = (SELECT o."id" FROM "RestaurantOpeningPeriods" v
        JOIN "OpeningPattern" o ON o."timeZone" = v."timeZone" AND o."periods" = v."periods" WHERE v."restaurantId" = OLD."restaurantId")
    WHERE "id" = OLD."restaurantId";
    INSERT OR IGNORE INTO "OpeningPattern" ("timeZone", "periods")
        SELECT "timeZone", "periods" FROM "RestaurantOpeningPeriods" WHERE "restaurantId" = NEW."restaurantId" AND "timeZone" IS NOT NULL AND "periods" IS NOT NULL;
    UPDATE "Restaurant" SET "openingPattern" = (SELECT o."id" FROM "RestaurantOpeningPeriods" v
        JOIN "OpeningPattern" o ON o."timeZone" = v."timeZone" AND o."periods" = v."periods" WHERE v."restaurantId" = NEW."restaurantId")
    WHERE "id" = NEW."restaurantId";
END;
CREATE TRIGGER "Restaurant_pattern_zone" AFTER UPDATE OF "timeZone" ON "Restaurant" BEGIN
    INSERT OR IGNORE INTO "OpeningPattern" ("timeZone", "periods")
        SELECT "timeZone", "periods" FROM "RestaurantOpeningPeriods" WHERE "restaurantId" = NEW."id" AND "timeZone" IS NOT NULL AND "periods" IS NOT NULL;
    UPDATE "Restaurant" SET "openingPattern" = (SELECT o."id" FROM "RestaurantOpeningPeriods" v
        JOIN "OpeningPattern" o ON o."timeZone" = v."timeZone" AND o."periods" = v."periods" WHERE v."restaurantId" = NEW."id")
    WHERE "id" = NEW."id";
END;

-- A pattern its last restaurant left, or whose last restaurant was deleted, goes.
CREATE TRIGGER "Restaurant_pattern_left" AFTER UPDATE OF "openingPattern" ON "Restaurant"
WHEN OLD."openingPattern" IS NOT NULL AND OLD."openingPattern" IS NOT NEW."openingPattern" BEGIN
    DELETE FROM "OpeningPattern" WHERE "id" = OLD."openingPattern"
        AND NOT EXISTS (SELECT 1 FROM "Restaurant" WHERE "openingPattern" = OLD."openingPattern");
END;
CREATE TRIGGER "Restaurant_pattern_deleted" AFTER DELETE ON "Restaurant" WHEN OLD."openingPattern" IS NOT NULL BEGIN
    DELETE FROM "OpeningPattern" WHERE "id" = OLD."openingPattern"
        AND NOT EXISTS (SELECT 1 FROM "Restaurant" WHERE "openingPattern" = OLD."openingPattern");
END;
