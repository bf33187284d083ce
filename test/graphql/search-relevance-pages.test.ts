// Pages by relevance when the words are the only condition (issue 48): the page is cut from the
// ranked keys before any row is read (src/db/search/sql.ts pageOfKeys), where a search with
// another condition tests every ranked row first. Both must give the same pages, in the same order,
// within the rank window and past it, whatever the page size and offset.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let token: string;
/** The ids made, by catalogue, in the order made (the order of the index's keys). */
const made: Record<string, string[]> = { restaurants: [], groceries: [] };

const RESTAURANTS = `query($filter: RestaurantFilter, $first: Int, $after: String, $offset: Int) {
  restaurants(filter: $filter, first: $first, after: $after, offset: $offset) {
    totalCount nodes { id } pageInfo { hasNextPage endCursor } } }`;
const GROCERIES = `query($filter: GroceryFilter, $first: Int, $after: String, $offset: Int) {
  groceries(filter: $filter, first: $first, after: $after, offset: $offset) {
    totalCount nodes { id } pageInfo { hasNextPage endCursor } } }`;

type Catalogue = { query: string; field: "restaurants" | "groceries"; alone: object; tested: object };
const CATALOGUES: Catalogue[] = [
  // Every restaurant made here takes no reservations, so the flag keeps every match: the same
  // matches, read the way a search with another condition is.
  {
    query: RESTAURANTS,
    field: "restaurants",
    alone: { search: "saffron" },
    tested: { search: "saffron", acceptsReservations: false },
  },
  {
    query: GROCERIES,
    field: "groceries",
    alone: { search: "saffron" },
    tested: { search: "saffron", category: "spices" },
  },
];

async function page(c: Catalogue, filter: object, window: { first: number; after?: string; offset?: number }) {
  const r = await s.graphql(c.query, { filter, ...window }, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data[c.field] as {
    totalCount: number;
    nodes: { id: string }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

/** Every id, `first` at a time, following the cursors. */
async function readAll(c: Catalogue, filter: object, first: number) {
  const ids: string[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 40; pages++) {
    const p = await page(c, filter, { first, after });
    ids.push(...p.nodes.map((n) => n.id));
    if (!p.pageInfo.hasNextPage) return ids;
    after = p.pageInfo.endCursor ?? undefined;
  }
  throw new Error("more pages than the matches");
}

beforeAll(async () => {
  // A rank window of 5: the matches are ranked, then more follow unranked, as past 2,000 by default.
  s = await startServer({ SEARCH_RANK_WINDOW: "5" });
  token = (await s.signUp("ranker")).token;
  // The word in the title (ranked first), in a list or in the description, some titles alike (ties).
  const where = (i: number) =>
    i % 3 === 0
      ? { title: `Saffron House ${i % 2}` }
      : i % 3 === 1
        ? { title: `Kitchen ${i}`, description: `A pinch of saffron, ${"and more ".repeat(i)}` }
        : { title: `Table ${i}`, description: "Saffron rice" };
  for (let i = 0; i < 13; i++) {
    const r = await s.graphql(
      `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`,
      { input: { ...where(i), acceptsReservations: false } },
      token,
    );
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    made.restaurants.push(r.data.createRestaurant.id);
    const g = await s.graphql(
      `mutation($input: CreateGroceryInput!) { createGrocery(input: $input) { id } }`,
      { input: { ...where(i), categories: ["Spices"] } },
      token,
    );
    expect(g.errors, JSON.stringify(g.errors)).toBeUndefined();
    made.groceries.push(g.data.createGrocery.id);
  }
  // Matches of neither search.
  await s.graphql(
    `mutation($input: CreateGroceryInput!) { createGrocery(input: $input) { id } }`,
    { input: { title: "Pepper", categories: ["Spices"] } },
    token,
  );
});
afterAll(async () => s?.close());

describe.each(CATALOGUES)("$field by relevance, words alone", (c) => {
  it("gives the pages a search with another condition gives, in order, whatever the page size", async () => {
    const tested = await readAll(c, c.tested, 50);
    expect(tested).toHaveLength(13);
    expect(await readAll(c, c.alone, 50)).toEqual(tested);
    for (const first of [1, 2, 4, 5, 6]) expect(await readAll(c, c.alone, first), `first: ${first}`).toEqual(tested);
    // Of the 5 ranked (the first made), the two with the word in their title come first.
    const best = await page(c, c.alone, { first: 2 });
    expect(best.totalCount).toBe(13);
    expect(new Set(best.nodes.map((n) => n.id))).toEqual(new Set([made[c.field][0], made[c.field][3]]));
  });

  it("cuts pages at any offset, within the rank window, across it and past the end", async () => {
    const tested = await readAll(c, c.tested, 50);
    for (const offset of [0, 1, 3, 4, 5, 6, 12, 13, 20]) {
      const alone = await page(c, c.alone, { first: 3, offset });
      expect(
        alone.nodes.map((n) => n.id),
        `offset ${offset}`,
      ).toEqual(tested.slice(offset, offset + 3));
      expect(alone.pageInfo.hasNextPage, `offset ${offset}`).toBe(offset + 3 < 13);
    }
  });
});

// PostgreSQL counts a relevance page's matches in the page's own statement when every ranked
// document is a match (words alone, or words within a circle: its window is then the first matches
// within the circle); SQLite counts them beside. Either way the total is the one the count up to
// the exact limit gives: exact within it, estimated past it, whichever page is asked.
describe("the total of a relevance page, and pages within a circle past the rank window", () => {
  let t: TestServer;
  let owner: string;
  const centre = { latitude: 38.72, longitude: -9.14 };
  const TOTALS = `query($filter: RestaurantFilter, $first: Int, $offset: Int) {
    restaurants(filter: $filter, first: $first, offset: $offset) { totalCount totalCountIsEstimate nodes { id } pageInfo { hasNextPage } } }`;

  beforeAll(async () => {
    // A window of 6, larger than the exact limit of 3.
    t = await startServer({ SEARCH_RANK_WINDOW: "6", SEARCH_EXACT_COUNT_LIMIT: "3" });
    owner = (await t.signUp("window")).token;
    // 13 with the word: 10 within 1 km of the centre, 3 far away; and 2 with a rarer word.
    for (let i = 0; i < 15; i++) {
      const geo =
        i < 10
          ? { latitude: centre.latitude + i * 0.0005, longitude: centre.longitude }
          : { latitude: 41.15, longitude: -8.61 };
      const title = i < 13 ? `Clove ${i % 2 ? "House" : "Table"} ${i}` : `Mace Stall ${i}`;
      const r = await t.graphql(
        `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`,
        {
          input: {
            title,
            description: i < 13 && i % 3 ? "clove and more" : "",
            acceptsReservations: false,
            address: { city: "Lisbon", geo },
          },
        },
        owner,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    }
  });
  afterAll(async () => t?.close());

  async function totals(filter: object, window: { first: number; offset?: number } = { first: 2 }) {
    const r = await t.graphql(TOTALS, { filter, ...window }, owner);
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    return r.data.restaurants as {
      totalCount: number;
      totalCountIsEstimate: boolean;
      nodes: { id: string }[];
      pageInfo: { hasNextPage: boolean };
    };
  }

  it("is exact within the limit and estimated past it, on every page, the one past the end included", async () => {
    const near = { ...centre, radiusKm: 1 };
    for (const [filter, count, estimate] of [
      [{ search: "mace" }, 2, false],
      [{ search: "clove" }, 13, true],
      [{ search: "clove", near }, 10, true],
      [{ search: "mace", near }, 0, false],
    ] as const) {
      for (const offset of [0, 5, 12, 20]) {
        const page = await totals(filter, { first: 2, offset });
        // The sample holds every row of so small a catalogue: the estimate is the count.
        expect([page.totalCount, page.totalCountIsEstimate], `${JSON.stringify(filter)} from ${offset}`).toEqual([
          count,
          estimate,
        ]);
      }
    }
  });

  it("pages the matches within a circle across the window as a search with another condition does", async () => {
    const near = { ...centre, radiusKm: 1 };
    const all = async (filter: object, first: number) => {
      const ids: string[] = [];
      for (let offset = 0; offset < 12; offset += first) {
        const page = await totals(filter, { first, offset });
        ids.push(...page.nodes.map((n) => n.id));
        expect(page.pageInfo.hasNextPage, `${first} from ${offset}`).toBe(offset + first < 10);
      }
      return ids;
    };
    const tested = await all({ search: "clove", near, acceptsReservations: false }, 10);
    expect(tested).toHaveLength(10);
    for (const first of [1, 3, 4, 6, 7])
      expect(await all({ search: "clove", near }, first), `first: ${first}`).toEqual(tested);
  });
});
