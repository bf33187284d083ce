-- ---- A restaurant's opening pattern also when it arrives after its hours (by hand; PostgreSQL) --
-- Copies and restores copy no derived data (the patterns among it: src/backup/tables.ts) and
-- write parents first here, so the hours' triggers derive each pattern; this trigger covers a
-- restaurant written after its hours all the same, as on SQLite, where children come first. The
-- service writes a restaurant before its hours, so for it this finds nothing to do.
CREATE FUNCTION restaurant_opening_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    with_hours text[];
BEGIN
    -- Only restaurants that have hours already: the service's own inserts take no lock here.
    with_hours := ARRAY(SELECT n."id" FROM new_rows n WHERE EXISTS (SELECT 1 FROM "OpeningHours" h WHERE h."restaurantId" = n."id"));
    IF cardinality(with_hours) > 0 THEN
        PERFORM restaurant_opening_refresh(with_hours);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER "Restaurant_pattern_insert" AFTER INSERT ON "Restaurant"
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION restaurant_opening_inserted();
