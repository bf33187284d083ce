// The SQL text of the hottest reads, committed beside this file as reviewed snapshots (one per
// database), as PostGraphile does with its plans: a change in what is sent to the database —
// a new statement, a column read for nothing, a lost join — shows up in review as a diff of
// hot-sql/*.sql, not only as a changed count. Update them with `npx vitest run -u` and read the diff.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { testProvider } from "../helpers/database.ts";
import { RESTAURANT_DETAIL } from "../../src/rest/shapes/restaurant.ts";

let s: TestServer;
let token: string;
let restaurantId: string;

const BY_ID = `query($id: ID!) { restaurant(id: $id) { id title rating owner { username }
  latestComment { title rating author { username } } } }`;
// The REST detail's document (GET /restaurants/:id): its lists, owner, latest comment and both
// users' ratings in the restaurant's one statement.
const DETAIL = `query($id: ID!) { restaurant(id: $id) { ...LegacyRestaurantDetail } } ${RESTAURANT_DETAIL}`;
// A page of a restaurant's comments with their authors and total: the restaurant, then one statement.
const COMMENT_PAGE = `query($id: ID!) { restaurant(id: $id) { id comments(first: 20) {
  totalCount pageInfo { hasNextPage } nodes { id title rating author { username } } } } }`;
const PAGE_OF_50 = `{ restaurants(first: 50) { totalCount pageInfo { hasNextPage endCursor }
  nodes { id title rating owner { username } } } }`;
const SEARCH = `{ restaurants(first: 20, filter: { text: "place" }, sort: RATING) { nodes { id title rating } } }`;
// Words, near and open now at once, with facets: the vocabulary probe for a misspelt word
// (PostgreSQL: then the tsquery's text, accents removed once), the ranked page, then one statement
// for both the total and the facets (they read the same rows).
const FIND = `{ restaurants(first: 20, filter: { search: "plaec", near: { latitude: 38.72, longitude: -9.14, radiusKm: 3 }, openAt: "2026-11-27T20:00:00Z" }) {
  totalCount facets { exact cuisines { value count } } nodes { id title distanceKm } } }`;

// The bench's search against PostGraphile: on PostgreSQL the total is counted over the matches as
// the page reads them (COUNT(*) OVER ()).
const CUISINE_IN_CITY = `{ restaurants(filter: { cuisine: "tapas", city: "porto" }, sort: RATING, first: 20) {
  totalCount nodes { id title rating owner { username } } } }`;

// Words alone, by relevance, with the total: the page is cut from the ranked keys, and only its
// rows are read (issue 48: every ranked match's row was read before the cut).
const GROCERY_WORDS = `{ groceries(first: 20, filter: { search: "place oil" }) { totalCount nodes { id title } } }`;

beforeAll(async () => {
  s = await startServer();
  const owner = await s.signUp("owner");
  token = owner.token;
  for (let i = 0; i < 3; i++) {
    const r = await s.graphql(
      `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`,
      { input: { title: `Place ${i}` } },
      token,
    );
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    restaurantId = r.data.createRestaurant.id;
  }
  const g = await s.graphql(
    `mutation($input: CreateGroceryInput!) { createGrocery(input: $input) { id } }`,
    { input: { title: "Place olive oil" } },
    token,
  );
  expect(g.errors, JSON.stringify(g.errors)).toBeUndefined();
  const c = await s.graphql(
    `mutation($id: ID!) { addComment(restaurantId: $id, input: { title: "Good", body: "Nice", rating: 4 }) { id } }`,
    { id: restaurantId },
    token,
  );
  expect(c.errors, JSON.stringify(c.errors)).toBeUndefined();
});
afterAll(async () => s?.close());

/** The statements one request sent, after a first run that warmed the session cache. */
async function statementsOf(query: string, variables?: Record<string, unknown>, server = s, bearer = token) {
  await server.graphql(query, variables, bearer);
  server.sql.length = 0;
  const r = await server.graphql(query, variables, bearer);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  // Sorted: statements sent at once (a page and its count, on PostgreSQL's pool) arrive in any order.
  return `${server.sql
    .map((q) => q.replace(/\s+/g, " ").trim())
    .sort()
    .join(";\n")};\n`;
}

describe(`hot reads send the reviewed SQL (${testProvider()})`, () => {
  const file = (name: string) => `./hot-sql/${name}.${testProvider()}.sql`;

  it("restaurant by id with owner, rating and latest comment with its author", async () => {
    await expect(await statementsOf(BY_ID, { id: restaurantId })).toMatchFileSnapshot(file("restaurant-by-id"));
  });

  it("the REST detail: lists, owner, latest comment with its author, ratings", async () => {
    await expect(await statementsOf(DETAIL, { id: restaurantId })).toMatchFileSnapshot(file("detail"));
  });

  it("a page of a restaurant's comments with their authors and total", async () => {
    await expect(await statementsOf(COMMENT_PAGE, { id: restaurantId })).toMatchFileSnapshot(file("comment-page"));
  });

  it("a page of 50 restaurants with owner, totalCount and pageInfo", async () => {
    await expect(await statementsOf(PAGE_OF_50)).toMatchFileSnapshot(file("page-of-50"));
  });

  it("a search by title sorted by rating", async () => {
    await expect(await statementsOf(SEARCH)).toMatchFileSnapshot(file("search"));
  });

  it("a search by words near a point, open at an instant, with its total", async () => {
    await expect(await statementsOf(FIND)).toMatchFileSnapshot(file("find"));
  });

  it("groceries by words alone, by relevance, with the total", async () => {
    await expect(await statementsOf(GROCERY_WORDS)).toMatchFileSnapshot(file("grocery-words"));
  });

  // Last: its restaurants are the only ones with a city and a cuisine.
  it("a cuisine in a city by rating, with owners and the total", async () => {
    for (const title of ["Tasca", "Taberna"]) {
      const r = await s.graphql(
        `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`,
        { input: { title, cuisines: ["Tapas"], address: { city: "Porto" } } },
        token,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    }
    await expect(await statementsOf(CUISINE_IN_CITY)).toMatchFileSnapshot(file("cuisine-in-city"));
  });
});

// The estimate of a total led by a list (search/totals.ts leadSample): the sample is read from the
// lead's rows (two cuisines, each restaurant under the first it holds), not the catalogue's; but
// a lead whose index entries would cost more than the catalogue's sample (a price every restaurant
// has) leaves the catalogue's sample.
describe(`estimated totals send the reviewed SQL (${testProvider()})`, () => {
  const file = (name: string) => `./hot-sql/${name}.${testProvider()}.sql`;
  let led: TestServer;
  let ledToken: string;

  beforeAll(async () => {
    // The counts per value and the estimates read by every search (none reused): the statements
    // do not hang on timing.
    led = await startServer({
      SEARCH_EXACT_COUNT_LIMIT: "20",
      SEARCH_SAMPLE_ROWS: "1000",
      SEARCH_PLAN_COUNTS_MAX_AGE: "0",
      SEARCH_ESTIMATES_MAX_AGE: "0",
    });
    ledToken = await ledCatalogue(led);
  });
  afterAll(async () => led?.close());

  async function estimated(filter: string) {
    const query = `{ restaurants(sort: RATING, filter: ${filter}) { totalCount totalCountIsEstimate nodes { id title } } }`;
    const r = await led.graphql(query, undefined, ledToken);
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    expect(r.data.restaurants.totalCountIsEstimate).toBe(true);
    return statementsOf(query, undefined, led, ledToken);
  }

  it("two cuisines, a minimum rating and a price, by rating: sampled from the cuisines' rows", async () => {
    await expect(
      await estimated(`{ cuisines: { anyOf: ["italian", "japanese"] }, minRating: 4, priceRange: ["$$"] }`),
    ).toMatchFileSnapshot(file("led-estimate"));
  });

  it("a price every restaurant has and a minimum rating: sampled from the catalogue", async () => {
    await expect(await estimated(`{ minRating: 4, priceRange: ["$$"] }`)).toMatchFileSnapshot(
      file("wide-lead-estimate"),
    );
  });
});

/** 5,000 restaurants priced $$ and rated 3 to 5; every 10th Italian, every 10th Japanese, every 20th both. */
async function ledCatalogue(led: TestServer): Promise<string> {
  const owner = await led.signUp("led");
  await led.db.prisma.$executeRawUnsafe(`INSERT INTO "Restaurant" ("id", "title", "titleSearch", "ownerId",
      "ratingSum", "ratingCount", "ratingAvg", "createdAt", "updatedAt")
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 4999)
    SELECT 'led-' || n.i, 'Led ' || n.i, 'led ' || n.i, '${owner.id}', 3 + n.i % 3, 1, 3 + n.i % 3, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM n`);
  const kind = (k: string) => (testProvider() === "postgres" ? `CAST('${k}' AS "RestaurantTagKind")` : `'${k}'`);
  const tags: [string, number, string, string][] = [
    ["PRICE_RANGE", 0, "$$", "TRUE"],
    ["CUISINE", 1, "Italian", "i % 10 = 0"],
    ["CUISINE", 2, "Japanese", "i % 10 = 1 OR i % 20 = 0"],
  ];
  for (const [k, position, value, when] of tags)
    await led.db.prisma
      .$executeRawUnsafe(`INSERT INTO "RestaurantTag" ("restaurantId", "kind", "position", "value", "valueKey")
      SELECT "id", ${kind(k)}, ${position}, '${value}', '${value.toLowerCase()}'
      FROM (SELECT "id", CAST(SUBSTR("id", 5) AS INTEGER) AS i FROM "Restaurant" WHERE "id" LIKE 'led-%') r WHERE ${when}`);
  // PostgreSQL's catalogue sample sizes its share from the planner's row count: counted now, not
  // whenever autovacuum gets to it.
  if (testProvider() === "postgres") await led.db.prisma.$executeRawUnsafe(`ANALYZE`);
  return owner.token;
}
