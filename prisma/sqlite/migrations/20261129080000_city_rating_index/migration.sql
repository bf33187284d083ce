-- Nothing to do on SQLite: a page walked in the rating's index tests the city on each row (kept
-- off the city's index), and a city with few matches is read whole by its index, as the stored
-- counts decide (src/db/search/pages.ts). The PostgreSQL migration of this name indexes a city's
-- restaurants in the RATING order; the two databases keep the same migration names
-- (test/migrations.test.ts).
SELECT 1;
