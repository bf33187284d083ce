// Estimated totals and facets on a clustered catalogue: 2,400 restaurants written city by city
// (6 cities of 400, each half Thai, half Greek), as a real catalogue is loaded. A sample of
// contiguous blocks (four rowid windows, TABLESAMPLE SYSTEM's whole pages) saw some cities whole
// and others not at all: 600 or 0 for a true 400. Small limits make every search here an
// estimate: SEARCH_EXACT_COUNT_LIMIT 20, and samples of a quarter to half of the rows. SQLite
// (SEARCH_SAMPLE_ROWS 1,000): a city search reads windows of 32 rows, one in each stretch of 76
// keys (a city spans 5.3 stretches: 5 or 6 windows, 380 or 456 for 400); a near search the
// R*Tree's keys in the box whose hash falls under a share of 100 keys (a quarter of a city).
// PostgreSQL (SEARCH_SAMPLE_ROWS 2,400, without words half of it): 1,200 rows by their id's hash.
// The ids are fixed and each sampler picks its rows from them by a hash of the key, so the answers
// are the same on every run; the margin (±25%) is 2 standard deviations of a sampled Thai count or
// more (SQLite's near search: 50 Thai rows of a quarter sample).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testProvider } from "../helpers/database.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const CITIES = ["Aveiro", "Braga", "Coimbra", "Evora", "Faro", "Guarda"];
const PER_CITY = 400;
const SEARCH = `query($filter: RestaurantFilter) { restaurants(filter: $filter, first: 1) {
  totalCount totalCountIsEstimate facets { exact cuisines { value count } cities { value count } } } }`;

/** A server with these settings, and one on the same database estimating past 20 matches from samples of `sampleRows`. */
async function serversEstimatingPast20(settings: Record<string, string>, sampleRows: number) {
  const usual = await startServer(settings);
  const small = await startServer(
    { SEARCH_EXACT_COUNT_LIMIT: "20", SEARCH_SAMPLE_ROWS: String(sampleRows), SEARCH_PLAN_COUNTS_MAX_AGE: "0" },
    { alongside: usual },
  );
  return [usual, small];
}

/** City k's centre: 10 degrees apart, so a 30 km circle holds that city's restaurants alone. */
const centre = (k: number) => ({ latitude: 10 * k - 20, longitude: 10 * k - 20 });

describe("estimated totals and facets on a catalogue loaded city by city", () => {
  let usual: TestServer;
  let small: TestServer;
  let token: string;

  beforeAll(async () => {
    [usual, small] = await serversEstimatingPast20({}, testProvider() === "postgres" ? 2400 : 1000);
    const owner = await usual.signUp("clustered");
    token = owner.token;
    // One statement, city after city: the rows' keys follow the cities.
    const rows = CITIES.map(
      (city, k) => `SELECT ${k} AS k, '${city}' AS city, '${city.toLowerCase()}' AS citySearch`,
    ).join(" UNION ALL ");
    await usual.db.prisma
      .$executeRawUnsafe(`INSERT INTO "Restaurant" ("id", "title", "titleSearch", "city", "citySearch",
        "latitude", "longitude", "ownerId", "createdAt", "updatedAt")
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${PER_CITY - 1})
      SELECT 'clustered-' || (c.k * ${PER_CITY} + n.i), 'Clustered ' || n.i, 'clustered ' || n.i, c.city, c.citySearch,
        ${centre(0).latitude} + 10 * c.k + n.i * 0.0005, ${centre(0).longitude} + 10 * c.k, '${owner.id}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP
      FROM (${rows}) c CROSS JOIN n ORDER BY c.k, n.i`);
    const cuisine = testProvider() === "postgres" ? `CAST('CUISINE' AS "RestaurantTagKind")` : `'CUISINE'`;
    await usual.db.prisma
      .$executeRawUnsafe(`INSERT INTO "RestaurantTag" ("restaurantId", "kind", "position", "value", "valueKey")
      SELECT "id", ${cuisine}, 0, CASE WHEN CAST(SUBSTR("id", 11) AS INTEGER) % 2 = 0 THEN 'Thai' ELSE 'Greek' END,
        CASE WHEN CAST(SUBSTR("id", 11) AS INTEGER) % 2 = 0 THEN 'thai' ELSE 'greek' END
      FROM "Restaurant" WHERE "id" LIKE 'clustered-%'`);
    // PostgreSQL's sampler sizes its share from the planner's row count, as on a live catalogue.
    if (testProvider() === "postgres") await usual.db.prisma.$executeRawUnsafe(`ANALYZE`);
  }, 120_000);
  afterAll(async () => {
    await small?.close();
    await usual?.close();
  });

  it("estimates each city's total and facet counts within ±25% of the true ones", async () => {
    const within = (estimate: number, truth: number) => Math.abs(estimate - truth) <= 0.25 * truth;
    const answers = [];
    for (let k = 0; k < CITIES.length; k++) {
      // Near (SQLite: led by the R*Tree) and by city (SQLite: the catalogue's windows), both the
      // whole city; the two cuisines are every row, but not one stored count.
      const filters = {
        near: { near: { ...centre(k), radiusKm: 30 } },
        city: { city: CITIES[k], cuisines: { anyOf: ["thai", "greek"] } },
      };
      for (const [search, filter] of Object.entries(filters)) {
        const exact = await usual.graphql(SEARCH, { filter }, token);
        expect(exact.errors, JSON.stringify(exact.errors)).toBeUndefined();
        expect(exact.data.restaurants).toMatchObject({ totalCount: PER_CITY, totalCountIsEstimate: false });
        const r = await small.graphql(SEARCH, { filter }, token);
        expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
        const { totalCount, totalCountIsEstimate, facets } = r.data.restaurants;
        const count = (list: { value: string; count: number }[], value: string) =>
          list.find((v) => v.value === value)?.count ?? 0;
        answers.push({
          city: CITIES[k],
          search,
          totalCountIsEstimate,
          exact: facets.exact,
          total: within(totalCount, PER_CITY) || totalCount,
          city_: within(count(facets.cities, CITIES[k]), PER_CITY) || count(facets.cities, CITIES[k]),
          thai: within(count(facets.cuisines, "Thai"), PER_CITY / 2) || count(facets.cuisines, "Thai"),
          greek: within(count(facets.cuisines, "Greek"), PER_CITY / 2) || count(facets.cuisines, "Greek"),
        });
      }
    }
    // Every answer at once, so a failure shows the figures of each city.
    expect(answers).toEqual(
      CITIES.flatMap((city) =>
        ["near", "city"].map((search) => ({
          city,
          search,
          totalCountIsEstimate: true,
          exact: false,
          total: true,
          city_: true,
          thai: true,
          greek: true,
        })),
      ),
    );
  });
});

// A search led by a list (its rarest list value's rows, stored-counts.ts rarestCondition) is
// sampled from that list's rows (search/totals.ts leadSample): 8,000 restaurants, every 7th priced
// $, the others $$; four common cuisines of 2,000 each (every 20th restaurant holds two of them);
// and rare cuisines of 50 restaurants in a row each (one per thousand, the first 10 holding the
// next rare one too), as a catalogue loaded city by city holds a local cuisine. With
// SEARCH_SAMPLE_ROWS 2,000 (PostgreSQL 4,000, half of it without words) the catalogue's sample is
// a quarter of the rows, ~25 of two rare cuisines' ~86 matches, off by ~20% (1 standard deviation);
// SQLite's windows of 32 rows, one in each 127, held a run of 50 in one window or two. A lead read
// for at least a tenth of the sample holds them all, so the estimate is their count, each
// restaurant counted once under the first of its listed values. The common cuisines (4,400 rows)
// are sampled at the catalogue's share: ~860 matches, ±3.4% (1 standard deviation).
describe("estimated totals and facets of a search led by a list", () => {
  const RESTAURANTS = 8_000;
  let exact: TestServer;
  let small: TestServer;
  let token: string;

  beforeAll(async () => {
    [exact, small] = await serversEstimatingPast20(
      { SEARCH_EXACT_COUNT_LIMIT: "100000" },
      testProvider() === "postgres" ? 4000 : 2000,
    );
    const owner = await exact.signUp("led");
    token = owner.token;
    await exact.db.prisma
      .$executeRawUnsafe(`INSERT INTO "Restaurant" ("id", "title", "titleSearch", "city", "citySearch",
        "latitude", "longitude", "ownerId", "createdAt", "updatedAt")
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${RESTAURANTS - 1})
      SELECT 'led-' || n.i, 'Led ' || n.i, 'led ' || n.i, 'Porto', 'porto', 41.15, -8.61, '${owner.id}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP
      FROM n ORDER BY n.i`);
    const kind = (k: string) => (testProvider() === "postgres" ? `CAST('${k}' AS "RestaurantTagKind")` : `'${k}'`);
    const tags: [string, number, string, string][] = [
      ["PRICE_RANGE", 0, `CASE WHEN i % 7 = 0 THEN '$' ELSE '$$' END`, "TRUE"],
      ["CUISINE", 1, `'Common' || (i % 4)`, "TRUE"],
      ["CUISINE", 2, `'Common1'`, "i % 20 = 0"],
      ["CUISINE", 3, `'Rare' || (i / 1000)`, "i % 1000 < 50"],
      ["CUISINE", 4, `'Rare' || (i / 1000 + 1)`, "i % 1000 < 10"],
    ];
    for (const [k, position, value, when] of tags)
      await exact.db.prisma
        .$executeRawUnsafe(`INSERT INTO "RestaurantTag" ("restaurantId", "kind", "position", "value", "valueKey")
        SELECT "id", ${kind(k)}, ${position}, ${value}, LOWER(${value})
        FROM (SELECT "id", CAST(SUBSTR("id", 5) AS INTEGER) AS i FROM "Restaurant" WHERE "id" LIKE 'led-%') r WHERE ${when}`);
    if (testProvider() === "postgres") await exact.db.prisma.$executeRawUnsafe(`ANALYZE`);
  }, 120_000);
  afterAll(async () => {
    await small?.close();
    await exact?.close();
  });

  async function answers(filter: Record<string, unknown>) {
    const [truth, estimated] = await Promise.all([exact, small].map((s) => s.graphql(SEARCH, { filter }, token)));
    expect(truth.errors, JSON.stringify(truth.errors)).toBeUndefined();
    expect(estimated.errors, JSON.stringify(estimated.errors)).toBeUndefined();
    expect(truth.data.restaurants).toMatchObject({ totalCountIsEstimate: false, facets: { exact: true } });
    expect(estimated.data.restaurants).toMatchObject({ totalCountIsEstimate: true, facets: { exact: false } });
    return [truth.data.restaurants, estimated.data.restaurants];
  }

  it("estimates two rare cuisines from every row of theirs, each restaurant once", async () => {
    const totals = [];
    for (let k = 0; k < 6; k++) {
      // Listed in either order: a restaurant holding both counts under the first listed alone.
      const rare = [`rare${k}`, `rare${k + 1}`];
      const filter = { cuisines: { anyOf: k % 2 ? rare.reverse() : rare }, priceRange: ["$$"] };
      const [truth, estimated] = await answers(filter);
      totals.push({ cuisines: filter.cuisines.anyOf, truth: truth.totalCount, estimate: estimated.totalCount });
    }
    expect(totals.every((t) => t.truth > 80)).toBe(true);
    expect(totals).toEqual(totals.map((t) => ({ ...t, estimate: t.truth })));
  });

  it("estimates two common cuisines and their facet counts from a share of their rows", async () => {
    const [truth, estimated] = await answers({ cuisines: { anyOf: ["common1", "common0"] }, priceRange: ["$$"] });
    const count = (r: typeof truth, value: string) =>
      r.facets.cuisines.find((v: { value: string }) => v.value === value)?.count ?? 0;
    const within = (estimate: number, exactCount: number) => Math.abs(estimate - exactCount) <= 0.1 * exactCount;
    const figures = ["total", "Common0", "Common1"].map((name) => {
      const [t, e] =
        name === "total" ? [truth.totalCount, estimated.totalCount] : [count(truth, name), count(estimated, name)];
      return { name, truth: t, estimate: e, within: within(e, t) };
    });
    expect(figures.map((f) => f.truth)).toEqual([3429, 1714, 2057]);
    expect(figures).toEqual(figures.map((f) => ({ ...f, within: true })));
  });
});
