// A sample's share is taken from the catalogue's size (SQLite: its last key; PostgreSQL: the
// table's estimated rows), read once for the searches within SEARCH_PLAN_COUNTS_MAX_AGE rather than
// by a statement of its own in every sampled search.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const TOTAL = `query($f: RestaurantFilter) { restaurants(filter: $f, first: 2) { totalCount totalCountIsEstimate } }`;
/** The statement that reads a catalogue's size for its sample, on either database. */
const SIZE_READ = /MAX\("rowid"\)|pg_class/;

describe("the size a sample's share is taken from", () => {
  let s: TestServer;
  let token: string;
  let sizeReads = 0;

  beforeAll(async () => {
    // Past 3 matches a total is estimated; a rank window of 4 holds fewer than the 8 matches.
    s = await startServer({
      SEARCH_EXACT_COUNT_LIMIT: "3",
      SEARCH_RANK_WINDOW: "4",
      SEARCH_PLAN_COUNTS_MAX_AGE: "60s",
    });
    token = (await s.signUp("sample-size")).token;
    for (let i = 0; i < 8; i++) {
      const r = await s.graphql(
        `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`,
        { input: { title: `Sized Place ${i}` } },
        token,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    }
    const readSearch = s.db.readSearch;
    (s.db as { readSearch: typeof readSearch }).readSearch = (sql) => {
      if (SIZE_READ.test(sql.text)) sizeReads++;
      return readSearch(sql);
    };
  }, 60_000);
  afterAll(async () => s?.close());

  it("is read once for the searches within the counts' age", async () => {
    const reads = [];
    for (const search of ["sized", "place", "sized place"]) {
      const before = sizeReads;
      const r = await s.graphql(TOTAL, { f: { search } }, token);
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      expect([r.data.restaurants.totalCountIsEstimate, r.data.restaurants.totalCount], search).toEqual([true, 8]);
      reads.push(sizeReads - before);
    }
    expect(reads).toEqual([1, 0, 0]);
  });
});
