-- The catalogue's sample (src/db/postgres/search/totals.ts: the rows whose id hashes under a
-- share, each tested on the search's conditions) read from this index alone: it carries the id
-- and every column a sampled row is tested on or counted by, so the ~5,000 sampled restaurants
-- are read without their table's pages. Before, each was a table row, or the planner ANDed the
-- hash with a bitmap of every row of the city or the box (437,917 entries for Lisbon open at
-- 20:00 in a dense catalogue: ~100 ms; now ~2 ms).
DROP INDEX "Restaurant_id_hash_idx";
CREATE INDEX "Restaurant_id_hash_idx" ON "Restaurant" (hashtext("id")) INCLUDE (
  "id", "latitude", "longitude", "citySearch", "city", "openingPattern", "ratingAvg", "canHomeDeliver", "acceptsReservations"
);
-- The planner's statistics of hashtext("id") belong to the index: without them it guessed a third
-- of the rows under any hash, and read the sample from other indexes.
ANALYZE "Restaurant";
