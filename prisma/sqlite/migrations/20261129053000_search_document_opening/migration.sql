-- Nothing to do on SQLite: its search rows hold the opening pattern and city key since
-- 20261129050000_search_row_filters. The PostgreSQL migration of this name copies them onto the
-- search documents; the two databases keep the same migration names (test/migrations.test.ts).
SELECT 1;
