-- ---- Opening patterns (Prisma's steps, reordered, then written by hand; PostgreSQL) ----------
-- An open-now search tested every candidate restaurant's opening hours in its own zone, row by
-- row: "open now" in Lisbon at 05:00 UTC (none open) read all 125,000 of the city's restaurants at
-- 1,000,000 and passed the statement timeout. Restaurants share few zone + hours combinations
-- (the seed: its cities' zones x 8 patterns), so each combination is an OpeningPattern, tested
-- once per search (src/db/opening-patterns.ts), and the restaurants of the open ones are read from
-- the index ("citySearch", "openingPattern") or ("openingPattern").
--
-- Derived data, kept by the triggers below (the bulk seed sets them aside and runs the same
-- backfill): a restaurant's pattern is its zone and its distinct periods "HH:MM-HH:MM", sorted,
-- comma-separated; none without a zone or without periods (never open, as before). A pattern no
-- restaurant uses any more is deleted, so patterns stay at most the restaurants' distinct
-- combinations whatever the writes.

ALTER TABLE "Restaurant" ADD COLUMN     "openingPattern" INTEGER;

CREATE TABLE "OpeningPattern" (
    "id" SERIAL NOT NULL,
    "timeZone" TEXT NOT NULL,
    "periods" TEXT NOT NULL,

    CONSTRAINT "OpeningPattern_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "OpeningPattern_timeZone_periods_key" ON "OpeningPattern"("timeZone", "periods");

-- The zone and periods of these restaurants, as their patterns name them.
CREATE FUNCTION restaurant_opening_periods(ids text[]) RETURNS TABLE ("restaurantId" text, "timeZone" text, "periods" text)
LANGUAGE sql STABLE AS $$
    SELECT r."id", r."timeZone", (SELECT string_agg(DISTINCT h."open" || '-' || h."close", ',' ORDER BY h."open" || '-' || h."close")
        FROM "OpeningHours" h WHERE h."restaurantId" = r."id")
    FROM "Restaurant" r WHERE r."id" = ANY(ids)
$$;

-- These restaurants' patterns again; a pattern one of them left and no restaurant uses goes. The
-- lock (held to the end of the transaction) orders the writers of patterns: without it, one could
-- delete a pattern another has just chosen and not yet committed.
CREATE FUNCTION restaurant_opening_refresh(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    left_behind integer[];
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('OpeningPattern'));
    SELECT array_agg(DISTINCT "openingPattern") INTO left_behind FROM "Restaurant" WHERE "id" = ANY(ids) AND "openingPattern" IS NOT NULL;
    INSERT INTO "OpeningPattern" ("timeZone", "periods")
        SELECT DISTINCT "timeZone", "periods" FROM restaurant_opening_periods(ids) WHERE "timeZone" IS NOT NULL AND "periods" IS NOT NULL
        ON CONFLICT DO NOTHING;
    UPDATE "Restaurant" r SET "openingPattern" = o."id"
        FROM restaurant_opening_periods(ids) v LEFT JOIN "OpeningPattern" o ON o."timeZone" = v."timeZone" AND o."periods" = v."periods"
        WHERE r."id" = v."restaurantId" AND r."openingPattern" IS DISTINCT FROM o."id";
    DELETE FROM "OpeningPattern" o WHERE o."id" = ANY(left_behind)
        AND NOT EXISTS (SELECT 1 FROM "Restaurant" r WHERE r."openingPattern" = o."id");
END $$;

CREATE FUNCTION restaurant_opening_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'Restaurant' THEN
        PERFORM restaurant_opening_refresh(ARRAY[NEW."id"]);
    ELSIF TG_OP = 'INSERT' THEN
        PERFORM restaurant_opening_refresh(ARRAY(SELECT DISTINCT "restaurantId" FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM restaurant_opening_refresh(ARRAY(SELECT DISTINCT "restaurantId" FROM old_rows));
    ELSE -- a period changed, or moved to another restaurant: both
        PERFORM restaurant_opening_refresh(ARRAY(SELECT "restaurantId" FROM old_rows UNION SELECT "restaurantId" FROM new_rows));
    END IF;
    RETURN NULL;
END $$;

-- A deleted restaurant's pattern, if it was the last to use it.
CREATE FUNCTION restaurant_opening_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('OpeningPattern'));
    DELETE FROM "OpeningPattern" o WHERE o."id" IN (SELECT DISTINCT "openingPattern" FROM old_rows)
        AND NOT EXISTS (SELECT 1 FROM "Restaurant" r WHERE r."openingPattern" = o."id");
    RETURN NULL;
END $$;

-- The restaurants already there (before the indexes).
INSERT INTO "OpeningPattern" ("timeZone", "periods")
    SELECT DISTINCT "timeZone", "periods" FROM restaurant_opening_periods(ARRAY(SELECT "id" FROM "Restaurant"))
    WHERE "timeZone" IS NOT NULL AND "periods" IS NOT NULL ORDER BY 1, 2;
UPDATE "Restaurant" r SET "openingPattern" = o."id"
    FROM restaurant_opening_periods(ARRAY(SELECT "id" FROM "Restaurant")) v
    JOIN "OpeningPattern" o ON o."timeZone" = v."timeZone" AND o."periods" = v."periods"
    WHERE r."id" = v."restaurantId";

CREATE INDEX "Restaurant_citySearch_openingPattern_idx" ON "Restaurant"("citySearch", "openingPattern");
CREATE INDEX "Restaurant_openingPattern_idx" ON "Restaurant"("openingPattern");

-- Statement triggers with transition tables: a bulk write refreshes each restaurant once. The
-- hours' update trigger sees both tables: a period moved to another restaurant changes both.
CREATE TRIGGER "OpeningHours_pattern_insert" AFTER INSERT ON "OpeningHours"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION restaurant_opening_changed();
CREATE TRIGGER "OpeningHours_pattern_delete" AFTER DELETE ON "OpeningHours"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION restaurant_opening_changed();
CREATE TRIGGER "OpeningHours_pattern_update" AFTER UPDATE ON "OpeningHours"
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION restaurant_opening_changed();
CREATE TRIGGER "Restaurant_pattern_zone" AFTER UPDATE OF "timeZone" ON "Restaurant" FOR EACH ROW
    WHEN (OLD."timeZone" IS DISTINCT FROM NEW."timeZone") EXECUTE FUNCTION restaurant_opening_changed();
CREATE TRIGGER "Restaurant_pattern_deleted" AFTER DELETE ON "Restaurant"
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION restaurant_opening_deleted();
