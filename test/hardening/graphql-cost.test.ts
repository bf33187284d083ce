// The cost of an operation counts page sizes from variables and argument defaults, aliases and
// fragments, before anything runs, on /graphql and through the REST shim; and a hard ceiling on the
// objects one response may hold stops an execution the estimate let through.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isObjectType } from "graphql";
import { DEFAULT_PAGE_SIZE } from "../../src/domain/pagination.ts";
import { buildSchema } from "../../src/graphql/schema.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** `comments(first: $n)` nested `levels` deep through Comment.restaurant, as in the issue. */
function nested(levels: number, first = "first: $n", leaf = "id"): string {
  let inner = leaf;
  for (let level = 0; level < levels; level++) {
    const args = first ? `(${first})` : "";
    inner =
      level === 0 ? `comments${args} { nodes { ${inner} } }` : `comments${args} { nodes { restaurant { ${inner} } } }`;
  }
  return inner;
}

const ISSUE_QUERY = `query($r: ID!, $n: Int) { restaurant(id: $r) { ${nested(3)} } }`;

const codeOf = (r: { errors?: { extensions?: { code?: string } }[] }) => r.errors?.[0]?.extensions?.code;

/** A restaurant with `comments` comments, made through the API like any user could. */
async function restaurantWithComments(s: TestServer, token: string, comments: number, extra = ""): Promise<string> {
  const created = await s.graphql(`mutation { createRestaurant(input: { title: "Busy" ${extra} }) { id } }`, {}, token);
  const id = created.data.createRestaurant.id as string;
  for (let i = 0; i < comments; i++) {
    const added = await s.graphql(
      `mutation($r: ID!) { addComment(restaurantId: $r, input: { title: "t", body: "b", rating: 3 }) { id } }`,
      { r: id },
      token,
    );
    expect(added.errors).toBeUndefined();
  }
  return id;
}

/** The statements that read a page of comments (Restaurant.comments). */
/** Reads of a page of comments (db/reads.ts commentPageFor cuts the page as `FROM "Comment" p`). */
const commentReads = (s: TestServer) =>
  s.sql.filter((q) => /FROM\s+\S*Comment\S*(\s+p)?\s+WHERE[\s\S]*ORDER BY/i.test(q));

it("leaves the page size's default to the domain: a schema default for first would collide with last", () => {
  const schema = buildSchema();
  const paged = Object.values(schema.getTypeMap())
    .filter(isObjectType)
    .flatMap((type) => Object.values(type.getFields()).filter((field) => field.args.some((a) => a.name === "first")));
  expect(paged.length).toBeGreaterThan(5);
  for (const field of paged) {
    expect(field.args.map((a) => a.name)).toEqual(expect.arrayContaining(["first", "after", "last", "before"]));
    for (const arg of field.args) expect(arg.defaultValue, `${field.name}(${arg.name})`).toBeUndefined();
  }
});

describe("cost with variables and defaults (default limits)", () => {
  let s: TestServer;
  let token: string;
  let restaurantId: string;
  beforeAll(async () => {
    s = await startServer();
    token = (await s.signUp("cost")).token;
    restaurantId = await restaurantWithComments(s, token, 3);
  });
  afterAll(async () => s?.close());

  it("refuses the issue's query with {n: 100} before reading anything, stating the cost and the limit", async () => {
    s.sql.length = 0;
    const refused = await s.graphql(ISSUE_QUERY, { r: restaurantId, n: 100 }, token);
    expect(refused.status).toBe(400);
    expect(refused.data).toBeUndefined();
    expect(codeOf(refused)).toBe("BAD_USER_INPUT");
    expect(refused.errors?.[0].message).toMatch(/cost 1030303 is above the limit of 20000/);
    expect(commentReads(s)).toEqual([]);
  });

  it("answers the same query with a small page size", async () => {
    const ok = await s.graphql(ISSUE_QUERY, { r: restaurantId, n: 2 }, token);
    expect(ok.status).toBe(200);
    expect(ok.errors).toBeUndefined();
    expect(ok.data.restaurant.comments.nodes).toHaveLength(2);
  });
});

describe("cost (GRAPHQL_MAX_COST=500; depth 30, as fragments count as levels)", () => {
  let s: TestServer;
  let token: string;
  let restaurantId: string;
  beforeAll(async () => {
    s = await startServer({ GRAPHQL_MAX_COST: "500", GRAPHQL_MAX_DEPTH: "30" });
    token = (await s.signUp("tight")).token;
    restaurantId = await restaurantWithComments(s, token, 3);
  });
  afterAll(async () => s?.close());

  it("counts an omitted `first` (and `first: null`) as the default page size, 20", async () => {
    // 2 levels with `id title` at the bottom: 1 + 20 x (1 + 1 + 1 + 20 x 2 ...) = 863 > 500.
    const omitted = await s.graphql(
      `query($r: ID!) { restaurant(id: $r) { ${nested(2, "", "id title")} } }`,
      { r: restaurantId },
      token,
    );
    expect(omitted.status).toBe(400);
    expect(omitted.errors?.[0].message).toMatch(/cost 863 is above the limit of 500/);
    const asNull = await s.graphql(
      `query($r: ID!, $n: Int) { restaurant(id: $r) { ${nested(2, "first: $n", "id title")} } }`,
      { r: restaurantId, n: null },
      token,
    );
    expect(asNull.errors?.[0].message).toMatch(/cost 863 is above/);
    const small = await s.graphql(
      `query($r: ID!) { restaurant(id: $r) { ${nested(2, "first: 2", "id title")} } }`,
      { r: restaurantId },
      token,
    );
    expect(small.errors).toBeUndefined();
  });

  it("counts `last` as it counts `first`, the default page size when neither is given", async () => {
    // 2 levels of `last: 20`: the same 863 as the default (`first` omitted) above.
    const backwards = await s.graphql(
      `query($r: ID!) { restaurant(id: $r) { ${nested(2, `last: ${DEFAULT_PAGE_SIZE}`, "id title")} } }`,
      { r: restaurantId },
      token,
    );
    expect(backwards.status).toBe(400);
    expect(backwards.errors?.[0].message).toMatch(/cost 863 is above the limit of 500/);
    const small = await s.graphql(
      `query($r: ID!) { restaurant(id: $r) { ${nested(2, "last: 2", "id title")} } }`,
      { r: restaurantId },
      token,
    );
    expect(small.errors).toBeUndefined();
  });

  it("prices `last` without `before` on a search as its total, which it counts first", async () => {
    // restaurants 1 + words 50 + the total 20, nodes 1 + 1 x id 1 = 73 (the same page forwards: 53).
    const costOf = async (args: string) => {
      const many = Array.from(
        { length: 10 },
        (_, i) => `a${i}: restaurants(filter: { search: "pizza" }, ${args}) { nodes { id } }`,
      );
      return /cost (\d+)/.exec((await s.graphql(`{ ${many.join(" ")} }`, {}, token)).errors?.[0]?.message ?? "")?.[1];
    };
    expect(await costOf("last: 1")).toBe("730");
    expect(await costOf("first: 1")).toBe("530");
    expect(await costOf(`last: 1, before: "${Buffer.from("o:5").toString("base64url")}"`)).toBe("530");
  });

  it("counts nodes(ids:) one item per id", async () => {
    // nodes 1 + n x (id 1 + an inline fragment's title 1): 2 n + 1.
    const ids = (n: number) => Array.from({ length: n }, () => restaurantId);
    const query = `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Restaurant { title } } }`;
    expect((await s.graphql(query, { ids: ids(100) }, token)).errors).toBeUndefined();
    const refused = await s.graphql(
      `query($ids: [ID!]!) { a: nodes(ids: $ids) { id ... on Restaurant { title } } b: nodes(ids: $ids) { id ... on Restaurant { title } } c: nodes(ids: $ids) { id ... on Restaurant { title } } }`,
      { ids: ids(100) },
      token,
    );
    expect(refused.status).toBe(400);
    expect(refused.errors?.[0].message).toMatch(/cost 603 is above the limit of 500/);
  });

  it("adds up aliases: 2 aliases of a 218-cost query pass, 4 are refused", async () => {
    const aliased = (n: number) =>
      `query($r: ID!, $n: Int) { ${Array.from({ length: n }, (_, i) => `a${i}: restaurant(id: $r) { ${nested(3)} }`).join(" ")} }`;
    const two = await s.graphql(aliased(2), { r: restaurantId, n: 5 }, token);
    expect(two.errors).toBeUndefined();
    s.sql.length = 0;
    const four = await s.graphql(aliased(4), { r: restaurantId, n: 5 }, token);
    expect(four.status).toBe(400);
    expect(four.errors?.[0].message).toMatch(/cost 872 is above the limit of 500/);
    expect(commentReads(s)).toEqual([]);
  });

  it("counts fields reached through fragments and inline fragments like the same fields written out", async () => {
    const withFragments = `query($r: ID!, $n: Int) { restaurant(id: $r) { ...Level1 } }
      fragment Level1 on Restaurant { comments(first: $n) { ...Page1 } }
      fragment Page1 on CommentConnection { nodes { restaurant { ... on Restaurant { comments(first: $n) { ...Page2 } } } } }
      fragment Page2 on CommentConnection { nodes { restaurant { comments(first: $n) { nodes { ...Leaf } } } } }
      fragment Leaf on Comment { id }`;
    const spelled = await s.graphql(ISSUE_QUERY, { r: restaurantId, n: 7 }, token);
    const viaFragments = await s.graphql(withFragments, { r: restaurantId, n: 7 }, token);
    expect(spelled.status).toBe(400);
    expect(viaFragments.status).toBe(400);
    const costOf = (m?: string) => /cost (\d+)/.exec(m ?? "")?.[1];
    expect(costOf(viaFragments.errors?.[0].message)).toBe(costOf(spelled.errors?.[0].message));
    expect(Number(costOf(spelled.errors?.[0].message))).toBeGreaterThan(500);
  });

  it("prices a search by the work its arguments cause: words, near, totals and facets are not one unit", async () => {
    // restaurants 1 + words 50 + near 30 + 1 (5 km: 25 km² / 25), totalCount 1 + 20, facets 1 + 200 + exact 1 = 305.
    const search = (alias: string) =>
      `${alias}: restaurants(first: 1, filter: { search: "pizza", near: { latitude: 38.7, longitude: -9.1, radiusKm: 5 } }) { totalCount facets { exact } }`;
    const one = await s.graphql(`{ ${search("a")} }`, {}, token);
    expect(one.errors, JSON.stringify(one.errors)).toBeUndefined();
    const two = await s.graphql(`{ ${search("a")} ${search("b")} }`, {}, token);
    expect(two.status).toBe(400);
    expect(two.errors?.[0].message).toMatch(/cost 610 is above the limit of 500/);
    // A wider circle costs more: 50 km adds 2,500 km² / 25 = 100 (restaurants 131, facets 202: 333 each).
    const wide = (alias: string) =>
      `${alias}: restaurants(first: 1, filter: { near: { latitude: 0, longitude: 0, radiusKm: 50 } }) { facets { exact } }`;
    expect((await s.graphql(`{ ${wide("a")} }`, {}, token)).errors).toBeUndefined();
    expect((await s.graphql(`{ ${wide("a")} ${wide("b")} }`, {}, token)).errors?.[0].message).toMatch(
      /cost 666 is above/,
    );
  });

  it("applies the same limit to the REST shim's documents, with the page size from the request", async () => {
    const refused = await s.fetch(`/restaurants/${restaurantId}/comments?limit=100`, { token });
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.error.code).toBe("BAD_USER_INPUT");
    expect(body.error.message).toMatch(/cost \d+ is above the limit of 500/);
    const ok = await s.fetch(`/restaurants/${restaurantId}/comments?limit=10`, { token });
    expect(ok.status).toBe(200);
  });
});

describe("response ceiling (GRAPHQL_MAX_RESPONSE_OBJECTS=100, cost limit out of the way)", () => {
  let s: TestServer;
  let token: string;
  let restaurantId: string;
  beforeAll(async () => {
    s = await startServer({ GRAPHQL_MAX_COST: "10000000", GRAPHQL_MAX_RESPONSE_OBJECTS: "100" });
    token = (await s.signUp("ceil")).token;
    restaurantId = await restaurantWithComments(s, token, 12, `openingHours: [{ open: "09:00", close: "17:00" }]`);
  });
  afterAll(async () => s?.close());

  it("stops the execution once the response would hold more objects, and answers one clear error", async () => {
    s.sql.length = 0;
    const stopped = await s.graphql(ISSUE_QUERY, { r: restaurantId, n: 12 }, token);
    expect(stopped.status).toBe(400);
    expect(stopped.data).toBeUndefined();
    expect(stopped.errors).toHaveLength(1);
    expect(codeOf(stopped)).toBe("BAD_USER_INPUT");
    expect(stopped.errors?.[0].message).toMatch(/more than 100 objects/);
    // 1 + 12 pages (and 144 more) would be read without the ceiling: 12 + 7 x 12 <= 100 < 12 + 8 x 12.
    // Reads already started may finish after the answer (PostgreSQL is asynchronous): let them land.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(commentReads(s).length).toBeGreaterThan(0);
    expect(commentReads(s).length).toBeLessThanOrEqual(1 + 7);
  });

  it("answers what stays under the ceiling", async () => {
    const ok = await s.graphql(
      `query($r: ID!, $n: Int) { restaurant(id: $r) { ${nested(2)} } }`,
      { r: restaurantId, n: 5 },
      token,
    );
    expect(ok.status).toBe(200);
    expect(ok.errors).toBeUndefined();
  });

  it("counts lists that have no page size (opening hours) and applies to the REST shim", async () => {
    // A full page of 100 restaurants plus the opening hours in it holds more than 100 objects.
    const refused = await s.fetch(`/restaurants?limit=100`, { token });
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.error).toMatchObject({
      code: "BAD_USER_INPUT",
      message: expect.stringMatching(/more than 100 objects/),
    });
    const ok = await s.fetch(`/restaurants?limit=50`, { token });
    expect(ok.status).toBe(200);
  });
});
