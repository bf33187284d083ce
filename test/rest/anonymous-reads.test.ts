// ANONYMOUS_READS (issue 14): clients of the original service read restaurants and groceries with
// no token at all. Off (the default), every operation needs a token, as the spec says. On, the
// reads declared @requireAuth(anonymousReads: true) (searches and gets of restaurants, their
// comments and groceries, on both faces) answer a request without any token as an anonymous viewer
// who sees what every signed-in user sees; everything else still answers 401, and so does a read
// with an invalid token.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anonymouslyReadable } from "../../src/graphql/policy/auth.ts";
import { buildSchema } from "../../src/graphql/schema.ts";
import { routes } from "../../src/rest/routes/index.ts";
import { compileRoutes } from "../../src/rest/execute.ts";
import { testRunner } from "../helpers/runner.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { databaseState, stateChanges } from "../hardening/database-state.ts";
import { expectError, get, sendJson, type Answer } from "./legacy.ts";

type Account = { token: string; id: string };
/** `other` commented; `stranger` has nothing to do with anything: what every user sees. */
type World = { restaurantId: string; groceryId: string; owner: Account; other: Account; stranger: Account };

/** A restaurant with a comment and a badge, and a grocery on its owner's shopping list. */
async function world(s: TestServer): Promise<World> {
  const owner = await s.signUp("owner");
  const other = await s.signUp("other");
  const stranger = await s.signUp("stranger");
  const restaurant = await sendJson(
    s,
    "POST",
    "/restaurants",
    { title: "Open Kitchen", url: "open-kitchen", address: { city: "Lyon" } },
    owner.token,
  );
  expect(restaurant.status, JSON.stringify(restaurant.body)).toBe(201);
  const restaurantId = restaurant.body._id as string;
  expect(
    (
      await sendJson(
        s,
        "PUT",
        `/restaurants/${restaurantId}/comments`,
        { title: "Good", body: "Very", rating: 4 },
        other.token,
      )
    ).status,
  ).toBe(201);
  const badge = await s.db.prisma.badge.create({ data: { name: `badge-${restaurantId}` } });
  await s.db.prisma.restaurantBadge.create({ data: { restaurantId, badgeId: badge.id } });
  const grocery = await sendJson(s, "POST", "/groceries", { title: "Open rice", categories: ["grain"] }, owner.token);
  expect(grocery.status, JSON.stringify(grocery.body)).toBe(201);
  const groceryId = grocery.body._id as string;
  expect((await sendJson(s, "PUT", `/groceries/${groceryId}`, { quantity: 2 }, owner.token)).status).toBe(201);
  return { restaurantId, groceryId, owner, other, stranger };
}

/** Every read a legacy client makes without a token. */
const READS = (w: World) => [
  "/restaurants",
  `/restaurants/${w.restaurantId}`,
  `/restaurants/${w.restaurantId}/comments`,
  "/groceries",
  `/groceries/${w.groceryId}`,
  "/v1/restaurants?q=open&limit=5",
  "/groceries?title=rice&categories=grain",
];

const USER = "id username firstName avatar role rating createdAt";
const RESTAURANT = `id title url owner { ${USER} } rating commentCount viewerCanEdit createdAt updatedAt
  badges { badge { id name cover } receivedAt }
  latestComment { id title author { ${USER} } restaurant { id viewerCanEdit } }
  comments(first: 5) { totalCount nodes { id rating author { ${USER} } } pageInfo { hasNextPage endCursor } }`;
const GROCERY = `id title cover coverUrl metricUnits categories owner { ${USER} } inMyShoppingList viewerCanEdit createdAt updatedAt`;

/** The GraphQL reads, selecting every field that depends on who asks. */
const QUERIES = (w: World) => [
  {
    name: "restaurant",
    query: `query($id: ID!) { restaurant(id: $id) { ${RESTAURANT} } }`,
    variables: { id: w.restaurantId },
  },
  { name: "restaurants", query: `{ restaurants(first: 5) { totalCount nodes { ${RESTAURANT} } } }`, variables: {} },
  { name: "grocery", query: `query($id: ID!) { grocery(id: $id) { ${GROCERY} } }`, variables: { id: w.groceryId } },
  { name: "groceries", query: `{ groceries(first: 5) { totalCount nodes { ${GROCERY} } } }`, variables: {} },
];

/** Writes and private reads, each with a valid request's body: without a token, always 401. */
const WRITES = (w: World): [string, string, Record<string, unknown>?][] => [
  ["POST", "/restaurants", { title: "Anonymous" }],
  ["PUT", `/restaurants/${w.restaurantId}`, { title: "Renamed" }],
  ["PUT", `/restaurants/${w.restaurantId}`, { reason_type: "spam" }],
  ["DELETE", `/restaurants/${w.restaurantId}`],
  ["PUT", `/restaurants/${w.restaurantId}/comments`, { title: "Anon", body: "x", rating: 1 }],
  ["PUT", "/restaurants/order", { restaurant_id: w.restaurantId, recipe: "Pho" }],
  ["POST", "/groceries", { title: "Anonymous" }],
  ["PATCH", "/groceries", { _id: w.groceryId, title: "Renamed" }],
  ["PUT", `/groceries/${w.groceryId}`, { quantity: 1 }],
  ["PUT", `/groceries/${w.groceryId}`, { reason_type: "spam" }],
  ["DELETE", `/groceries/${w.groceryId}`],
  ["DELETE", "/auth/token"],
  ["GET", "/signout"],
];

const GRAPHQL_WRITES = (w: World) => [
  `{ me { id } }`,
  `{ myShoppingList { totalCount } }`,
  `{ myOrders { totalCount } }`,
  `{ badges { id } }`,
  `{ user(id: "${w.owner.id}") { id } }`,
  `{ reports { totalCount } }`,
  `mutation { createRestaurant(input: { title: "Anonymous" }) { id } }`,
  `mutation { addComment(restaurantId: "${w.restaurantId}", input: { title: "a", body: "b", rating: 1 }) { id } }`,
  `mutation { addToShoppingList(groceryId: "${w.groceryId}") { quantity } }`,
  `mutation { logout }`,
];

async function expectWritesRefused(s: TestServer, w: World) {
  const before = await databaseState(s.db);
  for (const [method, path, body] of WRITES(w)) {
    expectError(await sendJson(s, method as "POST", path, body), 401, "UNAUTHENTICATED");
  }
  for (const query of GRAPHQL_WRITES(w)) {
    const r = await s.graphql(query);
    expect(r.errors?.[0]?.extensions?.code, `${query}: ${JSON.stringify(r.body)}`).toBe("UNAUTHENTICATED");
  }
  expect(stateChanges(before, await databaseState(s.db))).toEqual([]);
}

describe("the declaration", () => {
  it("opens exactly the searches and gets of restaurants and groceries, and the REST rows that only run them", () => {
    const schema = buildSchema();
    // node and nodes show each type by its own reader's rule (test/graphql/relay-nodes.test.ts).
    expect([...anonymouslyReadable(schema)].sort()).toEqual([
      "Query.groceries",
      "Query.grocery",
      "Query.node",
      "Query.nodes",
      "Query.restaurant",
      "Query.restaurants",
    ]);
    const open = compileRoutes(testRunner(schema), routes)
      .filter((r) => r.access === "anonymousReads")
      .map((r) => `${r.method} ${r.path}`);
    expect(open.sort()).toEqual([
      "GET /groceries",
      "GET /groceries/:grocery_id",
      "GET /restaurants",
      "GET /restaurants/:restaurant_id",
      "GET /restaurants/:restaurant_id/comments",
    ]);
  });
});

describe("ANONYMOUS_READS unset (the default): every operation needs a token", () => {
  let s: TestServer;
  let w: World;
  beforeAll(async () => {
    s = await startServer();
    w = await world(s);
  });
  afterAll(async () => s?.close());

  it("answers 401 to every REST read without a token", async () => {
    expect(s.config.legacy.anonymousReads).toBe(false);
    for (const path of READS(w)) expectError(await get(s, path), 401, "UNAUTHENTICATED");
  });

  it("answers UNAUTHENTICATED to every GraphQL read without a token", async () => {
    for (const { name, query, variables } of QUERIES(w)) {
      const r = await s.graphql(query, variables);
      expect(r.errors?.[0]?.extensions?.code, name).toBe("UNAUTHENTICATED");
      expect(r.data?.[name] ?? null).toBeNull();
    }
  });

  it("refuses writes without a token, changing nothing", async () => expectWritesRefused(s, w));

  it("documents a token as required on every read", async () => {
    const doc = (await (await s.fetch("/openapi.json")).json()) as any;
    expect(doc.paths["/restaurants"].get.security).toBeUndefined(); // the document's default: a token
  });
});

describe("ANONYMOUS_READS=true", () => {
  let s: TestServer;
  let w: World;
  beforeAll(async () => {
    s = await startServer({ ANONYMOUS_READS: "true" });
    w = await world(s);
  });
  afterAll(async () => s?.close());

  it("answers every REST read without a token, exactly as it answers a signed-in user", async () => {
    for (const path of READS(w)) {
      const anonymous: Answer = await get(s, path);
      expect(anonymous.status, `${path}: ${JSON.stringify(anonymous.body)}`).toBe(200);
      const signedIn = await get(s, path, w.stranger.token);
      expect(anonymous.body, path).toEqual(signedIn.body);
    }
    const detail = await get(s, `/restaurants/${w.restaurantId}`);
    expect(detail.body).toMatchObject({
      title: "Open Kitchen",
      url: "open-kitchen",
      comments: { comment: "Very", rating: 4 },
    });
    expect((await get(s, `/groceries/${w.groceryId}`)).body).toMatchObject({
      title: "Open rice",
      categories: ["grain"],
    });
  });

  it("answers 404 for a read of nothing, as to a signed-in user", async () => {
    expectError(await get(s, "/restaurants/no-such-restaurant"), 404, "NOT_FOUND");
    expectError(await get(s, "/groceries/no-such-grocery"), 404, "NOT_FOUND");
  });

  it("answers every GraphQL read as to a user who owns nothing, has nothing on their list and is not an admin", async () => {
    for (const { name, query, variables } of QUERIES(w)) {
      const r = await s.graphql(query, variables);
      expect(r.errors, `${name}: ${JSON.stringify(r.errors)}`).toBeUndefined();
      const signedIn = await s.graphql(query, variables, w.stranger.token);
      expect(r.data, name).toEqual(signedIn.data);
    }
    const restaurant = (await s.graphql(QUERIES(w)[0].query, { id: w.restaurantId })).data.restaurant;
    expect(restaurant).toMatchObject({ viewerCanEdit: false, owner: { id: w.owner.id, role: null }, commentCount: 1 });
    expect(restaurant.comments.nodes[0].author).toMatchObject({ id: w.other.id, role: null });
    expect(restaurant.badges).toHaveLength(1);
    const grocery = (await s.graphql(QUERIES(w)[2].query, { id: w.groceryId })).data.grocery;
    expect(grocery).toMatchObject({ inMyShoppingList: 0, viewerCanEdit: false, owner: { role: null } });
    // Its owner, signed in, still sees their own view.
    const own = (await s.graphql(QUERIES(w)[2].query, { id: w.groceryId }, w.owner.token)).data.grocery;
    expect(own).toMatchObject({ inMyShoppingList: 2, viewerCanEdit: true, owner: { role: "USER" } });
  });

  it("still answers 401 to a read with an invalid or revoked token, so the client signs in again", async () => {
    expectError(await get(s, "/restaurants", "made-up-token"), 401, "UNAUTHENTICATED");
    expectError(await get(s, `/groceries/${w.groceryId}?access_token=made-up-token`), 401, "UNAUTHENTICATED");
    const r = await s.graphql(`{ groceries { totalCount } }`, {}, "made-up-token");
    expect(r.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("still refuses every write and private read without a token, changing nothing", async () =>
    expectWritesRefused(s, w));

  it("documents the token as optional on those reads only", async () => {
    const doc = (await (await s.fetch("/openapi.json")).json()) as any;
    const optional = [{ bearer: [] }, { accessTokenQuery: [] }, {}];
    for (const path of [
      "/restaurants",
      "/restaurants/{restaurant_id}",
      "/restaurants/{restaurant_id}/comments",
      "/groceries",
      "/groceries/{grocery_id}",
    ]) {
      expect(doc.paths[path].get.security, path).toEqual(optional);
    }
    expect(doc.paths["/restaurants"].post.security).toBeUndefined();
    expect(doc.paths["/groceries/{grocery_id}"].put.security).toBeUndefined();
  });
});
