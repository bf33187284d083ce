// A page walked in an order's index for lists, a city and a rating is planned alike for every
// value, so PostgreSQL plans it once per search connection (a generic plan); a search whose plan
// depends on its values (words, a circle) is planned for its values every time (src/db/postgres/driver.ts).
// One search connection (DB_POOL_SIZE 2: half for searches), so pg_prepared_statements, read on
// it, shows how the server's own statements were planned. PostgreSQL only: SQLite prepares every
// statement once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../src/db/prisma.ts";
import { testProvider } from "../helpers/database.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const SEARCH = `query($f: RestaurantFilter, $sort: RestaurantSort) { restaurants(filter: $f, sort: $sort, first: 3) { nodes { id title } } }`;

type Planned = { statement: string; generic_plans: number; custom_plans: number };

describe.skipIf(testProvider() !== "postgres")("search statements planned once or for their values", () => {
  let s: TestServer;
  let token: string;

  /** How the search connection planned each statement containing `part`. */
  const plansOf = async (part: string) => {
    const { names, rows } = await s.db.readSearch(
      Prisma.sql`SELECT "statement", CAST("generic_plans" AS INTEGER) AS "generic_plans", CAST("custom_plans" AS INTEGER) AS "custom_plans" FROM pg_prepared_statements`,
    );
    const all = rows.map((row) => Object.fromEntries(names.map((name, i) => [name, row[i]])) as Planned);
    return all.filter((p) => p.statement.includes(part));
  };
  const search = async (variables: Record<string, unknown>) => {
    const r = await s.graphql(SEARCH, variables, token);
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    return r.data.restaurants.nodes as { id: string; title: string }[];
  };

  beforeAll(async () => {
    s = await startServer({ DB_POOL_SIZE: "2", SEARCH_PLAN_COUNTS_MAX_AGE: "0" });
    token = (await s.signUp("plans")).token;
    for (const [i, cuisine] of ["Tapas", "Tapas", "Sushi", "Tapas", "Sushi"].entries()) {
      const r = await s.graphql(
        `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`,
        {
          input: {
            title: `Casa ${cuisine} ${i}`,
            cuisines: [cuisine],
            address: { city: "Porto", geo: { latitude: 41.15, longitude: -8.61 } },
          },
        },
        token,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    }
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it("plans a city's page by rating once for every cuisine, and a words search for each", async () => {
    for (const cuisine of ["tapas", "sushi", "tapas"]) {
      const nodes = await search({ f: { cuisine, city: "Porto" }, sort: "RATING" });
      expect(nodes.length).toBeGreaterThan(0);
      expect(nodes.every((n) => n.title.toLowerCase().includes(cuisine))).toBe(true);
    }
    const walked = await plansOf(`ORDER BY "Restaurant"."ratingAvg" DESC`);
    expect(walked.length, JSON.stringify(walked)).toBeGreaterThan(0);
    for (const p of walked) expect(p, p.statement).toMatchObject({ custom_plans: 0 });
    expect(walked.reduce((n, p) => n + p.generic_plans, 0)).toBeGreaterThanOrEqual(3);

    for (const words of ["casa tapas", "casa sushi"]) await search({ f: { search: words }, sort: "RELEVANCE" });
    const ranked = await plansOf("ts_rank");
    expect(ranked.length, JSON.stringify(ranked)).toBeGreaterThan(0);
    for (const p of ranked) expect(p, p.statement).toMatchObject({ generic_plans: 0 });
  });
});
