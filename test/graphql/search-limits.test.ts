// The search limits are settings (src/config.ts, docs/limits.md "Searches"): each reaches the
// searches of a running server, and a bad value stops start-up naming the variable.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const SEARCH = `query($filter: RestaurantFilter) { restaurants(filter: $filter, first: 2) {
  totalCount totalCountIsEstimate facets { exact cuisines { value count } } nodes { id } } }`;
const WORDS = { search: "limitword" };

describe("search limits set by the operator", () => {
  let small: TestServer;
  let usual: TestServer;
  let token: string;

  beforeAll(async () => {
    // One database, two servers: the defaults, and small limits.
    usual = await startServer();
    // A rank window smaller than the 8 matches: one that held them all would count them exactly (PostgreSQL).
    small = await startServer(
      { SEARCH_EXACT_COUNT_LIMIT: "3", SEARCH_RANK_WINDOW: "4", SEARCH_PLAN_COUNTS_MAX_AGE: "0" },
      { alongside: usual },
    );
    const owner = await usual.signUp("limits");
    token = owner.token;
    for (let i = 0; i < 8; i++) {
      const r = await usual.graphql(
        `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`,
        { input: { title: `Limitword ${i}`, cuisines: ["italian"] } },
        owner.token,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    }
  });
  afterAll(async () => {
    await small?.close();
    await usual?.close();
  });

  it("counts matches one by one up to SEARCH_EXACT_COUNT_LIMIT, then estimates and says so", async () => {
    const exact = await usual.graphql(SEARCH, { filter: WORDS }, token);
    expect(exact.errors).toBeUndefined();
    expect(exact.data.restaurants).toMatchObject({ totalCount: 8, totalCountIsEstimate: false });
    expect(exact.data.restaurants.facets.exact).toBe(true);
    const estimated = await small.graphql(SEARCH, { filter: WORDS }, token);
    expect(estimated.errors).toBeUndefined();
    expect(estimated.data.restaurants.totalCountIsEstimate).toBe(true);
    expect(estimated.data.restaurants.totalCount).toBeGreaterThan(3);
    expect(estimated.data.restaurants.facets.exact).toBe(false);
  });

  it("reads the counts kept per value again for every search with SEARCH_PLAN_COUNTS_MAX_AGE=0", async () => {
    const countReads = async (s: TestServer) => {
      s.sql.length = 0;
      for (let i = 0; i < 3; i++) await s.graphql(SEARCH, { filter: { cuisine: "italian" } }, token);
      return s.sql.filter((q) => /FROM "RestaurantFacetCount"\s+WHERE \("kind" = /.test(q)).length;
    };
    expect(await countReads(usual)).toBeLessThanOrEqual(1); // reused for 5 s
    expect(await countReads(small)).toBe(3);
  });

  it("refuses a bad value at start-up, naming the variable", () => {
    for (const [name, value] of [
      ["SEARCH_RANK_WINDOW", "0"],
      ["SEARCH_EXACT_COUNT_LIMIT", "many"],
      ["SEARCH_SAMPLE_ROWS", "5"],
      ["SEARCH_WALK_BUDGET", "1.5"],
      ["SEARCH_SHALLOW_PAGE_ROWS", "-1"],
      ["SEARCH_PLAN_COUNTS_MAX_AGE", "soon"],
      ["SEARCH_ESTIMATES_MAX_AGE", "61s"],
      ["SEARCH_ESTIMATES_MAX_AGE", "soon"],
    ]) {
      let error: unknown;
      try {
        loadConfig({ [name]: value });
      } catch (e) {
        error = e;
      }
      expect(error, name).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join("\n")).toContain(`${name}=`);
    }
    expect(loadConfig({ SEARCH_RANK_WINDOW: "500" }).database.search?.rankWindow).toBe(500);
    expect(loadConfig({ SEARCH_ESTIMATES_MAX_AGE: "1m" }).database.search?.estimatesMaxAgeMs).toBe(60_000);
  });
});
