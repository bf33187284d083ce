-- Nothing to do on SQLite: the PostgreSQL migration of this name copies each restaurant's
-- coordinates onto its search document, as 20261126013000_search_row_coordinates did here for the
-- search rows. The two databases ship the same migration names (test/migrations.test.ts).
SELECT 1;
