// The counts kept per list value and city (migration 20261125200000_search_scale) answer the
// whole catalogue's facets and the total of one value without counting rows. They are kept by
// triggers: after every kind of write they must equal a real count, which the API gives for the
// same rows split in two by a flag no stored count knows (acceptsReservations true / false: counted
// one by one, exact within the limit).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testProvider } from "../helpers/database.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let token: string;
let ownerId: string;

const LISTS = ["cuisines", "categories", "priceRanges", "cities"] as const;
const FACETS = `query($filter: RestaurantFilter) { restaurants(filter: $filter, first: 1) {
  totalCount totalCountIsEstimate facets { exact ${LISTS.map((l) => `${l} { value count }`).join(" ")} } } }`;

type Facets = Record<(typeof LISTS)[number], { value: string; count: number }[]> & { exact: boolean };
type Counts = { total: number; lists: Record<string, Record<string, number>> };

async function ok(query: string, variables: Record<string, unknown> = {}) {
  const r = await s.graphql(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

async function facets(filter: Record<string, unknown>): Promise<Counts> {
  const { restaurants } = await ok(FACETS, { filter });
  expect(restaurants.totalCountIsEstimate).toBe(false);
  expect(restaurants.facets.exact).toBe(true);
  const f = restaurants.facets as Facets;
  // Keys as the filters read them (lower case): the spelling shown may differ between the halves.
  const lists = Object.fromEntries(
    LISTS.map((l) => [l, Object.fromEntries(f[l].map((v) => [v.value.toLowerCase(), v.count]))]),
  );
  return { total: restaurants.totalCount, lists };
}

/** The same rows counted one by one: the two halves of the catalogue, summed. */
async function counted(filter: Record<string, unknown> = {}): Promise<Counts> {
  const halves = [
    await facets({ ...filter, acceptsReservations: true }),
    await facets({ ...filter, acceptsReservations: false }),
  ];
  const lists: Record<string, Record<string, number>> = {};
  for (const l of LISTS) {
    lists[l] = {};
    for (const h of halves) for (const [k, n] of Object.entries(h.lists[l])) lists[l][k] = (lists[l][k] ?? 0) + n;
  }
  return { total: halves[0].total + halves[1].total, lists };
}

const totalOf = async (filter: Record<string, unknown>) => {
  const { restaurants } = await ok(FACETS, { filter });
  expect(restaurants.totalCountIsEstimate).toBe(false);
  return restaurants.totalCount as number;
};

/** Kept (no filter, one value) against counted, for the whole catalogue and each value it lists. */
async function expectKeptRight(expected?: Partial<Record<(typeof LISTS)[number], Record<string, number>>>) {
  const kept = await facets({});
  const real = await counted();
  expect(kept).toEqual(real);
  if (expected) for (const [list, values] of Object.entries(expected)) expect(kept.lists[list]).toEqual(values);
  for (const [key, n] of Object.entries(kept.lists.cuisines)) expect(await totalOf({ cuisine: key })).toBe(n);
  for (const [key, n] of Object.entries(kept.lists.categories)) expect(await totalOf({ category: key })).toBe(n);
  for (const [key, n] of Object.entries(kept.lists.cities)) expect(await totalOf({ city: key })).toBe(n);
  return kept;
}

const CREATE = `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateRestaurantInput!) { updateRestaurant(id: $id, input: $input) { id } }`;
const DELETE = `mutation($id: ID!) { deleteRestaurant(id: $id) }`;
const create = async (input: Record<string, unknown>) => (await ok(CREATE, { input })).createRestaurant.id as string;

beforeAll(async () => {
  s = await startServer();
  const user = await s.signUp("counter");
  token = user.token;
  ownerId = user.id;
});
afterAll(async () => s?.close());

describe("stored counts per list value and city", () => {
  it("start empty, then follow creations, list and city changes and deletions", async () => {
    const empty = await facets({});
    expect(empty.total).toBe(0);
    expect(empty.lists.cuisines).toEqual({});

    const a = await create({
      title: "A",
      cuisines: ["Italian", "Pizza"],
      categories: ["family"],
      priceRange: ["$$"],
      acceptsReservations: true,
      address: { city: "Lisbon" },
    });
    const b = await create({
      title: "B",
      cuisines: ["Italian"],
      categories: ["vegan", "family"],
      priceRange: ["$"],
      address: { city: "Lisbon" },
    });
    const c = await create({ title: "C", cuisines: ["italian", "Thai"], address: { city: "Porto" } });
    await create({ title: "D (no lists, no city)" });
    await expectKeptRight({
      cuisines: { italian: 3, pizza: 1, thai: 1 },
      categories: { family: 2, vegan: 1 },
      priceRanges: { $$: 1, $: 1 },
      cities: { lisbon: 2, porto: 1 },
    });
    expect((await facets({})).total).toBe(4);

    // Lists replaced, a city changed, a city given, a flag changed (counts must not move).
    await ok(UPDATE, {
      id: a,
      input: { cuisines: ["Thai"], categories: [], priceRange: ["$$$"], address: { city: "Porto" } },
    });
    await ok(UPDATE, { id: b, input: { acceptsReservations: true } });
    await ok(UPDATE, { id: c, input: { address: { city: "Braga" } } });
    await expectKeptRight({
      cuisines: { italian: 2, thai: 2 },
      categories: { family: 1, vegan: 1 },
      priceRanges: { $$$: 1, $: 1 },
      cities: { lisbon: 1, porto: 1, braga: 1 },
    });

    // A comment changes the rating (a write to the restaurant that moves no count).
    await ok(
      `mutation($id: ID!) { addComment(restaurantId: $id, input: { title: "Fine", body: "ok", rating: 4 }) { id } }`,
      { id: b },
    );
    // Deleted: its values go, and a value nobody has any more leaves the facets.
    await ok(DELETE, { id: c });
    await expectKeptRight({ cuisines: { italian: 1, thai: 1 }, cities: { lisbon: 1, porto: 1 } });
    await ok(DELETE, { id: b });
    await expectKeptRight({ cuisines: { thai: 1 }, categories: {}, priceRanges: { $$$: 1 }, cities: { porto: 1 } });
    expect(await totalOf({ cuisine: "italian" })).toBe(0);
  });

  it("follow writes of many rows in one statement, and stay exact past the counting limit", async () => {
    const before = await facets({});
    // 1,500 restaurants in one statement, then tags for a third of them in another.
    await s.db.prisma
      .$executeRawUnsafe(`INSERT INTO "Restaurant" ("id", "title", "titleSearch", "city", "citySearch", "ownerId", "createdAt", "updatedAt")
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
      SELECT 'kept-' || i, 'Kept ' || i, 'kept ' || i, 'Faro', 'faro', '${ownerId}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM n`);
    const cuisine = testProvider() === "postgres" ? `CAST('CUISINE' AS "RestaurantTagKind")` : `'CUISINE'`;
    await s.db.prisma
      .$executeRawUnsafe(`INSERT INTO "RestaurantTag" ("restaurantId", "kind", "position", "value", "valueKey")
      SELECT "id", ${cuisine}, 0, 'Greek', 'greek' FROM "Restaurant" WHERE "id" LIKE 'kept-%' AND CAST(SUBSTR("id", 6) AS INTEGER) % 3 = 0`);
    const all = await ok(FACETS, {});
    expect(all.restaurants.totalCount).toBe(before.total + 1500);
    expect(all.restaurants.totalCountIsEstimate).toBe(false);
    expect(all.restaurants.facets.exact).toBe(true);
    expect(await totalOf({ city: "faro" })).toBe(1500);
    expect(await totalOf({ cuisine: "greek" })).toBe(500);
    // The same 1,500 counted one by one: past the limit, so said to be an estimate.
    const countedFaro = await ok(FACETS, { filter: { city: "faro", acceptsReservations: false } });
    expect(countedFaro.restaurants.totalCountIsEstimate).toBe(true);
    expect(countedFaro.restaurants.totalCount).toBeGreaterThan(1000);
    expect(countedFaro.restaurants.facets.exact).toBe(false);
    // Tags renamed in one statement, then every new row deleted in one: back to where it was.
    await s.db.prisma.$executeRawUnsafe(
      `UPDATE "RestaurantTag" SET "value" = 'Cretan', "valueKey" = 'cretan' WHERE "restaurantId" LIKE 'kept-%'`,
    );
    expect(await totalOf({ cuisine: "greek" })).toBe(0);
    expect(await totalOf({ cuisine: "cretan" })).toBe(500);
    await s.db.prisma.$executeRawUnsafe(`DELETE FROM "RestaurantTag" WHERE "restaurantId" LIKE 'kept-%'`);
    await s.db.prisma.$executeRawUnsafe(`DELETE FROM "Restaurant" WHERE "id" LIKE 'kept-%'`);
    expect(await expectKeptRight()).toEqual(before);
  });
});

// A filtered search chose its plan from the stored counts read in a statement of its own every time;
// they are now reused for a few seconds (src/db/search/stored-counts.ts). Only the plan may use them:
// a total right after a write must count that write.
describe("the counts a search's plan is chosen by", () => {
  const FILTERED = `query($filter: RestaurantFilter) { restaurants(filter: $filter, sort: RATING, first: 5) { totalCount totalCountIsEstimate nodes { id } } }`;
  const planReads = () =>
    s.sql.filter((q) =>
      q.replace(/\s+/g, " ").startsWith(`SELECT "kind", "valueKey", "value", "n" FROM "RestaurantFacetCount"`),
    ).length;

  it("are read once while fresh, and a total is exact right after a write all the same", async () => {
    await create({ title: "Plan one", cuisines: ["Planning"], address: { city: "Plancity" } });
    const both = { cuisine: "planning", city: "plancity" };
    const one = { cuisine: "planning" };
    s.sql.length = 0;
    const first = (await ok(FILTERED, { filter: both })).restaurants;
    expect(planReads()).toBe(1);
    s.sql.length = 0;
    expect((await ok(FILTERED, { filter: both })).restaurants.totalCount).toBe(first.totalCount);
    expect(planReads()).toBe(0);
    const oneBefore = (await ok(FILTERED, { filter: one })).restaurants.totalCount;
    await create({ title: "Plan two", cuisines: ["Planning"], address: { city: "Plancity" } });
    const after = (await ok(FILTERED, { filter: both })).restaurants;
    expect(after.totalCountIsEstimate).toBe(false);
    expect(after.totalCount).toBe(first.totalCount + 1);
    expect((await ok(FILTERED, { filter: one })).restaurants.totalCount).toBe(oneBefore + 1);
  });
});

// PostgreSQL counts matches the stored counts bound within the limit in the page statement's own
// pass (src/db/postgres/search/totals.ts countsInPagePass) instead of a count that reads them again.
describe("a total of few matches", () => {
  const PAGE = `query($filter: RestaurantFilter, $first: Int, $after: String) { restaurants(filter: $filter, sort: RATING, first: $first, after: $after) {
    totalCount totalCountIsEstimate pageInfo { endCursor } nodes { id } } }`;

  it("is exact on every page, past the last one too, and read in the page's own pass on PostgreSQL", async () => {
    for (let i = 0; i < 3; i++)
      await create({ title: `Pass ${i}`, cuisines: ["Passcuisine"], address: { city: "Passcity" } });
    await create({ title: "Pass elsewhere", cuisines: ["Passcuisine"], address: { city: "Othercity" } });
    const filter = { cuisine: "passcuisine", city: "passcity" };
    await ok(PAGE, { filter, first: 2 }); // the plan's counts, read once
    s.sql.length = 0;
    const first = (await ok(PAGE, { filter, first: 2 })).restaurants;
    expect(first.totalCount).toBe(3);
    expect(first.totalCountIsEstimate).toBe(false);
    expect(first.nodes).toHaveLength(2);
    if (testProvider() === "postgres") {
      expect(s.sql.some((q) => q.includes("COUNT(*) OVER ()"))).toBe(true);
      expect(s.sql.some((q) => q.includes("LIMIT 1001"))).toBe(false);
    }
    const second = (await ok(PAGE, { filter, first: 2, after: first.pageInfo.endCursor })).restaurants;
    expect(second.nodes).toHaveLength(1);
    expect(second.totalCount).toBe(3);
    const past = (await ok(PAGE, { filter, first: 2, after: second.pageInfo.endCursor })).restaurants;
    expect(past.nodes).toHaveLength(0);
    expect(past.totalCount).toBe(3);
  });
});
