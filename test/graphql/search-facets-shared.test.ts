// A search that asks for its total and its facets: both exact under the counting limit, equal to
// what narrower searches count one by one, nulls (no city) left out of the city facet; past the
// limit both estimates. The matches are found once for both, in one statement (search-totals.ts
// searchSummary): a words + near + open-now search at 1,000,000 restaurants read its 19,414 word
// matches twice (PostgreSQL 2 x 200 ms, SQLite 85 + 88 ms).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let token: string;

const LISBON = { latitude: 38.7223, longitude: -9.1393 };
const CREATE = `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`;
const FACETED = `query($filter: RestaurantFilter) { restaurants(filter: $filter, first: 3) {
  totalCount totalCountIsEstimate facets { exact cuisines { value count } cities { value count } } nodes { title } } }`;
const COUNT = `query($filter: RestaurantFilter) { restaurants(filter: $filter, first: 1) { totalCount totalCountIsEstimate } }`;

async function ok(query: string, variables: Record<string, unknown>) {
  const r = await s.graphql(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

beforeAll(async () => {
  s = await startServer();
  token = (await s.signUp("facets")).token;
  const near = (i: number) => ({ latitude: LISBON.latitude + (i % 7) / 1000, longitude: LISBON.longitude });
  for (let i = 0; i < 24; i++) {
    const cuisine = ["Italian", "Japanese", "French"][i % 3];
    // Every fourth one has no city (its address only coordinates); every fifth is far away.
    const address =
      i % 5 === 4
        ? { city: "Porto", geo: { latitude: 41.15, longitude: -8.61 } }
        : i % 4 === 3
          ? { geo: near(i) }
          : { city: i % 2 ? "Lisbon" : "Belém", geo: near(i) };
    await ok(CREATE, {
      input: {
        title: `Pizza place ${i}`,
        description: i % 6 === 5 ? "no dough here" : "pizza oven",
        cuisines: [cuisine],
        address,
      },
    });
  }
});
afterAll(async () => s?.close());

describe("a search's total and facets together", () => {
  it("are exact and agree with the matches counted one by one", async () => {
    const filter = { search: "pizza oven", near: { ...LISBON, radiusKm: 5 } };
    s.sql.length = 0;
    const data = await ok(FACETED, { filter });
    const { totalCount, totalCountIsEstimate, facets } = data.restaurants;
    const statements = [...s.sql];
    expect(totalCountIsEstimate).toBe(false);
    expect(facets.exact).toBe(true);
    // 24, less the far ones (i % 5 == 4) and those without "oven" (i % 6 == 5).
    const expected = Array.from({ length: 24 }, (_, i) => i).filter((i) => i % 5 !== 4 && i % 6 !== 5);
    expect(totalCount).toBe(expected.length);
    for (const { value, count } of facets.cuisines) {
      const one = await ok(COUNT, { filter: { ...filter, cuisine: value } });
      expect(one.restaurants.totalCount, value).toBe(count);
    }
    expect(facets.cuisines.reduce((sum: number, c: { count: number }) => sum + c.count, 0)).toBe(totalCount);
    const noCity = expected.filter((i) => i % 4 === 3).length;
    expect(noCity).toBeGreaterThan(0);
    expect(facets.cities.reduce((sum: number, c: { count: number }) => sum + c.count, 0)).toBe(totalCount - noCity);
    for (const { value, count } of facets.cities) {
      const one = await ok(COUNT, { filter: { ...filter, city: value } });
      expect(one.restaurants.totalCount, value).toBe(count);
    }
    // The matches were looked for once, for the total and the facets: by their own statement, or
    // by the page's when it ranked them all (PostgreSQL: search-window-matches.test.ts).
    const passes = statements.filter((sql) => sql.includes(`LIMIT ${1001}`) || sql.includes(`"windowFacets"`));
    expect(passes, passes.join("\n")).toHaveLength(1);
  });

  it("share nothing when the search matches nothing", async () => {
    const data = await ok(FACETED, { filter: { search: "pizza", near: { latitude: 0, longitude: 0, radiusKm: 1 } } });
    expect(data.restaurants).toMatchObject({
      totalCount: 0,
      totalCountIsEstimate: false,
      facets: { exact: true, cuisines: [], cities: [] },
      nodes: [],
    });
  });
});
