-- ---- Search at a million rows (written by hand) ---------------------------------------------
-- Derived data only, like 20261125165728_search: the triggers below keep it in step with
-- Restaurant, RestaurantTag, Grocery and GroceryTag, and this migration fills it for the rows
-- already there (a copy of the model tables gets it back the same way).

-- How many restaurants have each list value (cuisine, category, price range) and each city, and
-- how many there are ('ALL'): exact totals and facets without counting rows, and the statistics
-- src/db/searches.ts chooses how to read a page by. "value" is the smallest spelling written of
-- the key, as facets show it.
CREATE TABLE "RestaurantFacetCount" (
    "kind" TEXT NOT NULL,
    "valueKey" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "n" BIGINT NOT NULL,
    PRIMARY KEY ("kind", "valueKey")
);

CREATE TABLE "GroceryFacetCount" (
    "kind" TEXT NOT NULL,
    "valueKey" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "n" BIGINT NOT NULL,
    PRIMARY KEY ("kind", "valueKey")
);

-- Adds each change (+1 or -1 per row written) to its count. Rows are locked in key order, so two
-- writers never wait for each other in a cycle; a count that reaches zero is removed.
CREATE FUNCTION facet_count_apply(counts regclass, kinds TEXT[], keys TEXT[], spellings TEXT[], changes INT[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format($q$
        INSERT INTO %s AS t ("kind", "valueKey", "value", "n")
        SELECT x.k, x.key, MIN(x.v), SUM(x.d) FROM unnest($1, $2, $3, $4) AS x(k, key, v, d)
        GROUP BY x.k, x.key HAVING SUM(x.d) <> 0 ORDER BY x.k, x.key
        ON CONFLICT ("kind", "valueKey") DO UPDATE
            SET "n" = t."n" + EXCLUDED."n",
                "value" = CASE WHEN EXCLUDED."n" > 0 THEN LEAST(t."value", EXCLUDED."value") ELSE t."value" END
    $q$, counts) USING kinds, keys, spellings, changes;
    EXECUTE format($q$
        DELETE FROM %s t USING unnest($1, $2) AS x(k, key) WHERE t."kind" = x.k AND t."valueKey" = x.key AND t."n" <= 0
    $q$, counts) USING kinds, keys;
END $$;

-- Statement triggers with transition tables, like the search documents': a bulk write counts once.
CREATE FUNCTION restaurant_facet_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    k TEXT[]; key TEXT[]; v TEXT[]; d INT[];
BEGIN
    IF TG_TABLE_NAME = 'Restaurant' AND TG_OP = 'INSERT' THEN
        SELECT array_agg(x.k), array_agg(x.key), array_agg(x.v), array_agg(1) INTO k, key, v, d FROM (
            SELECT 'ALL' AS k, '' AS key, '' AS v FROM new_rows
            UNION ALL SELECT 'CITY', "citySearch", COALESCE("city", "citySearch") FROM new_rows WHERE "citySearch" IS NOT NULL) x;
    ELSIF TG_TABLE_NAME = 'Restaurant' THEN
        SELECT array_agg(x.k), array_agg(x.key), array_agg(x.v), array_agg(-1) INTO k, key, v, d FROM (
            SELECT 'ALL' AS k, '' AS key, '' AS v FROM old_rows
            UNION ALL SELECT 'CITY', "citySearch", COALESCE("city", "citySearch") FROM old_rows WHERE "citySearch" IS NOT NULL) x;
    ELSIF TG_OP = 'INSERT' THEN
        SELECT array_agg("kind"::text), array_agg("valueKey"), array_agg("value"), array_agg(1) INTO k, key, v, d
        FROM new_rows WHERE "kind"::text IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE');
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg("kind"::text), array_agg("valueKey"), array_agg("value"), array_agg(-1) INTO k, key, v, d
        FROM old_rows WHERE "kind"::text IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE');
    ELSE
        SELECT array_agg(x.k), array_agg(x.key), array_agg(x.v), array_agg(x.d) INTO k, key, v, d FROM (
            SELECT "kind"::text AS k, "valueKey" AS key, "value" AS v, -1 AS d FROM old_rows
            UNION ALL SELECT "kind"::text, "valueKey", "value", 1 FROM new_rows) x
        WHERE x.k IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE');
    END IF;
    IF k IS NOT NULL THEN PERFORM facet_count_apply('"RestaurantFacetCount"', k, key, v, d); END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION grocery_facet_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    k TEXT[]; key TEXT[]; v TEXT[]; d INT[];
BEGIN
    IF TG_TABLE_NAME = 'Grocery' AND TG_OP = 'INSERT' THEN
        SELECT array_agg(TEXT 'ALL'), array_agg(TEXT ''), array_agg(TEXT ''), array_agg(1) INTO k, key, v, d FROM new_rows;
    ELSIF TG_TABLE_NAME = 'Grocery' THEN
        SELECT array_agg(TEXT 'ALL'), array_agg(TEXT ''), array_agg(TEXT ''), array_agg(-1) INTO k, key, v, d FROM old_rows;
    ELSIF TG_OP = 'INSERT' THEN
        SELECT array_agg("kind"::text), array_agg("valueKey"), array_agg("value"), array_agg(1) INTO k, key, v, d
        FROM new_rows WHERE "kind"::text = 'CATEGORY';
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg("kind"::text), array_agg("valueKey"), array_agg("value"), array_agg(-1) INTO k, key, v, d
        FROM old_rows WHERE "kind"::text = 'CATEGORY';
    ELSE
        SELECT array_agg(x.k), array_agg(x.key), array_agg(x.v), array_agg(x.d) INTO k, key, v, d FROM (
            SELECT "kind"::text AS k, "valueKey" AS key, "value" AS v, -1 AS d FROM old_rows
            UNION ALL SELECT "kind"::text, "valueKey", "value", 1 FROM new_rows) x
        WHERE x.k = 'CATEGORY';
    END IF;
    IF k IS NOT NULL THEN PERFORM facet_count_apply('"GroceryFacetCount"', k, key, v, d); END IF;
    RETURN NULL;
END $$;

-- A restaurant moved to another city (row trigger: ratings change with every comment, and only
-- a changed city may run anything).
CREATE FUNCTION restaurant_city_count_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM facet_count_apply('"RestaurantFacetCount"',
        ARRAY['CITY', 'CITY'], ARRAY[OLD."citySearch", NEW."citySearch"],
        ARRAY[COALESCE(OLD."city", OLD."citySearch"), COALESCE(NEW."city", NEW."citySearch")],
        ARRAY[CASE WHEN OLD."citySearch" IS NULL THEN 0 ELSE -1 END, CASE WHEN NEW."citySearch" IS NULL THEN 0 ELSE 1 END]);
    RETURN NULL;
END $$;

CREATE TRIGGER "Restaurant_count_insert" AFTER INSERT ON "Restaurant"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION restaurant_facet_counts_changed();
CREATE TRIGGER "Restaurant_count_delete" AFTER DELETE ON "Restaurant"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION restaurant_facet_counts_changed();
CREATE TRIGGER "Restaurant_count_city" AFTER UPDATE OF "city", "citySearch" ON "Restaurant" FOR EACH ROW
    WHEN (OLD."citySearch" IS DISTINCT FROM NEW."citySearch" OR OLD."city" IS DISTINCT FROM NEW."city")
    EXECUTE FUNCTION restaurant_city_count_changed();
CREATE TRIGGER "RestaurantTag_count_insert" AFTER INSERT ON "RestaurantTag"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION restaurant_facet_counts_changed();
CREATE TRIGGER "RestaurantTag_count_delete" AFTER DELETE ON "RestaurantTag"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION restaurant_facet_counts_changed();
CREATE TRIGGER "RestaurantTag_count_update" AFTER UPDATE ON "RestaurantTag"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION restaurant_facet_counts_changed();
CREATE TRIGGER "Grocery_count_insert" AFTER INSERT ON "Grocery"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION grocery_facet_counts_changed();
CREATE TRIGGER "Grocery_count_delete" AFTER DELETE ON "Grocery"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION grocery_facet_counts_changed();
CREATE TRIGGER "GroceryTag_count_insert" AFTER INSERT ON "GroceryTag"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION grocery_facet_counts_changed();
CREATE TRIGGER "GroceryTag_count_delete" AFTER DELETE ON "GroceryTag"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION grocery_facet_counts_changed();
CREATE TRIGGER "GroceryTag_count_update" AFTER UPDATE ON "GroceryTag"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION grocery_facet_counts_changed();

-- Each restaurant's coordinates as a point in a GiST index: a near search reads the box around
-- its circle from it, instead of a latitude band of the (latitude, longitude) index, which spans
-- every restaurant at those latitudes. Built-in geometry (no extension); the distance itself is
-- still the great-circle one, tested on the rows the box gives.
CREATE INDEX "Restaurant_point_idx" ON "Restaurant" USING gist (point("longitude", "latitude"));

-- The rows already there.
INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
    SELECT 'ALL', '', '', COUNT(*) FROM "Restaurant" HAVING COUNT(*) > 0;
INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
    SELECT 'CITY', "citySearch", MIN(COALESCE("city", "citySearch")), COUNT(*) FROM "Restaurant" WHERE "citySearch" IS NOT NULL GROUP BY "citySearch";
INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
    SELECT "kind"::text, "valueKey", MIN("value"), COUNT(*) FROM "RestaurantTag"
    WHERE "kind"::text IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') GROUP BY "kind", "valueKey";
INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n")
    SELECT 'ALL', '', '', COUNT(*) FROM "Grocery" HAVING COUNT(*) > 0;
INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n")
    SELECT "kind"::text, "valueKey", MIN("value"), COUNT(*) FROM "GroceryTag" WHERE "kind"::text = 'CATEGORY' GROUP BY "kind", "valueKey";
