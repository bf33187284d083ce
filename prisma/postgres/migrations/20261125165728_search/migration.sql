-- AlterEnum
ALTER TYPE "RestaurantTagKind" ADD VALUE 'DISH';

-- DropIndex
DROP INDEX "RestaurantTag_kind_valueKey_idx";

-- DropIndex
DROP INDEX "GroceryTag_kind_valueKey_idx";

-- AlterTable
ALTER TABLE "Restaurant" ADD COLUMN     "timeZone" TEXT;

-- CreateIndex
CREATE INDEX "Restaurant_latitude_longitude_idx" ON "Restaurant"("latitude", "longitude");

-- CreateIndex
CREATE INDEX "RestaurantTag_kind_valueKey_restaurantId_idx" ON "RestaurantTag"("kind", "valueKey", "restaurantId");

-- CreateIndex
CREATE INDEX "GroceryTag_kind_valueKey_groceryId_idx" ON "GroceryTag"("kind", "valueKey", "groceryId");


-- ---- Search indexes (written by hand) -------------------------------------------------------
-- Derived data only: "RestaurantSearch" and "GrocerySearch" are computed from Restaurant,
-- RestaurantTag, Grocery and GroceryTag by the triggers below, and this migration fills them for
-- the rows already there. A copy of the model tables into a fresh database gets them back the
-- same way. pg_trgm and unaccent ship with Debian's postgresql-15 (contrib).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS unaccent;

-- Substrings of the lower-cased title (the legacy `q`, LIKE '%...%').
CREATE INDEX "Restaurant_titleSearch_trgm_idx" ON "Restaurant" USING gin ("titleSearch" gin_trgm_ops);
CREATE INDEX "Grocery_titleSearch_trgm_idx" ON "Grocery" USING gin ("titleSearch" gin_trgm_ops);

-- Words, weighted A (title), B (cuisines, categories), C (description, dishes), accents removed.
CREATE TABLE "RestaurantSearch" (
    "restaurantId" TEXT PRIMARY KEY REFERENCES "Restaurant" ("id") ON DELETE CASCADE,
    "document" tsvector NOT NULL
);
CREATE INDEX "RestaurantSearch_document_idx" ON "RestaurantSearch" USING gin ("document");

CREATE TABLE "GrocerySearch" (
    "groceryId" TEXT PRIMARY KEY REFERENCES "Grocery" ("id") ON DELETE CASCADE,
    "document" tsvector NOT NULL
);
CREATE INDEX "GrocerySearch_document_idx" ON "GrocerySearch" USING gin ("document");

-- Every word of every document (never pruned: a stale word only widens a misspelt query for
-- nothing): the words a misspelt query word may have meant.
CREATE TABLE "SearchTerm" ("term" TEXT PRIMARY KEY);

CREATE FUNCTION search_words(weight "char", body TEXT) RETURNS tsvector LANGUAGE sql STABLE AS $$
    SELECT setweight(to_tsvector('simple', public.unaccent(COALESCE(body, ''))), weight)
$$;

CREATE FUNCTION restaurant_search_refresh(ids TEXT[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO "RestaurantSearch" ("restaurantId", "document")
    SELECT r."id",
        search_words('A', r."title")
        || search_words('B', (SELECT string_agg(t."value", ' ') FROM "RestaurantTag" t
            WHERE t."restaurantId" = r."id" AND t."kind"::text IN ('CUISINE', 'CATEGORY')))
        || search_words('C', COALESCE(r."description", '') || ' ' || COALESCE((SELECT string_agg(t."value", ' ') FROM "RestaurantTag" t
            WHERE t."restaurantId" = r."id" AND t."kind"::text = 'DISH'), ''))
    FROM "Restaurant" r WHERE r."id" = ANY (ids)
    ON CONFLICT ("restaurantId") DO UPDATE SET "document" = EXCLUDED."document";
    INSERT INTO "SearchTerm" ("term")
    SELECT DISTINCT w.lexeme FROM "RestaurantSearch" s, unnest(s."document") w
    WHERE s."restaurantId" = ANY (ids) AND length(w.lexeme) >= 4
    ON CONFLICT DO NOTHING;
$$;

CREATE FUNCTION grocery_search_refresh(ids TEXT[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO "GrocerySearch" ("groceryId", "document")
    SELECT g."id",
        search_words('A', g."title")
        || search_words('B', g."alsoKnownAs" || ' ' || COALESCE((SELECT string_agg(t."value", ' ') FROM "GroceryTag" t
            WHERE t."groceryId" = g."id" AND t."kind"::text = 'CATEGORY'), ''))
        || search_words('C', g."description")
    FROM "Grocery" g WHERE g."id" = ANY (ids)
    ON CONFLICT ("groceryId") DO UPDATE SET "document" = EXCLUDED."document";
    INSERT INTO "SearchTerm" ("term")
    SELECT DISTINCT w.lexeme FROM "GrocerySearch" s, unnest(s."document") w
    WHERE s."groceryId" = ANY (ids) AND length(w.lexeme) >= 4
    ON CONFLICT DO NOTHING;
$$;

-- Statement triggers with transition tables: a bulk insert refreshes each document once.
CREATE FUNCTION restaurant_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'Restaurant' THEN
        PERFORM restaurant_search_refresh(ARRAY(SELECT "id" FROM changed));
    ELSE
        PERFORM restaurant_search_refresh(ARRAY(SELECT DISTINCT "restaurantId" FROM changed WHERE "kind"::text IN ('CUISINE', 'CATEGORY', 'DISH')));
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION grocery_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'Grocery' THEN
        PERFORM grocery_search_refresh(ARRAY(SELECT "id" FROM changed));
    ELSE
        PERFORM grocery_search_refresh(ARRAY(SELECT DISTINCT "groceryId" FROM changed WHERE "kind"::text = 'CATEGORY'));
    END IF;
    RETURN NULL;
END $$;

-- A changed title or description (PostgreSQL takes no transition table on a trigger limited to
-- some columns: ratings change with every comment and must not rebuild the document).
CREATE FUNCTION restaurant_search_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM restaurant_search_refresh(ARRAY[NEW."id"]);
    RETURN NULL;
END $$;

CREATE FUNCTION grocery_search_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM grocery_search_refresh(ARRAY[NEW."id"]);
    RETURN NULL;
END $$;

CREATE TRIGGER "Restaurant_search_insert" AFTER INSERT ON "Restaurant"
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION restaurant_search_changed();
CREATE TRIGGER "Restaurant_search_update" AFTER UPDATE OF "title", "description" ON "Restaurant"
    FOR EACH ROW EXECUTE FUNCTION restaurant_search_row_changed();
CREATE TRIGGER "RestaurantTag_search_insert" AFTER INSERT ON "RestaurantTag"
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION restaurant_search_changed();
CREATE TRIGGER "RestaurantTag_search_update" AFTER UPDATE ON "RestaurantTag"
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION restaurant_search_changed();
CREATE TRIGGER "RestaurantTag_search_delete" AFTER DELETE ON "RestaurantTag"
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION restaurant_search_changed();
CREATE TRIGGER "Grocery_search_insert" AFTER INSERT ON "Grocery"
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION grocery_search_changed();
CREATE TRIGGER "Grocery_search_update" AFTER UPDATE OF "title", "description", "alsoKnownAs" ON "Grocery"
    FOR EACH ROW EXECUTE FUNCTION grocery_search_row_changed();
CREATE TRIGGER "GroceryTag_search_insert" AFTER INSERT ON "GroceryTag"
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION grocery_search_changed();
CREATE TRIGGER "GroceryTag_search_update" AFTER UPDATE ON "GroceryTag"
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION grocery_search_changed();
CREATE TRIGGER "GroceryTag_search_delete" AFTER DELETE ON "GroceryTag"
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION grocery_search_changed();

-- The rows already there.
SELECT restaurant_search_refresh(ARRAY(SELECT "id" FROM "Restaurant"));
SELECT grocery_search_refresh(ARRAY(SELECT "id" FROM "Grocery"));
