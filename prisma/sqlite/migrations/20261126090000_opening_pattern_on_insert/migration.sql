-- ---- A restaurant's opening pattern also when it arrives after its hours (by hand; SQLite) ----
-- copy-data and restores write a table's children before their parents on SQLite, and they copy
-- no derived data (the patterns among it: src/backup/tables.ts): the hours' triggers then found no
-- restaurant, and the restaurant arrived with no pattern, never open. The service writes a
-- restaurant before its hours, so for it this finds nothing to do.
CREATE TRIGGER "Restaurant_pattern_insert" AFTER INSERT ON "Restaurant"
WHEN EXISTS (SELECT 1 FROM "OpeningHours" WHERE "restaurantId" = NEW."id") BEGIN
    INSERT OR IGNORE INTO "OpeningPattern" ("timeZone", "periods")
        SELECT "timeZone", "periods" FROM "RestaurantOpeningPeriods" WHERE "restaurantId" = NEW."id" AND "timeZone" IS NOT NULL AND "periods" IS NOT NULL;
    UPDATE "Restaurant" SET "openingPattern" = (SELECT o."id" FROM "RestaurantOpeningPeriods" v
        JOIN "OpeningPattern" o ON o."timeZone" = v."timeZone" AND o."periods" = v."periods" WHERE v."restaurantId" = NEW."id")
    WHERE "id" = NEW."id";
END;
