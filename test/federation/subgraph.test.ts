// The service as a Federation v2 subgraph (FEDERATION_SUBGRAPH=true), through the real server:
// `_service { sdl }` and `_entities(representations:)`, a new way in that must meet the same rules,
// cost, limits and batching as `restaurant(id:)`, `grocery(id:)` and `user(id:)`. The gateways
// themselves are in hive-gateway.test.ts and apollo-gateway.test.ts.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "graphql";
import { startServer, type TestServer } from "../helpers/server.ts";
import { buildSchema } from "../../src/graphql/schema.ts";
import { operationCost } from "../../src/graphql/policy/cost.ts";

let s: TestServer; // a subgraph, as configured by default otherwise
let open: TestServer; // a subgraph with anonymous reads, introspection off, small cost and response limits
let plain: TestServer; // the default: no subgraph
let owner: { token: string; id: string; username: string };
let other: { token: string; id: string; username: string };
const restaurants: { id: string; title: string }[] = [];
const groceries: { id: string; title: string }[] = [];

beforeAll(async () => {
  s = await startServer({ FEDERATION_SUBGRAPH: "true" });
  open = await startServer(
    {
      FEDERATION_SUBGRAPH: "true",
      ANONYMOUS_READS: "true",
      GRAPHQL_INTROSPECTION: "false",
      GRAPHQL_MAX_COST: "100",
      GRAPHQL_MAX_RESPONSE_OBJECTS: "100",
    },
    { alongside: s },
  );
  plain = await startServer({}, { alongside: s });
  owner = await s.signUp("owner");
  other = await s.signUp("other");
  for (let i = 0; i < 40; i++) {
    const title = `Entity ${String(i).padStart(2, "0")}`;
    const r = await s.db.prisma.restaurant.create({
      data: {
        title,
        titleSearch: title.toLowerCase(),
        ownerId: i % 2 ? owner.id : other.id,
        tags: { create: [{ kind: "CATEGORY", position: 0, value: `Cat${i % 3}`, valueKey: `cat${i % 3}` }] },
      },
    });
    restaurants.push({ id: r.id, title });
    const g = await s.db.prisma.grocery.create({
      data: { title: `Grocery ${i}`, titleSearch: `grocery ${i}`, ownerId: owner.id },
    });
    groceries.push({ id: g.id, title: `Grocery ${i}` });
  }
  const badges = await Promise.all(
    ["Clean", "Green", "Fast"].map((name) => s.db.prisma.badge.create({ data: { name } })),
  );
  await s.db.prisma.restaurant.update({
    where: { id: restaurants[0].id },
    data: { badges: { create: badges.map((b) => ({ badgeId: b.id })) } },
  });
});
afterAll(async () => {
  await plain?.close();
  await open?.close();
  await s?.close();
});

const ENTITIES = `query($r: [_Any!]!) { _entities(representations: $r) {
  __typename
  ... on Restaurant { id title owner { username } categories viewerCanEdit }
  ... on Grocery { id title categories }
  ... on User { id username role }
} }`;

const restaurantRef = (id: string) => ({ __typename: "Restaurant", id });
const groceryRef = (id: string) => ({ __typename: "Grocery", id });
const userRef = (id: string) => ({ __typename: "User", id });

describe("_service { sdl }", () => {
  it("is Federation v2: a @link to the spec, @key on Restaurant, Grocery and User, without a token", async () => {
    const res = await s.graphql("{ _service { sdl } }");
    expect(res.status).toBe(200);
    const sdl: string = res.data._service.sdl;
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])');
    const keyed = [...sdl.matchAll(/^type (\w+)(?: implements [\w &]+)? @key\(fields: "id"\)/gm)]
      .map((m) => m[1])
      .sort();
    expect(keyed).toEqual(["Grocery", "Restaurant", "User"]);
    expect(sdl).toMatch(/^type PageInfo @shareable \{/m);
    // The contract as it is: the same types and fields a client of /graphql sees.
    expect(sdl).toContain("restaurant(id: ID!): Restaurant @requireAuth(anonymousReads: true)");
    expect(sdl).toContain("union _Entity = Grocery | Restaurant | User");
  });

  it("is the SDL `npm run subgraph-sdl` prints, without a server or a database", async () => {
    const cli = spawnSync(process.execPath, ["--import", "tsx", "src/cli/subgraph-sdl.ts"], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: { PATH: process.env.PATH },
      encoding: "utf8",
    });
    expect(cli.status, cli.stderr).toBe(0);
    const res = await s.graphql("{ _service { sdl } }");
    expect(cli.stdout).toBe(`${res.data._service.sdl}\n`);
  }, 60_000); // a fresh Node with tsx

  it("is refused with introspection (GRAPHQL_INTROSPECTION=false), before anything runs", async () => {
    const res = await open.graphql("{ _service { sdl } }");
    expect(res.data).toBeUndefined();
    expect(res.errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining("GRAPHQL_INTROSPECTION=false"),
        extensions: { code: "BAD_USER_INPUT" },
      }),
    ]);
    // `_entities` still answers there: gateways need it to resolve references.
    const entities = await open.graphql(ENTITIES, { r: [restaurantRef(restaurants[0].id)] });
    expect(entities.errors).toBeUndefined();
    expect(entities.data._entities[0].title).toBe(restaurants[0].title);
  });

  it("is not there by default, nor is _entities: FEDERATION_SUBGRAPH turns both on", async () => {
    for (const query of ["{ _service { sdl } }", `{ _entities(representations: []) { __typename } }`]) {
      const res = await plain.graphql(query, undefined, owner.token);
      expect(res.data).toBeUndefined();
      expect(res.errors?.[0]).toMatchObject({ extensions: { code: "BAD_USER_INPUT" } });
      expect(res.errors?.[0].message).toMatch(/Cannot query field "_(service|entities)" on type "Query"/);
    }
  });
});

describe("_entities", () => {
  it("answers each representation in order, as restaurant(id:), grocery(id:) and user(id:) answer its id", async () => {
    const r = [restaurantRef(restaurants[1].id), groceryRef(groceries[0].id), userRef(other.id), userRef(owner.id)];
    const res = await s.graphql(ENTITIES, { r }, owner.token);
    expect(res.errors).toBeUndefined();
    const direct = await s.graphql(
      `query($r: ID!, $g: ID!, $u: ID!, $me: ID!) {
        restaurant(id: $r) { id title owner { username } categories viewerCanEdit }
        grocery(id: $g) { id title categories }
        other: user(id: $u) { id username role }
        me: user(id: $me) { id username role } }`,
      { r: restaurants[1].id, g: groceries[0].id, u: other.id, me: owner.id },
      owner.token,
    );
    expect(res.data._entities).toEqual([
      { __typename: "Restaurant", ...direct.data.restaurant },
      { __typename: "Grocery", ...direct.data.grocery },
      { __typename: "User", ...direct.data.other },
      { __typename: "User", ...direct.data.me },
    ]);
    // The rules of the fields apply: the owner edits its restaurant; another's role is hidden (@selfOrAdmin).
    expect(res.data._entities[0]).toMatchObject({ viewerCanEdit: true, owner: { username: owner.username } });
    expect(res.data._entities[2]).toMatchObject({ username: other.username, role: null });
    expect(res.data._entities[3]).toMatchObject({ username: owner.username, role: "USER" });
  });

  it("answers a removed or unknown id with null and no error, as restaurant(id:) does", async () => {
    const res = await s.graphql(ENTITIES, { r: [restaurantRef("no-such-id"), userRef("nobody")] }, owner.token);
    expect(res.errors).toBeUndefined();
    expect(res.data._entities).toEqual([null, null]);
    const direct = await s.graphql(`{ restaurant(id: "no-such-id") { id } }`, undefined, owner.token);
    expect(direct.data.restaurant).toBeNull();
  });

  it("batches: one statement per type per batch, however many representations", async () => {
    const run = async (n: number) => {
      const r = [
        ...restaurants.slice(0, n).map((x) => restaurantRef(x.id)),
        ...groceries.slice(0, n).map((x) => groceryRef(x.id)),
        ...[owner.id, other.id].map(userRef),
      ];
      s.sql.length = 0;
      const res = await s.graphql(ENTITIES, { r }, owner.token);
      expect(res.errors).toBeUndefined();
      expect(res.data._entities).toHaveLength(2 * n + 2);
      return [...s.sql];
    };
    await run(1); // warm-up: the token is looked up once, then cached
    const three = await run(3);
    const forty = await run(40);
    expect(forty.length, forty.join("\n")).toBe(three.length);
    // Restaurants with their owners and categories (one statement), groceries, their tags, users.
    expect(forty.length, forty.join("\n")).toBeLessThanOrEqual(4);
  });

  it("meets the field's rule: no token, no entities (ANONYMOUS_READS off), as restaurant(id:)", async () => {
    const res = await s.graphql(ENTITIES, { r: [restaurantRef(restaurants[0].id)] });
    const direct = await s.graphql(`{ restaurant(id: "${restaurants[0].id}") { title } }`);
    expect(res.status).toBe(direct.status);
    expect(res.errors?.map((e) => e.extensions?.code)).toEqual(["UNAUTHENTICATED"]);
    expect(res.errors?.[0].message).toBe(direct.errors?.[0].message);
    expect(res.data).toBeNull();
    const invalid = await s.graphql(ENTITIES, { r: [restaurantRef(restaurants[0].id)] }, "not-a-token");
    expect(invalid.errors?.map((e) => e.extensions?.code)).toEqual(["UNAUTHENTICATED"]);
  });

  it("with ANONYMOUS_READS on, answers restaurants and groceries to anyone, and a user only as user(id:) would (not)", async () => {
    const r = [restaurantRef(restaurants[0].id), userRef(owner.id), groceryRef(groceries[0].id)];
    const res = await open.graphql(ENTITIES, { r });
    expect(res.data._entities[0]).toMatchObject({ title: restaurants[0].title, viewerCanEdit: false });
    expect(res.data._entities[1]).toBeNull();
    expect(res.data._entities[2]).toMatchObject({ title: groceries[0].title });
    const direct = await open.graphql(`{ user(id: "${owner.id}") { username } }`);
    expect(res.errors).toEqual([
      expect.objectContaining({
        path: ["_entities", 1],
        message: direct.errors?.[0].message,
        extensions: { code: "UNAUTHENTICATED" },
      }),
    ]);
  });

  it("answers malformed representations and unknown types with null and a clear BAD_USER_INPUT, the others as usual", async () => {
    const r = [
      "Restaurant",
      42,
      [restaurants[0].id],
      { id: restaurants[0].id },
      { __typename: 7, id: restaurants[0].id },
      { __typename: "Order", id: "x" },
      { __typename: "__proto__", id: "x" },
      { __typename: "Restaurant" },
      { __typename: "Restaurant", id: { $ne: null } },
      { __typename: "Restaurant", id: 1.5 },
      { __typename: "Restaurant", id: "a\u0000b" },
      { __typename: "Restaurant", id: "x".repeat(5000) },
      restaurantRef(restaurants[2].id),
    ];
    const res = await s.graphql(ENTITIES, { r }, owner.token);
    expect(res.status).toBe(200);
    expect(res.data._entities.slice(0, 12)).toEqual(Array(12).fill(null));
    expect(res.data._entities[12]).toMatchObject({ title: restaurants[2].title });
    expect(res.errors?.map((e) => [e.path?.[1], e.extensions?.code])).toEqual(
      Array.from({ length: 12 }, (_, i) => [i, "BAD_USER_INPUT"]),
    );
    const messages = res.errors!.map((e) => e.message);
    expect(messages[0]).toMatch(/A representation is an object with `__typename` and `id`/);
    expect(messages[3]).toMatch(/names its type in `__typename`/);
    expect(messages[5]).toMatch(/`__typename` must name an entity of this service \(Restaurant, Grocery, User\)/);
    expect(messages[6]).toBe(messages[5]);
    expect(messages[7]).toMatch(/A Restaurant representation carries its key `id`/);
    expect(messages[10]).toMatch(/NUL/);
    expect(messages[11]).toMatch(/at most/);
  });

  it("refuses a representation that is null, as any non-null argument, before anything runs", async () => {
    s.sql.length = 0;
    const res = await s.graphql(ENTITIES, { r: [restaurantRef(restaurants[0].id), null] }, owner.token);
    expect(res.data).toBeUndefined();
    expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(s.sql).toEqual([]);
  });
});

describe("_entities' cost and bounds", () => {
  const reps = (n: number) => Array.from({ length: n }, (_, i) => restaurantRef(restaurants[i % 40].id));

  it("refuses 10,000 representations whole, before any is read (FEDERATION_MAX_REPRESENTATIONS, 1,000)", async () => {
    s.sql.length = 0;
    const res = await s.graphql(ENTITIES, { r: reps(10_000) }, owner.token);
    expect(res.status).toBe(400);
    expect(res.data).toBeUndefined();
    expect(res.errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining("at most 1000 representations"),
        extensions: { code: "BAD_USER_INPUT" },
      }),
    ]);
    expect(s.sql).toEqual([]);
  });

  it("counts every _entities of an operation against the bound (aliases, fragments)", async () => {
    const query = `query($a: [_Any!]!, $b: [_Any!]!) { x: _entities(representations: $a) { __typename } ...F }
      fragment F on Query { y: _entities(representations: $b) { __typename } }`;
    const under = await s.graphql(query, { a: reps(500), b: reps(500) }, owner.token);
    expect(under.errors).toBeUndefined();
    expect(under.data.x).toHaveLength(500);
    const over = await s.graphql(query, { a: reps(500), b: reps(501) }, owner.token);
    expect(over.status).toBe(400);
    expect(over.errors?.[0].message).toContain("at most 1000 representations");
  });

  it("costs each representation what the field reading its type by id costs with the same selection", () => {
    const schema = buildSchema({ subgraph: true });
    const cost = (query: string, variables?: Record<string, unknown>) =>
      operationCost(schema, parse(query), undefined, variables);
    const restaurant = cost(`{ restaurant(id: "1") { id title owner { username } categories viewerCanEdit } }`)!;
    const grocery = cost(`{ grocery(id: "1") { id title categories } }`)!;
    const user = cost(`{ user(id: "1") { id username role } }`)!;
    // The selection holds `__typename` too: one more per entity. A representation naming no type
    // of ours costs 1 (it is refused without a read).
    const r = [restaurantRef("1"), restaurantRef("2"), groceryRef("3"), userRef("4"), { __typename: "Nope" }, "junk"];
    expect(cost(ENTITIES, { r })).toBe(1 + 2 * (restaurant + 1) + (grocery + 1) + (user + 1) + 2);
  });

  it("refuses a batch over GRAPHQL_MAX_COST before any of it is read", async () => {
    // `title owner { username }` costs 4 by id (+1 for __typename): 20 of them cost 101, over 100.
    const query = `query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Restaurant { title owner { username } } } }`;
    const fits = await open.graphql(query, { r: reps(19) });
    expect(fits.errors).toBeUndefined();
    open.sql.length = 0;
    const over = await open.graphql(query, { r: reps(20) });
    expect(over.status).toBe(400);
    expect(over.errors?.[0].message).toMatch(/^Operation cost 101 is above the limit of 100/);
    expect(open.sql).toEqual([]);
  });

  it("counts its entities against the response ceiling (GRAPHQL_MAX_RESPONSE_OBJECTS)", async () => {
    // 33 entities with 3 badges each: 99 badges alone stay under 100 objects; with the entities, 132.
    const query = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Restaurant { badges { receivedAt } } } }`;
    const res = await open.graphql(query, { r: Array.from({ length: 33 }, () => restaurantRef(restaurants[0].id)) });
    expect(res.status).toBe(400);
    expect(res.errors?.[0].message).toMatch(/more than 100 objects \(GRAPHQL_MAX_RESPONSE_OBJECTS\)/);
  });
});
