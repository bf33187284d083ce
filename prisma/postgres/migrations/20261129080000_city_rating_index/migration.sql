-- A city's restaurants in the RATING order ("ratingAvg" DESC NULLS LAST, "id"), the order the
-- rating's own index walks across every city: a page of a city by rating reads that city's rows
-- until the page is full, whatever the city's size. Before, a big city walked the rating index
-- through every other city's rows (3,102 restaurants read for 21 of Lisbon's Italian ones at
-- 1,000,000 restaurants), a small one read all its rows and sorted them; now either plan is this
-- one, whatever the values (docs/performance.md, "A city by rating").
CREATE INDEX "Restaurant_citySearch_ratingAvg_id_idx" ON "Restaurant" ("citySearch", "ratingAvg" DESC NULLS LAST, "id");
