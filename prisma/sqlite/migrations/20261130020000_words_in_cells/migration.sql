-- Nothing to do on SQLite: FTS5 intersects a search's words with the cells of its circle in its
-- own doclists (src/db/sqlite/search/keys.ts). The PostgreSQL migration of this name indexes each
-- word of a restaurant's search document within its map cell; the two databases keep the same
-- migration names (test/migrations.test.ts).
SELECT 1;
