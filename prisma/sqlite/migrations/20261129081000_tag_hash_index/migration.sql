-- Nothing to do on SQLite: its list-led samples hash each tag row's rowid, which an index
-- expression cannot name. The PostgreSQL migration of this name indexes the list values' rows by
-- their owner's hash; the two databases keep the same migration names (test/migrations.test.ts).
SELECT 1;
