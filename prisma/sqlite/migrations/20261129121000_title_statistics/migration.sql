-- Nothing to do on SQLite: a title substring's matches are counted from its trigram index, up to
-- what a page needs, before a page is read (src/db/sqlite/search/keys.ts). The PostgreSQL
-- migration of this name keeps finer statistics of the titles for its planner; the two databases
-- keep the same migration names (test/migrations.test.ts).
SELECT 1;
