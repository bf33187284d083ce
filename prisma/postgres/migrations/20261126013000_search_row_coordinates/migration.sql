-- Nothing to do on PostgreSQL: the SQLite migration of this name copies each restaurant's
-- coordinates onto its search row (a table PostgreSQL does not have: its search documents are keyed
-- by the restaurant, and a near search reads the GiST index of the restaurants' points). The two
-- databases ship the same migration names (test/migrations.test.ts).
SELECT 1;
