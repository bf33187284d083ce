-- ---- Facet labels: the most common spelling held now (written by hand) -------------------------
-- A facet's label ("value" of "<Catalogue>FacetCount") was the smallest spelling ever written of
-- its key and never went back: one owner writing "BERLIN" relabelled Berlin for everyone, for
-- good. Each spelling of each key is now counted (derived data, like the counts: kept by the
-- triggers below, a spelling at 0 removed), and the label is the spelling most rows have now,
-- ties going to the smallest by character code. Reading a label stays one primary-key lookup.

CREATE TABLE "RestaurantFacetSpelling" (
    "kind" TEXT NOT NULL,
    "valueKey" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    PRIMARY KEY ("kind", "valueKey", "value")
) WITHOUT ROWID;
CREATE INDEX "RestaurantFacetSpelling_label_idx" ON "RestaurantFacetSpelling" ("kind", "valueKey", "n" DESC, "value");

CREATE TABLE "GroceryFacetSpelling" (
    "kind" TEXT NOT NULL,
    "valueKey" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    PRIMARY KEY ("kind", "valueKey", "value")
) WITHOUT ROWID;
CREATE INDEX "GroceryFacetSpelling_label_idx" ON "GroceryFacetSpelling" ("kind", "valueKey", "n" DESC, "value");

-- The rows already there, and their labels.
INSERT INTO "RestaurantFacetSpelling" ("kind", "valueKey", "value", "n")
    SELECT 'CITY', "citySearch", COALESCE("city", "citySearch"), COUNT(*) FROM "Restaurant" WHERE "citySearch" IS NOT NULL
    GROUP BY "citySearch", COALESCE("city", "citySearch");
INSERT INTO "RestaurantFacetSpelling" ("kind", "valueKey", "value", "n")
    SELECT "kind", "valueKey", "value", COUNT(*) FROM "RestaurantTag" WHERE "kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE')
    GROUP BY "kind", "valueKey", "value";
INSERT INTO "GroceryFacetSpelling" ("kind", "valueKey", "value", "n")
    SELECT "kind", "valueKey", "value", COUNT(*) FROM "GroceryTag" WHERE "kind" = 'CATEGORY' GROUP BY "kind", "valueKey", "value";
UPDATE "RestaurantFacetCount" SET "value" = COALESCE((SELECT s."value" FROM "RestaurantFacetSpelling" s
    WHERE s."kind" = "RestaurantFacetCount"."kind" AND s."valueKey" = "RestaurantFacetCount"."valueKey" ORDER BY s."n" DESC, s."value" LIMIT 1), "value");
UPDATE "GroceryFacetCount" SET "value" = COALESCE((SELECT s."value" FROM "GroceryFacetSpelling" s
    WHERE s."kind" = "GroceryFacetCount"."kind" AND s."valueKey" = "GroceryFacetCount"."valueKey" ORDER BY s."n" DESC, s."value" LIMIT 1), "value");

-- A spelling counted up or down: its key's label again.
CREATE TRIGGER "RestaurantFacetSpelling_label_insert" AFTER INSERT ON "RestaurantFacetSpelling" BEGIN
    UPDATE "RestaurantFacetCount" SET "value" = COALESCE((SELECT s."value" FROM "RestaurantFacetSpelling" s
        WHERE s."kind" = NEW."kind" AND s."valueKey" = NEW."valueKey" ORDER BY s."n" DESC, s."value" LIMIT 1), "value")
    WHERE "kind" = NEW."kind" AND "valueKey" = NEW."valueKey";
END;
CREATE TRIGGER "RestaurantFacetSpelling_label_update" AFTER UPDATE OF "n" ON "RestaurantFacetSpelling" BEGIN
    UPDATE "RestaurantFacetCount" SET "value" = COALESCE((SELECT s."value" FROM "RestaurantFacetSpelling" s
        WHERE s."kind" = NEW."kind" AND s."valueKey" = NEW."valueKey" ORDER BY s."n" DESC, s."value" LIMIT 1), "value")
    WHERE "kind" = NEW."kind" AND "valueKey" = NEW."valueKey";
END;
CREATE TRIGGER "RestaurantFacetSpelling_label_delete" AFTER DELETE ON "RestaurantFacetSpelling" BEGIN
    UPDATE "RestaurantFacetCount" SET "value" = COALESCE((SELECT s."value" FROM "RestaurantFacetSpelling" s
        WHERE s."kind" = OLD."kind" AND s."valueKey" = OLD."valueKey" ORDER BY s."n" DESC, s."value" LIMIT 1), "value")
    WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey";
END;
CREATE TRIGGER "GroceryFacetSpelling_label_insert" AFTER INSERT ON "GroceryFacetSpelling" BEGIN
    UPDATE "GroceryFacetCount" SET "value" = COALESCE((SELECT s."value" FROM "GroceryFacetSpelling" s
        WHERE s."kind" = NEW."kind" AND s."valueKey" = NEW."valueKey" ORDER BY s."n" DESC, s."value" LIMIT 1), "value")
    WHERE "kind" = NEW."kind" AND "valueKey" = NEW."valueKey";
END;
CREATE TRIGGER "GroceryFacetSpelling_label_update" AFTER UPDATE OF "n" ON "GroceryFacetSpelling" BEGIN
    UPDATE "GroceryFacetCount" SET "value" = COALESCE((SELECT s."value" FROM "GroceryFacetSpelling" s
        WHERE s."kind" = NEW."kind" AND s."valueKey" = NEW."valueKey" ORDER BY s."n" DESC, s."value" LIMIT 1), "value")
    WHERE "kind" = NEW."kind" AND "valueKey" = NEW."valueKey";
END;
CREATE TRIGGER "GroceryFacetSpelling_label_delete" AFTER DELETE ON "GroceryFacetSpelling" BEGIN
    UPDATE "GroceryFacetCount" SET "value" = COALESCE((SELECT s."value" FROM "GroceryFacetSpelling" s
        WHERE s."kind" = OLD."kind" AND s."valueKey" = OLD."valueKey" ORDER BY s."n" DESC, s."value" LIMIT 1), "value")
    WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey";
END;

-- The count triggers of 20261125200000_search_scale again: a count no longer takes the smaller
-- spelling; each spelling is counted beside it (the count first, so its label has a row to go to).
DROP TRIGGER "Restaurant_count_insert";
DROP TRIGGER "Restaurant_count_delete";
DROP TRIGGER "Restaurant_count_city";
DROP TRIGGER "RestaurantTag_count_insert";
DROP TRIGGER "RestaurantTag_count_delete";
DROP TRIGGER "RestaurantTag_count_update";
DROP TRIGGER "GroceryTag_count_insert";
DROP TRIGGER "GroceryTag_count_delete";
DROP TRIGGER "GroceryTag_count_update";

CREATE TRIGGER "Restaurant_count_insert" AFTER INSERT ON "Restaurant" BEGIN
    INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n") VALUES ('ALL', '', '', 1)
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
    INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
        SELECT 'CITY', NEW."citySearch", COALESCE(NEW."city", NEW."citySearch"), 1 WHERE NEW."citySearch" IS NOT NULL
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
    INSERT INTO "RestaurantFacetSpelling" ("kind", "valueKey", "value", "n")
        SELECT 'CITY', NEW."citySearch", COALESCE(NEW."city", NEW."citySearch"), 1 WHERE NEW."citySearch" IS NOT NULL
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
END;

CREATE TRIGGER "Restaurant_count_delete" AFTER DELETE ON "Restaurant" BEGIN
    UPDATE "RestaurantFacetCount" SET "n" = "n" - 1
        WHERE ("kind" = 'ALL' AND "valueKey" = '') OR ("kind" = 'CITY' AND "valueKey" = OLD."citySearch");
    DELETE FROM "RestaurantFacetCount" WHERE "n" <= 0 AND "kind" IN ('ALL', 'CITY') AND "valueKey" IN ('', OLD."citySearch");
    UPDATE "RestaurantFacetSpelling" SET "n" = "n" - 1
        WHERE "kind" = 'CITY' AND "valueKey" = OLD."citySearch" AND "value" = COALESCE(OLD."city", OLD."citySearch");
    DELETE FROM "RestaurantFacetSpelling"
        WHERE "kind" = 'CITY' AND "valueKey" = OLD."citySearch" AND "value" = COALESCE(OLD."city", OLD."citySearch") AND "n" <= 0;
END;

CREATE TRIGGER "Restaurant_count_city" AFTER UPDATE OF "city", "citySearch" ON "Restaurant"
WHEN OLD."citySearch" IS NOT NEW."citySearch" OR OLD."city" IS NOT NEW."city" BEGIN
    UPDATE "RestaurantFacetCount" SET "n" = "n" - 1 WHERE "kind" = 'CITY' AND "valueKey" = OLD."citySearch";
    DELETE FROM "RestaurantFacetCount" WHERE "kind" = 'CITY' AND "valueKey" = OLD."citySearch" AND "n" <= 0;
    UPDATE "RestaurantFacetSpelling" SET "n" = "n" - 1
        WHERE "kind" = 'CITY' AND "valueKey" = OLD."citySearch" AND "value" = COALESCE(OLD."city", OLD."citySearch");
    DELETE FROM "RestaurantFacetSpelling"
        WHERE "kind" = 'CITY' AND "valueKey" = OLD."citySearch" AND "value" = COALESCE(OLD."city", OLD."citySearch") AND "n" <= 0;
    INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
        SELECT 'CITY', NEW."citySearch", COALESCE(NEW."city", NEW."citySearch"), 1 WHERE NEW."citySearch" IS NOT NULL
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
    INSERT INTO "RestaurantFacetSpelling" ("kind", "valueKey", "value", "n")
        SELECT 'CITY', NEW."citySearch", COALESCE(NEW."city", NEW."citySearch"), 1 WHERE NEW."citySearch" IS NOT NULL
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
END;

CREATE TRIGGER "RestaurantTag_count_insert" AFTER INSERT ON "RestaurantTag"
WHEN NEW."kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') BEGIN
    INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n") VALUES (NEW."kind", NEW."valueKey", NEW."value", 1)
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
    INSERT INTO "RestaurantFacetSpelling" ("kind", "valueKey", "value", "n") VALUES (NEW."kind", NEW."valueKey", NEW."value", 1)
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
END;

CREATE TRIGGER "RestaurantTag_count_delete" AFTER DELETE ON "RestaurantTag"
WHEN OLD."kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') BEGIN
    UPDATE "RestaurantFacetCount" SET "n" = "n" - 1 WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey";
    DELETE FROM "RestaurantFacetCount" WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "n" <= 0;
    UPDATE "RestaurantFacetSpelling" SET "n" = "n" - 1
        WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "value" = OLD."value";
    DELETE FROM "RestaurantFacetSpelling"
        WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "value" = OLD."value" AND "n" <= 0;
END;

CREATE TRIGGER "RestaurantTag_count_update" AFTER UPDATE OF "kind", "valueKey", "value" ON "RestaurantTag" BEGIN
    UPDATE "RestaurantFacetCount" SET "n" = "n" - 1
        WHERE OLD."kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') AND "kind" = OLD."kind" AND "valueKey" = OLD."valueKey";
    DELETE FROM "RestaurantFacetCount" WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "n" <= 0;
    UPDATE "RestaurantFacetSpelling" SET "n" = "n" - 1
        WHERE OLD."kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') AND "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "value" = OLD."value";
    DELETE FROM "RestaurantFacetSpelling"
        WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "value" = OLD."value" AND "n" <= 0;
    INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
        SELECT NEW."kind", NEW."valueKey", NEW."value", 1 WHERE NEW."kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE')
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
    INSERT INTO "RestaurantFacetSpelling" ("kind", "valueKey", "value", "n")
        SELECT NEW."kind", NEW."valueKey", NEW."value", 1 WHERE NEW."kind" IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE')
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
END;

CREATE TRIGGER "GroceryTag_count_insert" AFTER INSERT ON "GroceryTag" WHEN NEW."kind" = 'CATEGORY' BEGIN
    INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n") VALUES (NEW."kind", NEW."valueKey", NEW."value", 1)
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
    INSERT INTO "GroceryFacetSpelling" ("kind", "valueKey", "value", "n") VALUES (NEW."kind", NEW."valueKey", NEW."value", 1)
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
END;

CREATE TRIGGER "GroceryTag_count_delete" AFTER DELETE ON "GroceryTag" WHEN OLD."kind" = 'CATEGORY' BEGIN
    UPDATE "GroceryFacetCount" SET "n" = "n" - 1 WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey";
    DELETE FROM "GroceryFacetCount" WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "n" <= 0;
    UPDATE "GroceryFacetSpelling" SET "n" = "n" - 1 WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "value" = OLD."value";
    DELETE FROM "GroceryFacetSpelling" WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "value" = OLD."value" AND "n" <= 0;
END;

CREATE TRIGGER "GroceryTag_count_update" AFTER UPDATE OF "kind", "valueKey", "value" ON "GroceryTag" BEGIN
    UPDATE "GroceryFacetCount" SET "n" = "n" - 1 WHERE OLD."kind" = 'CATEGORY' AND "kind" = OLD."kind" AND "valueKey" = OLD."valueKey";
    DELETE FROM "GroceryFacetCount" WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "n" <= 0;
    UPDATE "GroceryFacetSpelling" SET "n" = "n" - 1
        WHERE OLD."kind" = 'CATEGORY' AND "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "value" = OLD."value";
    DELETE FROM "GroceryFacetSpelling" WHERE "kind" = OLD."kind" AND "valueKey" = OLD."valueKey" AND "value" = OLD."value" AND "n" <= 0;
    INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n")
        SELECT NEW."kind", NEW."valueKey", NEW."value", 1 WHERE NEW."kind" = 'CATEGORY'
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
    INSERT INTO "GroceryFacetSpelling" ("kind", "valueKey", "value", "n")
        SELECT NEW."kind", NEW."valueKey", NEW."value", 1 WHERE NEW."kind" = 'CATEGORY'
        ON CONFLICT DO UPDATE SET "n" = "n" + 1;
END;
