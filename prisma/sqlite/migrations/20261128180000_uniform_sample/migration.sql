-- Nothing to add on SQLite: its samples (src/db/sqlite/search/totals.ts) read small windows of
-- rowids and hash the words' FTS5 keys, both by key. The PostgreSQL migration of the same name
-- indexes a hash of each id for its samples; the two databases keep the same migration names.
SELECT 1;
