// A relevance page whose rank window held every match (fewer than SEARCH_RANK_WINDOW): on
// PostgreSQL its one statement answers the total exactly, past the exact-count limit too, and the
// facets, counted from the documents' copies of each restaurant's lists ("facetKeys", migration
// 20261129120000_search_document_facets): no count, sample or facets statement beside it. The
// copies follow the restaurant's lists when they change. PostgreSQL only: SQLite ranks with FTS5
// and counts beside the page (src/db/sqlite/search/).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testProvider } from "../helpers/database.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const CENTRE = { latitude: 38.72, longitude: -9.14 };
const RESTAURANTS = 30;
const CUISINES = ["Italian", "Japanese", "French"];
const FACETED = `query($f: RestaurantFilter) { restaurants(filter: $f, sort: RELEVANCE, first: 5) {
  totalCount totalCountIsEstimate nodes { id }
  facets { exact cuisines { value count } priceRanges { value count } categories { value count } cities { value count } } } }`;
const TOTAL = `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount totalCountIsEstimate } }`;

type Facet = { value: string; count: number };
const asMap = (facet: Facet[]) => Object.fromEntries(facet.map((f) => [f.value, f.count]));

describe.skipIf(testProvider() !== "postgres")("a relevance window that holds every match", () => {
  let s: TestServer;
  let token: string;
  const ids: string[] = [];
  let sent: string[] = [];

  beforeAll(async () => {
    // Past 10 matches a total is counted no further; the rank window is the default 2,000.
    s = await startServer({ SEARCH_EXACT_COUNT_LIMIT: "10", SEARCH_PLAN_COUNTS_MAX_AGE: "0" });
    token = (await s.signUp("window-matches")).token;
    for (let i = 0; i < RESTAURANTS; i++) {
      const r = await s.graphql(
        `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`,
        {
          input: {
            title: `Oven place ${i}`,
            cuisines: [CUISINES[i % 3]],
            priceRange: [i % 2 ? "$$" : "$"],
            categories: i % 5 === 0 ? ["Family", "Terrace"] : ["Family"],
            address: {
              city: "Lisbon",
              geo: { latitude: CENTRE.latitude + (i % 6) / 1000, longitude: CENTRE.longitude },
            },
          },
        },
        token,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      ids.push(r.data.createRestaurant.id);
    }
    const readSearch = s.db.readSearch;
    (s.db as { readSearch: typeof readSearch }).readSearch = (sql) => {
      sent.push(sql.text);
      return readSearch(sql);
    };
  }, 60_000);
  afterAll(async () => s?.close());

  async function faceted(filter: Record<string, unknown>): Promise<{
    totalCount: number;
    totalCountIsEstimate: boolean;
    nodes: { id: string }[];
    facets: { exact: boolean; cuisines: Facet[]; priceRanges: Facet[]; categories: Facet[]; cities: Facet[] };
    statements: string[];
  }> {
    sent = [];
    const r = await s.graphql(FACETED, { f: filter }, token);
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    return { ...r.data.restaurants, statements: [...sent] as string[] };
  }

  /** The total of one more condition, counted one by one (within the limit: exact). */
  async function counted(filter: Record<string, unknown>) {
    const r = await s.graphql(TOTAL, { f: filter }, token);
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    expect(r.data.restaurants.totalCountIsEstimate).toBe(false);
    return r.data.restaurants.totalCount as number;
  }

  for (const [name, filter] of [
    ["words alone", { search: "oven" }],
    ["words within a circle", { search: "oven", near: { ...CENTRE, radiusKm: 5 } }],
  ] as const) {
    it(`answers the total and facets of ${name} exactly from the page's statement, past the limit`, async () => {
      const found = await faceted(filter);
      expect([found.totalCount, found.totalCountIsEstimate, found.facets.exact]).toEqual([RESTAURANTS, false, true]);
      expect(found.nodes).toHaveLength(5);
      // One statement read the documents: no count up to the limit, no sample, no facets' statement.
      const documents = found.statements.filter((sql) => sql.includes(`"RestaurantSearch"`));
      expect(documents, documents.join("\n")).toHaveLength(1);
      expect(documents[0]).toContain(`"windowFacets"`);
      expect(found.statements.filter((sql) => sql.includes("hashtext"))).toEqual([]);
      // Each count agrees with the matches of that value counted one by one (10 each: within the limit).
      expect(asMap(found.facets.cuisines)).toEqual({ Italian: 10, Japanese: 10, French: 10 });
      for (const { value, count } of found.facets.cuisines as Facet[])
        expect(await counted({ ...filter, cuisine: value }), value).toBe(count);
      expect(asMap(found.facets.priceRanges)).toEqual({ $: 15, $$: 15 });
      expect(asMap(found.facets.categories)).toEqual({ Family: 30, Terrace: 6 });
      expect(asMap(found.facets.cities)).toEqual({ Lisbon: 30 });
    });
  }

  it("follows a restaurant's lists when they change, and a match that leaves", async () => {
    const update = async (id: string, input: Record<string, unknown>) => {
      const r = await s.graphql(
        `mutation($id: ID!, $input: UpdateRestaurantInput!) { updateRestaurant(id: $id, input: $input) { id } }`,
        { id, input },
        token,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    };
    const filter = { search: "oven", near: { ...CENTRE, radiusKm: 5 } };
    // ids[0]: Italian, "$", Family and Terrace; ids[1]: Japanese, "$$". A price range alone first
    // (no word of the document changes with it).
    await update(ids[0]!, { priceRange: ["$$$"] });
    expect(asMap((await faceted(filter)).facets.priceRanges)).toEqual({ $: 14, $$: 15, $$$: 1 });
    await update(ids[0]!, { cuisines: ["Korean"], categories: ["Family"] });
    await update(ids[1]!, { description: "no oven here", title: "Grill 1" });
    const found = await faceted(filter);
    // ids[1] still matches by its description's "oven".
    expect(found.totalCount).toBe(RESTAURANTS);
    expect(asMap(found.facets.cuisines)).toEqual({ Italian: 9, Japanese: 10, French: 10, Korean: 1 });
    expect(asMap(found.facets.priceRanges)).toEqual({ $: 14, $$: 15, $$$: 1 });
    expect(asMap(found.facets.categories)).toEqual({ Family: 30, Terrace: 5 });
    await update(ids[1]!, { description: "a grill" });
    const after = await faceted(filter);
    expect(after.totalCount).toBe(RESTAURANTS - 1);
    expect(asMap(after.facets.cuisines)).toEqual({ Italian: 9, Japanese: 9, French: 10, Korean: 1 });
    expect(asMap(after.facets.priceRanges)).toEqual({ $: 14, $$: 14, $$$: 1 });
  });
});
