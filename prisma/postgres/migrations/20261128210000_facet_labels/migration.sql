-- ---- Facet labels: the most common spelling held now (written by hand) -------------------------
-- A facet's label ("value" of "<Catalogue>FacetCount") was the smallest spelling ever written of
-- its key and never went back: one owner writing "BERLIN" relabelled Berlin for everyone, for
-- good. Each spelling of each key is now counted (derived data, like the counts: kept by
-- facet_count_apply below, a spelling at 0 removed), and the label is the spelling most rows have
-- now, ties going to the smallest by character code (COLLATE "C", as SQLite compares). Reading a
-- label stays one primary-key lookup.

CREATE TABLE "RestaurantFacetSpelling" (
    "kind" TEXT NOT NULL,
    "valueKey" TEXT NOT NULL,
    "value" TEXT COLLATE "C" NOT NULL,
    "n" BIGINT NOT NULL,
    PRIMARY KEY ("kind", "valueKey", "value")
);
CREATE INDEX "RestaurantFacetSpelling_label_idx" ON "RestaurantFacetSpelling" ("kind", "valueKey", "n" DESC, "value");

CREATE TABLE "GroceryFacetSpelling" (
    "kind" TEXT NOT NULL,
    "valueKey" TEXT NOT NULL,
    "value" TEXT COLLATE "C" NOT NULL,
    "n" BIGINT NOT NULL,
    PRIMARY KEY ("kind", "valueKey", "value")
);
CREATE INDEX "GroceryFacetSpelling_label_idx" ON "GroceryFacetSpelling" ("kind", "valueKey", "n" DESC, "value");

-- The rows already there, and their labels.
INSERT INTO "RestaurantFacetSpelling" ("kind", "valueKey", "value", "n")
    SELECT 'CITY', "citySearch", COALESCE("city", "citySearch"), COUNT(*) FROM "Restaurant" WHERE "citySearch" IS NOT NULL
    GROUP BY "citySearch", COALESCE("city", "citySearch");
INSERT INTO "RestaurantFacetSpelling" ("kind", "valueKey", "value", "n")
    SELECT "kind"::text, "valueKey", "value", COUNT(*) FROM "RestaurantTag" WHERE "kind"::text IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE')
    GROUP BY "kind", "valueKey", "value";
INSERT INTO "GroceryFacetSpelling" ("kind", "valueKey", "value", "n")
    SELECT "kind"::text, "valueKey", "value", COUNT(*) FROM "GroceryTag" WHERE "kind"::text = 'CATEGORY' GROUP BY "kind", "valueKey", "value";
UPDATE "RestaurantFacetCount" c SET "value" = COALESCE((SELECT s."value" FROM "RestaurantFacetSpelling" s
    WHERE s."kind" = c."kind" AND s."valueKey" = c."valueKey" ORDER BY s."n" DESC, s."value" LIMIT 1), c."value");
UPDATE "GroceryFacetCount" c SET "value" = COALESCE((SELECT s."value" FROM "GroceryFacetSpelling" s
    WHERE s."kind" = c."kind" AND s."valueKey" = c."valueKey" ORDER BY s."n" DESC, s."value" LIMIT 1), c."value");

-- Adds each change (+1 or -1 per row written) to its spelling's count, then to its key's count,
-- whose label is then the most common spelling. The spellings are locked first, then the counts,
-- each in key order: two writers never wait for each other in a cycle. A count or spelling that
-- reaches zero is removed. The spellings' table is the counts' named with "FacetSpelling".
CREATE OR REPLACE FUNCTION facet_count_apply(counts regclass, kinds TEXT[], keys TEXT[], spellings TEXT[], changes INT[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    spelled regclass := replace(counts::text, 'FacetCount', 'FacetSpelling')::regclass;
BEGIN
    EXECUTE format($q$
        INSERT INTO %s AS t ("kind", "valueKey", "value", "n")
        SELECT x.k, x.key, x.v, SUM(x.d) FROM unnest($1, $2, $3, $4) AS x(k, key, v, d)
        WHERE x.k <> 'ALL' AND x.key IS NOT NULL GROUP BY x.k, x.key, x.v HAVING SUM(x.d) <> 0 ORDER BY x.k, x.key, x.v
        ON CONFLICT ("kind", "valueKey", "value") DO UPDATE SET "n" = t."n" + EXCLUDED."n"
    $q$, spelled) USING kinds, keys, spellings, changes;
    EXECUTE format($q$
        DELETE FROM %s t USING unnest($1, $2, $3) AS x(k, key, v)
        WHERE t."kind" = x.k AND t."valueKey" = x.key AND t."value" = x.v AND t."n" <= 0
    $q$, spelled) USING kinds, keys, spellings;
    -- Every key written gets its label again, a spelling changed with no change of count included.
    EXECUTE format($q$
        INSERT INTO %1$s AS t ("kind", "valueKey", "value", "n")
        SELECT x.k, x.key, COALESCE((SELECT s."value" FROM %2$s s WHERE s."kind" = x.k AND s."valueKey" = x.key
                                     ORDER BY s."n" DESC, s."value" LIMIT 1), MIN(x.v)), SUM(x.d)
        FROM unnest($1, $2, $3, $4) AS x(k, key, v, d) WHERE x.key IS NOT NULL
        GROUP BY x.k, x.key ORDER BY x.k, x.key
        ON CONFLICT ("kind", "valueKey") DO UPDATE SET "n" = t."n" + EXCLUDED."n", "value" = EXCLUDED."value"
    $q$, counts, spelled) USING kinds, keys, spellings, changes;
    EXECUTE format($q$
        DELETE FROM %s t USING unnest($1, $2) AS x(k, key) WHERE t."kind" = x.k AND t."valueKey" = x.key AND t."n" <= 0
    $q$, counts) USING kinds, keys;
END $$;
