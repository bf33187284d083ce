// Automatic persisted queries (issue 42 item 2): Apollo Client 4's persisted-queries link and
// urql's persisted exchange, as they are, against the real server, on POST and GET; a hash one
// instance registered is served by another through REDIS_URL; a wrong hash, a malformed one and a
// persisted GET carrying a mutation are refused with nothing run or kept; and a client registering
// texts in a flood spends its own allowance, not everybody else's place in the store.
import { createHash } from "node:crypto";
import { ApolloClient, ApolloLink, gql, HttpLink, InMemoryCache } from "@apollo/client";
import { PersistedQueryLink } from "@apollo/client/link/persisted-queries";
import { cacheExchange, createClient, fetchExchange } from "@urql/core";
import { persistedExchange } from "@urql/exchange-persisted";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisServerInstalled, startRedis, type TestRedis } from "../helpers/redis.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const persisted = (text: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(text) } });

/** What a client sent: method, and whether the text went along. */
type Sent = { method: string; withText: boolean };

/** fetch that records what each request carried. */
function recording(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const method = init?.method ?? "GET";
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : {};
    sent.push({ method, withText: method === "GET" ? url.searchParams.has("query") : typeof body.query === "string" });
    return fetch(input, init);
  };
}

/** A hash-only request, as a client sends it once the server knows the text. */
async function byHash(s: TestServer, text: string, token: string, method: "GET" | "POST" = "POST") {
  const extensions = persisted(text);
  const res =
    method === "POST"
      ? await s.fetch("/graphql", { method, token, json: { extensions } })
      : await s.fetch(`/graphql?extensions=${encodeURIComponent(JSON.stringify(extensions))}`, { token });
  return { status: res.status, body: (await res.json()) as { data?: any; errors?: any[] } };
}

const codeOf = (body: { errors?: { extensions?: { code?: string } }[] }) => body.errors?.[0]?.extensions?.code;

describe("automatic persisted queries", () => {
  let s: TestServer;
  let user: { token: string; username: string };
  let restaurantId: string;

  beforeAll(async () => {
    s = await startServer();
    user = await s.signUp("apq");
    const created = await s.graphql(
      `mutation { createRestaurant(input: { title: "Persisted Place" }) { id } }`,
      {},
      user.token,
    );
    restaurantId = created.data.createRestaurant.id;
  });
  afterAll(async () => s?.close());

  const headers = () => ({ authorization: `Bearer ${user.token}` });

  describe("Apollo Client's persisted-queries link", () => {
    const client = (sent: Sent[], useGETForHashedQueries: boolean) =>
      new ApolloClient({
        link: ApolloLink.from([
          new PersistedQueryLink({ sha256, useGETForHashedQueries }),
          new HttpLink({ uri: `${s.url}/graphql`, headers: headers(), fetch: recording(sent) }),
        ]),
        cache: new InMemoryCache(),
      });

    it.each([
      ["POST", false],
      ["GET", true],
    ])("registers the text once, then sends the hash alone (%s)", async (method, useGet) => {
      const query = gql(`query ApolloLink${method} { restaurant(id: "${restaurantId}") { id title } }`);
      const first: Sent[] = [];
      const answered = await client(first, useGet).query({ query });
      expect(answered.data).toEqual({
        restaurant: { __typename: "Restaurant", id: restaurantId, title: "Persisted Place" },
      });
      // The hash alone, not found, then the text with its hash (POST, as the link always retries).
      expect(first).toEqual([
        { method, withText: false },
        { method: "POST", withText: true },
      ]);
      const next: Sent[] = [];
      const again = await client(next, useGet).query<{ restaurant: { title: string } }>({ query });
      expect(again.data?.restaurant.title).toBe("Persisted Place");
      expect(next).toEqual([{ method, withText: false }]);
    });
  });

  describe("urql's persisted exchange", () => {
    const client = (sent: Sent[], preferGetForPersistedQueries: boolean) =>
      createClient({
        url: `${s.url}/graphql`,
        exchanges: [cacheExchange, persistedExchange({ preferGetForPersistedQueries }), fetchExchange],
        fetchOptions: () => ({ headers: headers() }),
        fetch: recording(sent),
        preferGetMethod: false,
      });

    it.each([
      ["POST", false],
      ["GET", true],
    ])("registers the text once, then sends the hash alone (%s)", async (method, preferGet) => {
      const query = `query Urql${method} { restaurant(id: "${restaurantId}") { id title } }`;
      const first: Sent[] = [];
      const answered = await client(first, preferGet).query(query, {}).toPromise();
      expect(answered.error).toBeUndefined();
      expect(answered.data.restaurant.title).toBe("Persisted Place");
      // urql retries on the same method, the text beside the hash.
      expect(first).toEqual([
        { method, withText: false },
        { method, withText: true },
      ]);
      const next: Sent[] = [];
      const again = await client(next, preferGet).query(query, {}).toPromise();
      expect(again.data.restaurant.title).toBe("Persisted Place");
      expect(next).toEqual([{ method, withText: false }]);
    });
  });

  it("answers an unknown hash PersistedQueryNotFound (200, as Apollo Server: the client's cue to send the text), never cached", async () => {
    const unknown = await byHash(s, "query Never { me { id } }", user.token, "GET");
    expect(unknown.status).toBe(200);
    expect(unknown.body.errors).toEqual([
      { message: "PersistedQueryNotFound", extensions: { code: "PERSISTED_QUERY_NOT_FOUND" } },
    ]);
    const res = await s.fetch(`/graphql?extensions=${encodeURIComponent(JSON.stringify(persisted("{ me { id } }")))}`, {
      token: user.token,
    });
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses a hash that is not the text's, and keeps nothing", async () => {
    const text = "query WrongHash { me { username } }";
    const res = await s.fetch("/graphql", {
      method: "POST",
      token: user.token,
      json: { query: text, extensions: persisted("query Other { me { id } }") },
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(codeOf(body)).toBe("BAD_REQUEST");
    expect(body.errors[0].message).toContain("not the SHA-256 of the text");
    expect(body.data).toBeUndefined();
    expect(codeOf((await byHash(s, text, user.token)).body)).toBe("PERSISTED_QUERY_NOT_FOUND");
    expect(codeOf((await byHash(s, "query Other { me { id } }", user.token)).body)).toBe("PERSISTED_QUERY_NOT_FOUND");
  });

  it.each([
    ["not hexadecimal", { version: 1, sha256Hash: "z".repeat(64) }],
    ["too short", { version: 1, sha256Hash: "ab".repeat(16) }],
    ["too long", { version: 1, sha256Hash: "ab".repeat(40) }],
    ["not a string", { version: 1, sha256Hash: 42 }],
    ["another version", { version: 2, sha256Hash: "a".repeat(64) }],
    ["not an object", "abc"],
  ])(
    "refuses a persistedQuery whose hash is %s with a 400 naming the field, on GET and POST",
    async (_, persistedQuery) => {
      const extensions = { persistedQuery };
      const answers = [
        await s.fetch("/graphql", { method: "POST", token: user.token, json: { extensions } }),
        await s.fetch(`/graphql?extensions=${encodeURIComponent(JSON.stringify(extensions))}`, { token: user.token }),
      ];
      for (const res of answers) {
        expect(res.status).toBe(400);
        const body = await res.json();
        expect(codeOf(body)).toBe("BAD_REQUEST");
        expect(body.errors[0].message).toMatch(/extensions\.persistedQuery/);
      }
    },
  );

  it("keeps only texts that were admitted: one that does not validate is refused and not kept", async () => {
    const invalid = "query Invalid { me { nickname } }";
    const res = await s.fetch("/graphql", {
      method: "POST",
      token: user.token,
      json: { query: invalid, extensions: persisted(invalid) },
    });
    expect(codeOf(await res.json())).toBe("BAD_USER_INPUT");
    expect(codeOf((await byHash(s, invalid, user.token)).body)).toBe("PERSISTED_QUERY_NOT_FOUND");
  });

  describe("a persisted GET carrying a mutation", () => {
    const comment = (title: string) =>
      `mutation Comment${title} { addComment(restaurantId: "${restaurantId}", input: { title: "${title}", body: "b", rating: 4 }) { id } }`;
    const comments = async () =>
      (await s.graphql(`{ restaurant(id: "${restaurantId}") { comments(first: 50) { totalCount } } }`, {}, user.token))
        .data.restaurant.comments.totalCount as number;

    it("is refused 405 and runs nothing, whether the hash was registered by POST or comes with its text", async () => {
      const registered = comment("ByPost");
      const viaPost = await s.fetch("/graphql", {
        method: "POST",
        token: user.token,
        json: { query: registered, extensions: persisted(registered) },
      });
      expect(viaPost.status).toBe(200); // a mutation may be persisted, and sent by POST
      const before = await comments();
      const byGet = await byHash(s, registered, user.token, "GET");
      expect(byGet.status).toBe(405);
      expect(byGet.body.errors?.[0].message).toMatch(/GET requests only support query operations, not mutation/);
      const withText = comment("WithText");
      const res = await s.fetch(
        `/graphql?query=${encodeURIComponent(withText)}&extensions=${encodeURIComponent(JSON.stringify(persisted(withText)))}`,
        { token: user.token },
      );
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(await comments()).toBe(before);
      expect(codeOf((await byHash(s, withText, user.token)).body)).toBe("PERSISTED_QUERY_NOT_FOUND");
    });
  });

  it("takes documentId sha256:<hash> for a registered text too, and answers a persisted id's known document directly", async () => {
    const text = `query ById { restaurant(id: "${restaurantId}") { title } }`;
    await s.fetch("/graphql", {
      method: "POST",
      token: user.token,
      json: { query: text, extensions: persisted(text) },
    });
    const answers = async () => {
      const metrics = await (await s.fetch("/metrics")).text();
      return Number(/^graphql_http_answers_total\{road="direct"\} (\S+)$/m.exec(metrics)?.[1] ?? 0);
    };
    const before = await answers();
    for (const request of [
      { documentId: `sha256:${sha256(text)}` },
      { documentId: sha256(text) },
      { extensions: persisted(text) },
    ]) {
      const res = await s.fetch("/graphql", { method: "POST", token: user.token, json: request });
      expect((await res.json()).data).toEqual({ restaurant: { title: "Persisted Place" } });
    }
    const get = await s.fetch(`/graphql?documentId=sha256:${sha256(text)}`, { token: user.token });
    expect((await get.json()).data).toEqual({ restaurant: { title: "Persisted Place" } });
    expect(await answers()).toBe(before + 4);
  });
});

describe("the bounds of the store", () => {
  let s: TestServer;
  let flooder: { token: string };
  let other: { token: string };
  // A client may register 8 KiB of new text an hour (each text counts its bytes plus 256).
  beforeAll(async () => {
    s = await startServer({ APQ_CLIENT_BYTES_PER_HOUR: "8192" });
    flooder = await s.signUp("flood");
    other = await s.signUp("other");
  });
  afterAll(async () => s?.close());

  const register = async (token: string, text: string) => {
    const res = await s.fetch("/graphql", {
      method: "POST",
      token,
      json: { query: text, extensions: persisted(text) },
    });
    return (await res.json()) as { data?: unknown; errors?: unknown[] };
  };
  const distinct = (n: number) => `query Flood${n} { me { id username firstName } }`;

  it("past a client's hourly allowance its texts still run but are not kept; another client's are kept and stay", async () => {
    const kept = "query KeptBefore { me { id } }";
    expect((await register(other.token, kept)).data).toBeDefined();
    for (let n = 0; n < 100; n++) expect((await register(flooder.token, distinct(n))).data).toBeDefined();
    const served = await Promise.all(
      Array.from({ length: 100 }, async (_, n) => codeOf((await byHash(s, distinct(n), flooder.token)).body)),
    );
    const keptCount = served.filter((code) => code === undefined).length;
    // 8192 / (~45 bytes + 256) = 27 texts, the first ones; the rest ran without being kept.
    expect(keptCount).toBeGreaterThan(20);
    expect(keptCount).toBeLessThan(30);
    expect(served.slice(0, keptCount).every((code) => code === undefined)).toBe(true);
    expect((await byHash(s, kept, other.token)).body.data).toEqual({ me: { id: expect.any(String) } });
    const after = "query KeptAfter { me { username } }";
    await register(other.token, after);
    expect(codeOf((await byHash(s, after, other.token)).body)).toBeUndefined();
    // An operator sees the flood in /metrics.
    const metrics = await (await s.fetch("/metrics")).text();
    const count = (outcome: string) =>
      Number(
        new RegExp(`^graphql_persisted_registrations_total\\{outcome="${outcome}"\\} (\\d+)$`, "m").exec(metrics)?.[1],
      );
    expect(count("over-allowance")).toBe(100 - keptCount);
    expect(count("kept")).toBe(keptCount + 2);
  });
});

describe.skipIf(!redisServerInstalled)("shared through Redis (needs redis-server on PATH; .ci/run installs it)", () => {
  let redis: TestRedis;
  let a: TestServer;
  let b: TestServer;
  let token: string;

  beforeAll(async () => {
    redis = await startRedis();
    a = await startServer({ REDIS_URL: redis.url });
    b = await startServer({ REDIS_URL: redis.url }, { alongside: a });
    token = (await a.signUp("shared")).token;
    const until = Date.now() + 10_000;
    while (
      (await (await b.fetch("/readyz")).json()).redis !== "ok" ||
      (await (await a.fetch("/readyz")).json()).redis !== "ok"
    ) {
      if (Date.now() > until) throw new Error("the instances did not reach Redis");
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await redis?.close();
  });

  it("serves on instance B a hash registered on instance A, by GET and POST", async () => {
    const text = "query SharedAcross { me { id } }";
    expect(codeOf((await byHash(b, text, token)).body)).toBe("PERSISTED_QUERY_NOT_FOUND");
    const registered = await a.fetch("/graphql", {
      method: "POST",
      token,
      json: { query: text, extensions: persisted(text) },
    });
    expect((await registered.json()).data).toBeDefined();
    for (const method of ["GET", "POST"] as const) {
      const onB = await byHash(b, text, token, method);
      expect(onB.status).toBe(200);
      expect(onB.body.data).toEqual({ me: { id: expect.any(String) } });
    }
  });

  it("while Redis is away, each instance keeps its own, and answers without waiting", async () => {
    await redis.stop();
    try {
      const text = "query WhileAway { me { username } }";
      const registered = await a.fetch("/graphql", {
        method: "POST",
        token,
        json: { query: text, extensions: persisted(text) },
        signal: AbortSignal.timeout(5000),
      });
      expect((await registered.json()).data).toBeDefined();
      expect((await byHash(a, text, token)).body.data).toBeDefined();
      expect(codeOf((await byHash(b, text, token)).body)).toBe("PERSISTED_QUERY_NOT_FOUND");
    } finally {
      await redis.start();
    }
  });
});
