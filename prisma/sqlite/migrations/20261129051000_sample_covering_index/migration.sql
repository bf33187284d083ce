-- Nothing to change on SQLite: its samples (src/db/sqlite/search/totals.ts) read small windows of
-- rowids by key. The PostgreSQL migration of the same name makes its hashed sample of restaurants
-- readable from an index alone; the two databases keep the same migration names.
SELECT 1;
