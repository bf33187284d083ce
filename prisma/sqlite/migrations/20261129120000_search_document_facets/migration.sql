-- Nothing to do on SQLite: its search rows lead the matches a search's facets count, and each
-- match's list values are read from "RestaurantTag" by its key (src/db/sqlite/search/totals.ts).
-- The PostgreSQL migration of this name copies a restaurant's facet values onto its search
-- document; the two databases keep the same migration names (test/migrations.test.ts).
SELECT 1;
