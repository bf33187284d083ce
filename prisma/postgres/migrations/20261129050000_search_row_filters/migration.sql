-- Nothing to do on PostgreSQL: the SQLite migration of this name copies each restaurant's opening
-- pattern and city key onto its search row (a table PostgreSQL does not have: its search documents
-- are keyed by the restaurant). The two databases ship the same migration names
-- (test/migrations.test.ts).
SELECT 1;
