// A search's estimated total and facets are given again to the same search for a few seconds
// (SEARCH_ESTIMATES_MAX_AGE; src/db/search/recent-estimates.ts), without the count and the sample;
// an exact total is counted by every search. Three servers on one database: one reusing estimates
// for a minute (so nothing here hangs on timing), one never (0), and one for 2 s, whose expired
// estimates are renewed beside the searches. Past 5 matches is an estimate.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testProvider } from "../helpers/database.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const HERE = { latitude: 41.15, longitude: -8.61 };
const ELSEWHERE = { latitude: 37.02, longitude: -7.93 };
const SEARCH = `query($f: RestaurantFilter, $sort: RestaurantSort) { restaurants(filter: $f, sort: $sort, first: 2) {
  totalCount totalCountIsEstimate facets { exact cuisines { value count } } nodes { id } } }`;
const near = (at: typeof HERE) => ({ near: { ...at, radiusKm: 5 } });

describe(`estimated totals and facets reused by the same search (${testProvider()})`, () => {
  let reusing: TestServer;
  let fresh: TestServer;
  let renewing: TestServer;
  let token: string;

  const add = async (title: string, at: typeof HERE) => {
    const r = await reusing.graphql(
      `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`,
      { input: { title, cuisines: ["Tapas"], address: { city: "Porto", geo: at } } },
      token,
    );
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  };
  const search = async (server: TestServer, at: typeof HERE, sort = "RATING") => {
    const r = await server.graphql(SEARCH, { f: near(at), sort }, token);
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    return r.data.restaurants;
  };
  /** The statements a search sent. */
  const statementsOf = async (server: TestServer, at: typeof HERE) => {
    server.sql.length = 0;
    const answer = await search(server, at);
    return { answer, sql: server.sql.map((q) => q.replace(/\s+/g, " ").trim()) };
  };

  beforeAll(async () => {
    const limits = { SEARCH_EXACT_COUNT_LIMIT: "5", SEARCH_PLAN_COUNTS_MAX_AGE: "0" };
    reusing = await startServer({ ...limits, SEARCH_ESTIMATES_MAX_AGE: "60s" });
    fresh = await startServer({ ...limits, SEARCH_ESTIMATES_MAX_AGE: "0" }, { alongside: reusing });
    renewing = await startServer({ ...limits, SEARCH_ESTIMATES_MAX_AGE: "2s" }, { alongside: reusing });
    token = (await reusing.signUp("estimates")).token;
    for (let i = 0; i < 12; i++) await add(`Tasca ${i}`, HERE);
    for (let i = 0; i < 3; i++) await add(`Marisqueira ${i}`, ELSEWHERE);
  }, 60_000);
  afterAll(async () => {
    await renewing?.close();
    await fresh?.close();
    await reusing?.close();
  });

  it("answers an estimate again without counting or sampling", async () => {
    const first = await search(reusing, HERE);
    expect(first).toMatchObject({ totalCountIsEstimate: true, facets: { exact: false } });
    expect(first.totalCount).toBeGreaterThan(5);
    await search(fresh, HERE); // its session read once, as the other's was
    const again = await statementsOf(reusing, HERE);
    const anew = await statementsOf(fresh, HERE);
    expect(again.answer).toEqual(first);
    expect(anew.answer).toMatchObject({ totalCountIsEstimate: true, facets: { exact: false } });
    // The page alone: every statement the reusing server sent, the other sent too, and more.
    expect(
      again.sql.every((q) => anew.sql.includes(q)),
      again.sql.join("\n"),
    ).toBe(true);
    expect(again.sql.length).toBeLessThan(anew.sql.length);
  });

  it("reuses nothing with SEARCH_ESTIMATES_MAX_AGE=0: the next search samples the catalogue as it is", async () => {
    const before = await search(fresh, HERE);
    await add("Tasca nova", HERE);
    const after = await search(fresh, HERE);
    // The whole circle is in the sample (few rows): the estimate follows the new row at once.
    expect(after.totalCount).toBe(before.totalCount + 1);
    // The reusing server gives its earlier estimate (a minute old at most) to the same search.
    expect((await search(reusing, HERE)).totalCount).toBe(before.totalCount);
  });

  it("counts an exact total anew for every search: a write is in the next total", async () => {
    // By distance, the total is counted beside the page (by rating, the page's statement carries it).
    for (const sort of ["DISTANCE", "RATING"])
      expect(await search(reusing, ELSEWHERE, sort)).toMatchObject({
        totalCount: 3,
        totalCountIsEstimate: false,
        facets: { exact: true },
      });
    await add("Marisqueira nova", ELSEWHERE);
    for (const sort of ["DISTANCE", "RATING"])
      expect(await search(reusing, ELSEWHERE, sort)).toMatchObject({ totalCount: 4, totalCountIsEstimate: false });
  });

  it("past the age, gives the old estimate once more and renews it beside the search", async () => {
    const before = await search(renewing, HERE);
    expect(before.totalCountIsEstimate).toBe(true);
    await add("Tasca renovada", HERE);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    // Expired: this search is not the one that waits for the count and the sample.
    expect((await search(renewing, HERE)).totalCount).toBe(before.totalCount);
    // The renewal, read beside it, is given to the next ones: the whole circle is in the sample.
    await expect
      .poll(async () => (await search(renewing, HERE)).totalCount, { timeout: 1_500 })
      .toBe(before.totalCount + 1);
  });
});
