// HTTP caching (issue 42, docs/http-caching.md): the Cache-Control of every GraphQL and REST
// answer comes from the document's @cacheControl hints and whether the request sent a token:
// `public` only for a clean answer to a request without any token, `private` with a token, and
// no-store for anything that depends on who asks, for writes, errors and POST. A kept GET answer
// has a strong ETag and is a 304 for a client that holds it; garbage in If-None-Match is a 200.
import { readFileSync } from "node:fs";
import { makeExecutableSchema } from "@graphql-tools/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { cachePolicies } from "../../src/graphql/policy/cache-control.ts";
import { SCHEMA_PATH } from "../../src/graphql/schema.ts";
import { routes } from "../../src/rest/routes/index.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

type Get = { token?: string; variables?: Record<string, unknown>; headers?: Record<string, string> };

/** GET /graphql as a browser app sends it: the text (or a persisted hash) in the query string. */
function graphqlGet(s: TestServer, query: string | undefined, { token, variables, headers = {} }: Get = {}) {
  const params = new URLSearchParams();
  if (query !== undefined) params.set("query", query);
  if (variables) params.set("variables", JSON.stringify(variables));
  // Apollo's CSRF prevention wants a header a form cannot send on a GET without a token.
  return s.fetch(`/graphql?${params}`, { token, headers: { "apollo-require-preflight": "true", ...headers } });
}

const cacheControlOf = async (res: Promise<Response>) => {
  const answer = await res;
  const body = await answer.text();
  return {
    status: answer.status,
    cacheControl: answer.headers.get("cache-control"),
    etag: answer.headers.get("etag"),
    body,
  };
};

const RESTAURANT = `query R($id: ID!) { restaurant(id: $id) { id title owner { username rating } address { city geo { latitude } }
  contact { email } openingHours { open } badges { badge { name } } latestComment { title }
  comments(first: 5) { totalCount pageInfo { hasNextPage } nodes { title author { firstName } } } } }`;

describe("Cache-Control from the schema's hints (ANONYMOUS_READS=true)", () => {
  let s: TestServer;
  let owner: { token: string; id: string };
  let admin: { token: string; id: string };
  let restaurantId: string;
  let groceryId: string;

  beforeAll(async () => {
    s = await startServer({ ANONYMOUS_READS: "true" });
    owner = await s.signUp("owner");
    admin = await s.signUp("admin", "ADMIN");
    const created = await s.graphql(
      `mutation { createRestaurant(input: { title: "Cached Kitchen", address: { city: "Porto" } }) { id } }`,
      {},
      owner.token,
    );
    restaurantId = created.data.createRestaurant.id;
    const grocery = await s.graphql(
      `mutation { createGrocery(input: { title: "Cached rice" }) { id } }`,
      {},
      owner.token,
    );
    groceryId = grocery.data.createGrocery.id;
  });
  afterAll(async () => {
    await s?.close();
  });

  const who = (name: "anonymous" | "owner" | "admin") =>
    name === "anonymous" ? undefined : name === "owner" ? owner.token : admin.token;

  // [what, document, who asks, Cache-Control]
  const table: [string, string, "anonymous" | "owner" | "admin", string][] = [
    ["a restaurant and what it holds, without a token", RESTAURANT, "anonymous", "public, max-age=60"],
    ["the same with a token", RESTAURANT, "owner", "private, max-age=60"],
    [
      "a search page with totals and facets",
      `{ restaurants(first: 5) { totalCount totalCountIsEstimate pageInfo { endCursor } edges { cursor node { title } } facets { cuisines { value count } } } }`,
      "anonymous",
      "public, max-age=60",
    ],
    [
      "groceries and a grocery",
      `query G($g: ID!) { groceries(first: 3) { nodes { title owner { firstName } } } grocery(id: $g) { title coverUrl } }`,
      "anonymous",
      "public, max-age=60",
    ],
    [
      "a restaurant that does not exist (null, no error)",
      `{ restaurant(id: "nope") { title } }`,
      "anonymous",
      "public, max-age=60",
    ],
    [
      "viewerCanEdit, even answered to nobody",
      `query R($id: ID!) { restaurant(id: $id) { title viewerCanEdit } }`,
      "anonymous",
      "no-store",
    ],
    ["inMyShoppingList", `query G($g: ID!) { grocery(id: $g) { title inMyShoppingList } }`, "owner", "no-store"],
    ["a grocery's viewerCanEdit", `query G($g: ID!) { grocery(id: $g) { viewerCanEdit } }`, "owner", "no-store"],
    ["me", `{ me { username } }`, "owner", "no-store"],
    [
      "a user's profile (needs a token, the same for everyone)",
      `query U($u: ID!) { user(id: $u) { username firstName } }`,
      "owner",
      "private, max-age=60",
    ],
    ["a user's role (@selfOrAdmin)", `query U($u: ID!) { user(id: $u) { role } }`, "owner", "no-store"],
    [
      "an owner's role inside a restaurant",
      `query R($id: ID!) { restaurant(id: $id) { owner { role } } }`,
      "anonymous",
      "no-store",
    ],
    ["myOrders", `{ myOrders { totalCount } }`, "owner", "no-store"],
    ["myShoppingList", `{ myShoppingList { totalCount } }`, "owner", "no-store"],
    ["reports", `{ reports { totalCount } }`, "admin", "no-store"],
    ["badges (needs a token)", `{ badges { name } }`, "owner", "private, max-age=60"],
    ["__typename alone (no field says)", `{ __typename }`, "anonymous", "no-store"],
    ["introspection", `{ __schema { queryType { name } } }`, "anonymous", "no-store"],
    [
      "a viewer field inside a fragment",
      `query R($id: ID!) { restaurant(id: $id) { ...F } } fragment F on Restaurant { title ... on Restaurant { viewerCanEdit } }`,
      "anonymous",
      "no-store",
    ],
    [
      "a viewer field under @skip(if: true) (a variable could decide it: still counted)",
      `query R($id: ID!) { restaurant(id: $id) { title viewerCanEdit @skip(if: true) } }`,
      "anonymous",
      "no-store",
    ],
  ];

  it.each(table)("%s: %s", async (_what, query, asker, expected) => {
    const variables: Record<string, unknown> = {};
    if (query.includes("$id")) variables.id = restaurantId;
    if (query.includes("$g")) variables.g = groceryId;
    if (query.includes("$u")) variables.u = owner.id;
    const answer = await cacheControlOf(graphqlGet(s, query, { token: who(asker), variables }));
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body).errors, answer.body).toBeUndefined();
    expect(answer.cacheControl).toBe(expected);
    if (expected === "no-store") expect(answer.etag).toBeNull();
    else expect(answer.etag).toMatch(/^"[\w-]{22}"$/); // strong: no W/
  });

  it("errors, refusals and writes are no-store, whatever the document's hints", async () => {
    const cases: [string, Promise<Response>][] = [
      ["a field that needs a token, without one", graphqlGet(s, `{ me { username } restaurants { totalCount } }`)],
      ["an invalid token", graphqlGet(s, `{ restaurants { totalCount } }`, { token: "not-a-token" })],
      ["a mutation sent with GET", graphqlGet(s, `mutation { logout }`, { token: owner.token })],
      ["a document that does not parse", graphqlGet(s, `{ restaurants { `)],
      ["a document that does not validate", graphqlGet(s, `{ restaurants { nope } }`)],
      [
        "a GET without a preflight header (CSRF prevention)",
        s.fetch(`/graphql?query=${encodeURIComponent("{ restaurants { totalCount } }")}`),
      ],
      [
        "a persisted hash the server does not know",
        s.fetch(
          `/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: "a".repeat(64) } }))}`,
          { headers: { "apollo-require-preflight": "true" } },
        ),
      ],
      [
        "POST, answered directly or by Apollo",
        s.fetch("/graphql", { method: "POST", json: { query: "{ restaurants { totalCount } }" } }),
      ],
      [
        "POST of a document seen before",
        s.fetch("/graphql", { method: "POST", json: { query: "{ restaurants { totalCount } }" } }),
      ],
    ];
    for (const [what, res] of cases) {
      const answer = await cacheControlOf(res);
      expect(answer.cacheControl, `${what}: ${answer.status} ${answer.body}`).toBe("no-store");
      expect(answer.etag, what).toBeNull();
    }
  });

  it("a persisted GET (Apollo's persistedQuery extension) carries the same policy and ETag as the text", async () => {
    const query = `query Persisted($id: ID!) { restaurant(id: $id) { title } }`;
    const { createHash } = await import("node:crypto");
    const sha256Hash = createHash("sha256").update(query).digest("hex");
    const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash } });
    const variables = JSON.stringify({ id: restaurantId });
    const headers = { "apollo-require-preflight": "true" };
    const registered = await cacheControlOf(
      s.fetch(`/graphql?${new URLSearchParams({ query, variables, extensions })}`, { headers }),
    );
    expect(registered.status, registered.body).toBe(200);
    const byHash = await cacheControlOf(
      s.fetch(`/graphql?${new URLSearchParams({ variables, extensions })}`, { headers }),
    );
    expect(byHash.status, byHash.body).toBe(200);
    expect(byHash.cacheControl).toBe("public, max-age=60");
    expect(byHash.etag).toBe(registered.etag);
    const again = await s.fetch(`/graphql?${new URLSearchParams({ variables, extensions })}`, {
      headers: { ...headers, "if-none-match": byHash.etag! },
    });
    expect(again.status).toBe(304);
  });

  it("answers If-None-Match with a 304 holding the validators and no body; garbage gets the whole answer", async () => {
    const first = await graphqlGet(s, RESTAURANT, { variables: { id: restaurantId } });
    const body = await first.text();
    const etag = first.headers.get("etag")!;
    expect(first.headers.get("vary")).toBe("authorization, accept");
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const again = await graphqlGet(s, RESTAURANT, {
        variables: { id: restaurantId },
        headers: { "if-none-match": ifNoneMatch },
      });
      expect(again.status, ifNoneMatch).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe("public, max-age=60");
      expect(again.headers.get("vary")).toBe("authorization, accept");
    }
    const garbage = ["garbage", '"', 'W/"', ",,,", etag.slice(0, -2) + '"', '"x",'.repeat(2000), "\u00e9t\u00e9"];
    for (const ifNoneMatch of garbage) {
      const again = await graphqlGet(s, RESTAURANT, {
        variables: { id: restaurantId },
        headers: { "if-none-match": ifNoneMatch },
      });
      expect(again.status, ifNoneMatch.slice(0, 20)).toBe(200);
      expect(await again.text()).toBe(body);
    }
  });

  it("a changed restaurant has a new ETag: the old one gets the whole new answer", async () => {
    const { id } = (
      await s.graphql(`mutation { createRestaurant(input: { title: "Before" }) { id } }`, {}, owner.token)
    ).data.createRestaurant;
    const before = await graphqlGet(s, RESTAURANT, { variables: { id } });
    const etag = before.headers.get("etag")!;
    await s.graphql(
      `mutation($id: ID!) { updateRestaurant(id: $id, input: { title: "After" }) { id } }`,
      { id },
      owner.token,
    );
    const after = await graphqlGet(s, RESTAURANT, { variables: { id }, headers: { "if-none-match": etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
    expect((await after.json()).data.restaurant.title).toBe("After");
  });

  it("a no-store answer ignores If-None-Match", async () => {
    const first = await graphqlGet(s, `{ me { username } }`, { token: owner.token });
    await first.text();
    const again = await graphqlGet(s, `{ me { username } }`, { token: owner.token, headers: { "if-none-match": "*" } });
    expect(again.status).toBe(200);
    expect(again.headers.get("cache-control")).toBe("no-store");
  });

  it("REST GETs: the route's document decides, as on /graphql; ETag and 304 alike", async () => {
    const restaurantRoute = routes.find((r) => r.method === "GET" && r.path === "/restaurants/:restaurant_id")!;
    const viaGraphql = await graphqlGet(s, restaurantRoute.document, { variables: { id: restaurantId } });
    const reads = [
      `/restaurants/${restaurantId}`,
      `/v1/restaurants/${restaurantId}`,
      `/restaurants/${restaurantId}/comments`,
      "/restaurants?limit=5",
      "/groceries?title=rice",
      `/groceries/${groceryId}`,
    ];
    for (const path of reads) {
      const anonymous = await s.fetch(path);
      expect(anonymous.status, path).toBe(200);
      expect(anonymous.headers.get("cache-control"), path).toBe("public, max-age=60");
      expect(anonymous.headers.get("vary"), path).toBe("authorization");
      const etag = anonymous.headers.get("etag")!;
      expect(etag, path).toMatch(/^"[\w-]{22}"$/);
      expect((await s.fetch(path, { headers: { "if-none-match": etag } })).status, path).toBe(304);
      expect((await s.fetch(path, { method: "HEAD", headers: { "if-none-match": etag } })).status, path).toBe(304);
      expect((await s.fetch(path, { headers: { "if-none-match": "garbage" } })).status, path).toBe(200);
      const signedIn = await s.fetch(path, { token: owner.token });
      expect(signedIn.headers.get("cache-control"), path).toBe("private, max-age=60");
      const inUrl = await s.fetch(`${path}${path.includes("?") ? "&" : "?"}access_token=${owner.token}`);
      expect(inUrl.headers.get("cache-control"), path).toBe("private, max-age=60");
    }
    expect(viaGraphql.headers.get("cache-control")).toBe(
      (await s.fetch(`/restaurants/${restaurantId}`)).headers.get("cache-control"),
    );
  });

  it("REST errors and writes are no-store, with no ETag", async () => {
    const cases: [string, Promise<Response>][] = [
      ["a restaurant that does not exist", s.fetch("/restaurants/nope")],
      ["a bad parameter", s.fetch("/restaurants?limit=many")],
      ["an invalid token", s.fetch("/restaurants", { token: "not-a-token" })],
      ["GET /signout (a write)", s.fetch("/signout", { token: (await s.signUp("leaver")).token })],
      [
        "a write",
        s.fetch(`/restaurants/${restaurantId}/comments`, {
          method: "PUT",
          token: owner.token,
          json: { title: "t", body: "b", rating: 5 },
        }),
      ],
      ["a method the path does not take", s.fetch("/restaurants", { method: "DELETE" })],
    ];
    for (const [what, res] of cases) {
      const answer = await cacheControlOf(res);
      expect(answer.cacheControl, `${what}: ${answer.status}`).toBe("no-store");
      expect(answer.etag, what).toBeNull();
    }
  });
});

describe("HTTP_CACHE_MAX_AGE and ANONYMOUS_READS=false", () => {
  let off: TestServer;
  let capped: TestServer;
  beforeAll(async () => {
    off = await startServer({ ANONYMOUS_READS: "true", HTTP_CACHE_MAX_AGE: "0" });
    capped = await startServer({ HTTP_CACHE_MAX_AGE: "5s", CORS_ORIGINS: "https://app.example" }, { alongside: off });
  });
  afterAll(async () => {
    await capped?.close();
    await off?.close();
  });

  it("0 makes every answer no-store, without an ETag", async () => {
    for (const res of [graphqlGet(off, `{ restaurants { totalCount } }`), off.fetch("/restaurants")]) {
      const answer = await cacheControlOf(res);
      expect(answer.status).toBe(200);
      expect(answer.cacheControl).toBe("no-store");
      expect(answer.etag).toBeNull();
    }
  });

  it("caps every max-age; without ANONYMOUS_READS a read needs a token, so nothing is public", async () => {
    const user = await capped.signUp("capped");
    expect(
      (await cacheControlOf(graphqlGet(capped, `{ restaurants { totalCount } }`, { token: user.token }))).cacheControl,
    ).toBe("private, max-age=5");
    expect((await capped.fetch("/restaurants", { token: user.token })).headers.get("cache-control")).toBe(
      "private, max-age=5",
    );
    // CORS names Origin in Vary; the token and Accept are added, not put instead.
    const fromApp = await graphqlGet(capped, `{ restaurants { totalCount } }`, {
      token: user.token,
      headers: { origin: "https://app.example" },
    });
    expect(fromApp.headers.get("access-control-allow-origin")).toBe("https://app.example");
    expect(fromApp.headers.get("vary")?.toLowerCase()).toBe("origin, authorization, accept");
    const anonymous = await cacheControlOf(graphqlGet(capped, `{ restaurants { totalCount } }`));
    expect(anonymous.body).toContain("UNAUTHENTICATED");
    expect(anonymous.cacheControl).toBe("no-store");
    const rest = await capped.fetch("/restaurants");
    expect(rest.status).toBe(401);
    expect(rest.headers.get("cache-control")).toBe("no-store");
  });
});

describe("settings and the schema's own checks", () => {
  it("HTTP_CACHE_MAX_AGE takes whole seconds as a duration; anything else stops start-up naming it", () => {
    expect(loadConfig({}).httpCacheMaxAgeSeconds).toBe(60);
    expect(loadConfig({ HTTP_CACHE_MAX_AGE: "5m" }).httpCacheMaxAgeSeconds).toBe(300);
    expect(loadConfig({ HTTP_CACHE_MAX_AGE: "0" }).httpCacheMaxAgeSeconds).toBe(0);
    for (const bad of ["1500ms", "soon", "-1"]) {
      let error: unknown;
      try {
        loadConfig({ HTTP_CACHE_MAX_AGE: bad });
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join("\n")).toContain("HTTP_CACHE_MAX_AGE");
    }
  });

  it("refuses to start when a @selfOrAdmin field could be cached", () => {
    const sdl = readFileSync(SCHEMA_PATH, "utf8");
    const hinted = "role: Role @selfOrAdmin @cacheControl(maxAge: 0, scope: PRIVATE)";
    expect(sdl).toContain(hinted);
    const schema = makeExecutableSchema({ typeDefs: sdl.replace(hinted, "role: Role @selfOrAdmin") });
    expect(() => cachePolicies(schema, 60)).toThrow("User.role is @selfOrAdmin");
    expect(() => cachePolicies(makeExecutableSchema({ typeDefs: sdl }), 60)).not.toThrow();
  });
});
