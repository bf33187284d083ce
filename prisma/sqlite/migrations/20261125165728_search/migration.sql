-- DropIndex
DROP INDEX "RestaurantTag_kind_valueKey_idx";

-- DropIndex
DROP INDEX "GroceryTag_kind_valueKey_idx";

-- AlterTable
ALTER TABLE "Restaurant" ADD COLUMN "timeZone" TEXT;

-- CreateIndex
CREATE INDEX "Restaurant_latitude_longitude_idx" ON "Restaurant"("latitude", "longitude");

-- CreateIndex
CREATE INDEX "RestaurantTag_kind_valueKey_restaurantId_idx" ON "RestaurantTag"("kind", "valueKey", "restaurantId");

-- CreateIndex
CREATE INDEX "GroceryTag_kind_valueKey_groceryId_idx" ON "GroceryTag"("kind", "valueKey", "groceryId");


-- ---- Search indexes (written by hand) -------------------------------------------------------
-- Derived data only: every row below is computed from Restaurant, RestaurantTag, Grocery and
-- GroceryTag by the triggers that follow, and this migration fills them for the rows already
-- there. A copy of the model tables into a fresh database gets them back the same way.
-- "...SearchRow" gives each restaurant (grocery) a stable integer key for the FTS5 tables: the
-- implicit rowid of a table with a TEXT primary key may change with VACUUM.
CREATE TABLE "RestaurantSearchRow" (
    "rowid" INTEGER PRIMARY KEY,
    "restaurantId" TEXT NOT NULL UNIQUE REFERENCES "Restaurant" ("id") ON DELETE CASCADE
);

-- Words, ranked with bm25 over three columns (title, then cuisines and categories, then
-- description and dishes); accents folded; 2- and 3-letter prefixes indexed for typing.
CREATE VIRTUAL TABLE "RestaurantSearch" USING fts5(
    "title", "tags", "body",
    content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
-- Its vocabulary: the words a misspelt query word may have meant.
CREATE VIRTUAL TABLE "RestaurantSearchTerms" USING fts5vocab("RestaurantSearch", 'row');
-- Substrings of the lower-cased title (the legacy `q`): a phrase of trigrams.
CREATE VIRTUAL TABLE "RestaurantTitleTrigrams" USING fts5(
    "title", content='', contentless_delete=1, tokenize='trigram'
);

CREATE VIEW "RestaurantSearchDocument" AS
SELECT s."rowid", s."restaurantId", r."title", r."titleSearch",
    COALESCE((SELECT group_concat(t."value", ' ') FROM "RestaurantTag" t
        WHERE t."restaurantId" = r."id" AND t."kind" IN ('CUISINE', 'CATEGORY')), '') AS "tags",
    COALESCE(r."description", '') || ' ' || COALESCE((SELECT group_concat(t."value", ' ') FROM "RestaurantTag" t
        WHERE t."restaurantId" = r."id" AND t."kind" = 'DISH'), '') AS "body"
FROM "RestaurantSearchRow" s JOIN "Restaurant" r ON r."id" = s."restaurantId";

CREATE TRIGGER "Restaurant_search_insert" AFTER INSERT ON "Restaurant" BEGIN
    INSERT INTO "RestaurantSearchRow" ("restaurantId") VALUES (NEW."id");
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body")
        SELECT "rowid", "title", "tags", "body" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
    INSERT INTO "RestaurantTitleTrigrams" ("rowid", "title")
        SELECT "rowid", "titleSearch" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
END;

CREATE TRIGGER "Restaurant_search_update" AFTER UPDATE OF "title", "titleSearch", "description" ON "Restaurant" BEGIN
    DELETE FROM "RestaurantSearch" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = NEW."id");
    DELETE FROM "RestaurantTitleTrigrams" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = NEW."id");
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body")
        SELECT "rowid", "title", "tags", "body" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
    INSERT INTO "RestaurantTitleTrigrams" ("rowid", "title")
        SELECT "rowid", "titleSearch" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."id";
END;

CREATE TRIGGER "RestaurantSearchRow_delete" AFTER DELETE ON "RestaurantSearchRow" BEGIN
    DELETE FROM "RestaurantSearch" WHERE "rowid" = OLD."rowid";
    DELETE FROM "RestaurantTitleTrigrams" WHERE "rowid" = OLD."rowid";
END;

CREATE TRIGGER "RestaurantTag_search_insert" AFTER INSERT ON "RestaurantTag"
WHEN NEW."kind" IN ('CUISINE', 'CATEGORY', 'DISH') BEGIN
    DELETE FROM "RestaurantSearch" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = NEW."restaurantId");
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body")
        SELECT "rowid", "title", "tags", "body" FROM "RestaurantSearchDocument" WHERE "restaurantId" = NEW."restaurantId";
END;

CREATE TRIGGER "RestaurantTag_search_delete" AFTER DELETE ON "RestaurantTag"
WHEN OLD."kind" IN ('CUISINE', 'CATEGORY', 'DISH') BEGIN
    DELETE FROM "RestaurantSearch" WHERE "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = OLD."restaurantId");
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body")
        SELECT "rowid", "title", "tags", "body" FROM "RestaurantSearchDocument" WHERE "restaurantId" = OLD."restaurantId";
END;

CREATE TRIGGER "RestaurantTag_search_update" AFTER UPDATE ON "RestaurantTag" BEGIN
    DELETE FROM "RestaurantSearch" WHERE "rowid" IN (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" IN (OLD."restaurantId", NEW."restaurantId"));
    INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body")
        SELECT "rowid", "title", "tags", "body" FROM "RestaurantSearchDocument" WHERE "restaurantId" IN (OLD."restaurantId", NEW."restaurantId");
END;

CREATE TABLE "GrocerySearchRow" (
    "rowid" INTEGER PRIMARY KEY,
    "groceryId" TEXT NOT NULL UNIQUE REFERENCES "Grocery" ("id") ON DELETE CASCADE
);

-- Title, then other name and categories, then description.
CREATE VIRTUAL TABLE "GrocerySearch" USING fts5(
    "title", "tags", "body",
    content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
CREATE VIRTUAL TABLE "GrocerySearchTerms" USING fts5vocab("GrocerySearch", 'row');
CREATE VIRTUAL TABLE "GroceryTitleTrigrams" USING fts5(
    "title", content='', contentless_delete=1, tokenize='trigram'
);

CREATE VIEW "GrocerySearchDocument" AS
SELECT s."rowid", s."groceryId", g."title", g."titleSearch",
    g."alsoKnownAs" || ' ' || COALESCE((SELECT group_concat(t."value", ' ') FROM "GroceryTag" t
        WHERE t."groceryId" = g."id" AND t."kind" = 'CATEGORY'), '') AS "tags",
    g."description" AS "body"
FROM "GrocerySearchRow" s JOIN "Grocery" g ON g."id" = s."groceryId";

CREATE TRIGGER "Grocery_search_insert" AFTER INSERT ON "Grocery" BEGIN
    INSERT INTO "GrocerySearchRow" ("groceryId") VALUES (NEW."id");
    INSERT INTO "GrocerySearch" ("rowid", "title", "tags", "body")
        SELECT "rowid", "title", "tags", "body" FROM "GrocerySearchDocument" WHERE "groceryId" = NEW."id";
    INSERT INTO "GroceryTitleTrigrams" ("rowid", "title")
        SELECT "rowid", "titleSearch" FROM "GrocerySearchDocument" WHERE "groceryId" = NEW."id";
END;

CREATE TRIGGER "Grocery_search_update" AFTER UPDATE OF "title", "titleSearch", "description", "alsoKnownAs" ON "Grocery" BEGIN
    DELETE FROM "GrocerySearch" WHERE "rowid" = (SELECT "rowid" FROM "GrocerySearchRow" WHERE "groceryId" = NEW."id");
    DELETE FROM "GroceryTitleTrigrams" WHERE "rowid" = (SELECT "rowid" FROM "GrocerySearchRow" WHERE "groceryId" = NEW."id");
    INSERT INTO "GrocerySearch" ("rowid", "title", "tags", "body")
        SELECT "rowid", "title", "tags", "body" FROM "GrocerySearchDocument" WHERE "groceryId" = NEW."id";
    INSERT INTO "GroceryTitleTrigrams" ("rowid", "title")
        SELECT "rowid", "titleSearch" FROM "GrocerySearchDocument" WHERE "groceryId" = NEW."id";
END;

CREATE TRIGGER "GrocerySearchRow_delete" AFTER DELETE ON "GrocerySearchRow" BEGIN
    DELETE FROM "GrocerySearch" WHERE "rowid" = OLD."rowid";
    DELETE FROM "GroceryTitleTrigrams" WHERE "rowid" = OLD."rowid";
END;

CREATE TRIGGER "GroceryTag_search_insert" AFTER INSERT ON "GroceryTag" WHEN NEW."kind" = 'CATEGORY' BEGIN
    DELETE FROM "GrocerySearch" WHERE "rowid" = (SELECT "rowid" FROM "GrocerySearchRow" WHERE "groceryId" = NEW."groceryId");
    INSERT INTO "GrocerySearch" ("rowid", "title", "tags", "body")
        SELECT "rowid", "title", "tags", "body" FROM "GrocerySearchDocument" WHERE "groceryId" = NEW."groceryId";
END;

CREATE TRIGGER "GroceryTag_search_delete" AFTER DELETE ON "GroceryTag" WHEN OLD."kind" = 'CATEGORY' BEGIN
    DELETE FROM "GrocerySearch" WHERE "rowid" = (SELECT "rowid" FROM "GrocerySearchRow" WHERE "groceryId" = OLD."groceryId");
    INSERT INTO "GrocerySearch" ("rowid", "title", "tags", "body")
        SELECT "rowid", "title", "tags", "body" FROM "GrocerySearchDocument" WHERE "groceryId" = OLD."groceryId";
END;

CREATE TRIGGER "GroceryTag_search_update" AFTER UPDATE ON "GroceryTag" BEGIN
    DELETE FROM "GrocerySearch" WHERE "rowid" IN (SELECT "rowid" FROM "GrocerySearchRow" WHERE "groceryId" IN (OLD."groceryId", NEW."groceryId"));
    INSERT INTO "GrocerySearch" ("rowid", "title", "tags", "body")
        SELECT "rowid", "title", "tags", "body" FROM "GrocerySearchDocument" WHERE "groceryId" IN (OLD."groceryId", NEW."groceryId");
END;

-- The rows already there.
INSERT INTO "RestaurantSearchRow" ("restaurantId") SELECT "id" FROM "Restaurant";
INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body") SELECT "rowid", "title", "tags", "body" FROM "RestaurantSearchDocument";
INSERT INTO "RestaurantTitleTrigrams" ("rowid", "title") SELECT "rowid", "titleSearch" FROM "RestaurantSearchDocument";
INSERT INTO "GrocerySearchRow" ("groceryId") SELECT "id" FROM "Grocery";
INSERT INTO "GrocerySearch" ("rowid", "title", "tags", "body") SELECT "rowid", "title", "tags", "body" FROM "GrocerySearchDocument";
INSERT INTO "GroceryTitleTrigrams" ("rowid", "title") SELECT "rowid", "titleSearch" FROM "GrocerySearchDocument";
