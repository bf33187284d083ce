-- The samples that estimate a search's total and facets keep the rows whose id hashes under a
-- share (src/db/postgres/search/totals.ts). These indexes read them without a scan: a row is in
-- the sample by its own id, not by the page it was written to, so a catalogue loaded city by
-- city is sampled as evenly as a shuffled one (TABLESAMPLE SYSTEM kept whole pages: one city's).
CREATE INDEX "Restaurant_id_hash_idx" ON "Restaurant" (hashtext("id"));
CREATE INDEX "Grocery_id_hash_idx" ON "Grocery" (hashtext("id"));
CREATE INDEX "RestaurantSearch_owner_hash_idx" ON "RestaurantSearch" (hashtext("restaurantId"));
CREATE INDEX "GrocerySearch_owner_hash_idx" ON "GrocerySearch" (hashtext("groceryId"));
