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
