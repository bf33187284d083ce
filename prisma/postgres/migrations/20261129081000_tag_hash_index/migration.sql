-- A list value's rows by their owner's hash: a sample led by a list (src/db/postgres/search/totals.ts,
-- leadSample) keeps the rows whose owner hashes under its share, and read them from the
-- (kind, valueKey, owner) index by testing every entry of the value (45,125 for Italian at
-- 1,000,000 restaurants: 5,860 buffers, ~20 ms, in every cuisine + city search with a total).
-- Here the share is a range of the index: the ~500 kept entries alone.
CREATE INDEX "RestaurantTag_kind_valueKey_hash_idx" ON "RestaurantTag" ("kind", "valueKey", hashtext("restaurantId"));
CREATE INDEX "GroceryTag_kind_valueKey_hash_idx" ON "GroceryTag" ("kind", "valueKey", hashtext("groceryId"));
-- The planner's statistics of the hash belong to the index (as 20261129051000_sample_covering_index).
ANALYZE "RestaurantTag";
ANALYZE "GroceryTag";
