// HTTP caching behind a real cache (issue 42): Debian's nginx with proxy_cache in front of two
// instances sharing one database, configured with the very block docs/http-caching.md gives, and
// once more with a bare proxy_cache (no bypass for tokens) to show the service's headers alone
// keep private answers out of a shared cache. What reaches the service is read from each
// instance's /metrics: an answer nginx serves from its cache costs the service nothing.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricSum, parseCounters } from "../../bench/prometheus.ts";
import { documentedNginxBlock, nginxInstalled, startNginx, type TestNginx } from "../helpers/nginx.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** proxy_cache and nothing else: no bypass for requests with a token. */
function bareBlock(dir: string, port: number, upstreams: TestServer[], zone: string): string {
  return `
  proxy_cache_path ${dir}/cache-${zone} levels=1:2 keys_zone=${zone}:1m;
  upstream ${zone} { ${upstreams.map((s) => `server ${new URL(s.url).host};`).join(" ")} }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://${zone};
      proxy_cache ${zone};
      add_header X-Upstream $upstream_addr always;
      add_header X-Cache-Status $upstream_cache_status always;
    }
  }`;
}

const hosts = (...servers: TestServer[]) => servers.map((s) => new URL(s.url).host);

/** Requests the instances answered so far (their /metrics, scrapes left out). */
async function served(...servers: TestServer[]): Promise<number> {
  let total = 0;
  for (const s of servers) total += parseCounters(await (await s.fetch("/metrics")).text()).requests;
  return total;
}

type Answer = {
  status: number;
  cache: string | null;
  cacheControl: string | null;
  upstream: string | null;
  body: string;
};

async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, { headers });
  return {
    status: res.status,
    cache: res.headers.get("x-cache-status"),
    cacheControl: res.headers.get("cache-control"),
    upstream: res.headers.get("x-upstream"),
    body: await res.text(),
  };
}

const PREFLIGHT = { "apollo-require-preflight": "true" };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const graphqlPath = (query: string, variables?: Record<string, unknown>) =>
  `/graphql?${new URLSearchParams({ query, ...(variables ? { variables: JSON.stringify(variables) } : {}) })}`;

describe.skipIf(!nginxInstalled)("nginx with proxy_cache in front of two instances", () => {
  let a: TestServer; // ANONYMOUS_READS=true, answers kept 60 s
  let b: TestServer;
  let shortA: TestServer; // the same, HTTP_CACHE_MAX_AGE=2s: entries run out during the test
  let shortB: TestServer;
  let signIn: TestServer; // ANONYMOUS_READS=false: every read needs a token
  let nginx: TestNginx;
  let documented: string;
  let bare: string;
  let documentedShort: string;
  let documentedSignIn: string;
  let bareSignIn: string;
  let owner: { token: string; id: string };
  let other: { token: string; id: string };
  let restaurantId: string;

  beforeAll(async () => {
    a = await startServer({ ANONYMOUS_READS: "true" });
    b = await startServer({ ANONYMOUS_READS: "true" }, { alongside: a });
    shortA = await startServer({ ANONYMOUS_READS: "true", HTTP_CACHE_MAX_AGE: "2s" }, { alongside: a });
    shortB = await startServer({ ANONYMOUS_READS: "true", HTTP_CACHE_MAX_AGE: "2s" }, { alongside: a });
    signIn = await startServer({}, { alongside: a });
    nginx = await startNginx(5, (dir, ports) =>
      [
        documentedNginxBlock(dir, ports[0], hosts(a, b), "documented"),
        bareBlock(dir, ports[1], [a, b], "bare"),
        documentedNginxBlock(dir, ports[2], hosts(shortA, shortB), "short"),
        documentedNginxBlock(dir, ports[3], hosts(signIn), "signin"),
        bareBlock(dir, ports[4], [signIn], "baresignin"),
      ].join("\n"),
    );
    [documented, bare, documentedShort, documentedSignIn, bareSignIn] = nginx.urls;
    owner = await a.signUp("owner");
    other = await a.signUp("other");
    const created = await a.graphql(
      `mutation { createRestaurant(input: { title: "Behind nginx", address: { city: "Braga" } }) { id } }`,
      {},
      owner.token,
    );
    restaurantId = created.data.createRestaurant.id;
  }, 120_000);
  afterAll(async () => {
    await nginx?.close();
    for (const s of [signIn, shortB, shortA, b, a]) await s?.close();
  });

  const READ = `query Read($id: ID!) { restaurant(id: $id) { title owner { firstName } comments(first: 5) { nodes { title } } } }`;

  it("the second anonymous GET is a hit, and nginx's hits cost the service nothing (text, persisted hash, REST)", async () => {
    const hash = createHash("sha256").update(READ).digest("hex");
    const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } });
    const variables = JSON.stringify({ id: restaurantId });
    // Register the hash on both instances (each keeps its own today); nginx will send either.
    for (const s of [a, b])
      expect(
        (
          await s.fetch(`/graphql?${new URLSearchParams({ query: READ, variables, extensions })}`, {
            headers: PREFLIGHT,
          })
        ).status,
      ).toBe(200);
    const reads = [
      graphqlPath(READ, { id: restaurantId }),
      `/graphql?${new URLSearchParams({ operationName: "Read", variables, extensions })}`,
      `/restaurants/${restaurantId}`,
      `/v1/restaurants/${restaurantId}/comments`,
    ];
    for (const path of reads) {
      const first = await get(documented + path, PREFLIGHT);
      expect(first.status, `${path}: ${first.body}`).toBe(200);
      expect(first.cacheControl, path).toBe("public, max-age=60");
      expect(first.cache, path).toBe("MISS");
      const before = await served(a, b);
      for (let i = 0; i < 10; i++) {
        const again = await get(documented + path, PREFLIGHT);
        expect(again.cache, path).toBe("HIT");
        expect(again.body, path).toBe(first.body);
      }
      expect(await served(a, b), `${path}: requests that reached the service during 10 hits`).toBe(before);
    }
  });

  it("after updateRestaurant through the other instance, the stored answer stops being served within its max-age", async () => {
    const { id } = (
      await shortA.graphql(`mutation { createRestaurant(input: { title: "Old title" }) { id } }`, {}, owner.token)
    ).data.createRestaurant;
    const path = graphqlPath(`query Title($id: ID!) { restaurant(id: $id) { title } }`, { id });
    const stored = await get(documentedShort + path, PREFLIGHT);
    const storedBy = Date.now(); // nginx stored it before this (its clock counts in whole seconds)
    expect(stored.cache).toBe("MISS");
    expect(stored.cacheControl).toBe("public, max-age=2");
    expect(stored.body).toContain("Old title");
    const maxAgeMs = 2_000;
    // Through the instance that did not answer.
    const writer = stored.upstream === new URL(shortA.url).host ? shortB : shortA;
    expect(stored.upstream).toMatch(/^127\.0\.0\.1:\d+$/);
    const updated = await writer.graphql(
      `mutation($id: ID!) { updateRestaurant(id: $id, input: { title: "New title" }) { title } }`,
      { id },
      owner.token,
    );
    expect(updated.data?.updateRestaurant.title).toBe("New title");
    let fresh: Answer | undefined;
    const stale: number[] = [];
    for (const deadline = Date.now() + 60_000; !fresh && Date.now() < deadline;) {
      const sentAt = Date.now();
      const answer = await get(documentedShort + path, PREFLIGHT);
      if (answer.body.includes("New title")) fresh = answer;
      else {
        expect(answer.cache, answer.body).toBe("HIT"); // the old title only ever comes from the cache
        stale.push(sentAt - storedBy);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(fresh, "the new title never came through nginx").toBeDefined();
    expect(["EXPIRED", "MISS"]).toContain(fresh!.cache);
    // Every old answer was asked for before the entry's max-age ran out (+1 s: nginx's clock has seconds).
    for (const age of stale) expect(age).toBeLessThan(maxAgeMs + 1_000);
  });

  it("a stale entry whose data did not change is revalidated: the service answers 304 and nginx keeps its copy", async () => {
    const path = `/restaurants/${restaurantId}`;
    const stored = await get(documentedShort + path);
    expect(["MISS", "EXPIRED", "REVALIDATED", "HIT"]).toContain(stored.cache);
    await new Promise((resolve) => setTimeout(resolve, 3_500)); // past max-age=2 and nginx's second
    const count304 = async () => {
      let total = 0;
      for (const s of [shortA, shortB])
        total += metricSum(await (await s.fetch("/metrics")).text(), "http_requests_total", 'status="304"') ?? 0;
      return total;
    };
    const before = await count304();
    const again = await get(documentedShort + path);
    expect(again.cache).toBe("REVALIDATED");
    expect(again.status).toBe(200);
    expect(again.body).toBe(stored.body);
    expect(await count304()).toBe(before + 1);
  });

  it("a conditional request that misses still stores the whole answer (nginx asks the service without If-None-Match)", async () => {
    const path = `/groceries?title=conditional`;
    const direct = await a.fetch(path);
    const etag = direct.headers.get("etag")!;
    const body = await direct.text();
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const conditional = await fetch(documented + path, { headers: { "if-none-match": etag } });
    expect(conditional.headers.get("x-cache-status")).toBe("MISS");
    expect(conditional.status).toBe(304);
    const next = await get(documented + path);
    expect(next.cache).toBe("HIT");
    expect(next.status).toBe(200);
    expect(next.body).toBe(body);
  });

  it("garbage in If-None-Match through nginx gets the whole answer", async () => {
    const path = `/restaurants/${restaurantId}`;
    const first = await get(documented + path);
    for (const garbage of ["garbage", '"', "W/", '"x", ,']) {
      const answer = await get(documented + path, { "if-none-match": garbage });
      expect(answer.status, garbage).toBe(200);
      expect(answer.body).toBe(first.body);
    }
  });

  describe.each([
    ["the documented configuration", () => documented],
    ["a bare proxy_cache (no bypass for tokens)", () => bare],
  ])("private answers never come out of nginx for another viewer: %s", (_name, url) => {
    it("me, viewerCanEdit and a user's role: each viewer gets their own, every time", async () => {
      type Viewer = { id: string } | null;
      const cases: { path: string; expected: (who: Viewer) => string }[] = [
        {
          path: graphqlPath(`{ me { id } }`),
          expected: (who) => (who ? `"me":{"id":"${who.id}"}` : "UNAUTHENTICATED"),
        },
        {
          path: graphqlPath(`query E($id: ID!) { restaurant(id: $id) { viewerCanEdit } }`, { id: restaurantId }),
          expected: (who) => `"viewerCanEdit":${who?.id === owner.id}`,
        },
        {
          path: graphqlPath(`query R($u: ID!) { user(id: $u) { role } }`, { u: owner.id }),
          expected: (who) => (!who ? "UNAUTHENTICATED" : who.id === owner.id ? `"role":"USER"` : `"role":null`),
        },
      ];
      for (const { path, expected } of cases) {
        for (let round = 0; round < 3; round++) {
          for (const who of [owner, other, null]) {
            const answer = await get(url() + path, who ? bearer(who.token) : PREFLIGHT);
            expect(answer.cacheControl, path).toBe("no-store");
            expect(answer.cache, path).not.toBe("HIT");
            expect(answer.body, path).toContain(expected(who));
          }
        }
      }
    });

    it("a stored public answer is not served to a request with an invalid token: it gets its 401", async () => {
      const path = `/restaurants/${restaurantId}`;
      await get(url() + path);
      expect((await get(url() + path)).cache).toBe("HIT");
      const refused = await get(url() + path, bearer("revoked-or-made-up"));
      expect(refused.status).toBe(401);
      expect(refused.cache).not.toBe("HIT");
      const graphql = graphqlPath(READ, { id: restaurantId });
      await get(url() + graphql, PREFLIGHT);
      expect((await get(url() + graphql, PREFLIGHT)).cache).toBe("HIT");
      const refusedGraphql = await get(url() + graphql, { ...PREFLIGHT, ...bearer("revoked-or-made-up") });
      expect(refusedGraphql.body).toContain("UNAUTHENTICATED");
      expect(refusedGraphql.cache).not.toBe("HIT");
    });
  });

  describe.each([
    ["the documented configuration", () => documentedSignIn],
    ["a bare proxy_cache (no bypass for tokens)", () => bareSignIn],
  ])("without ANONYMOUS_READS a shared cache is no way around sign-in: %s", (_name, url) => {
    it("what a signed-in reader got (header or access_token) is never served to a request without a valid token", async () => {
      const paths = [
        graphqlPath(READ, { id: restaurantId }),
        `/restaurants/${restaurantId}`,
        `/restaurants?limit=5`,
        `/groceries`,
      ];
      for (const path of paths) {
        for (let round = 0; round < 3; round++) {
          const signedIn = await get(url() + path, { ...PREFLIGHT, ...bearer(owner.token) });
          expect(signedIn.status, `${path}: ${signedIn.body}`).toBe(200);
          expect(signedIn.cacheControl, path).toMatch(/^private, max-age=\d+$/);
          const inUrl = await get(
            `${url()}${path}${path.includes("?") ? "&" : "?"}access_token=${owner.token}`,
            PREFLIGHT,
          );
          expect(inUrl.status, path).toBe(200);
          expect(inUrl.cacheControl, path).toMatch(/^private, max-age=\d+$/);
        }
        for (const headers of [PREFLIGHT, { ...PREFLIGHT, ...bearer("made-up") }]) {
          const anonymous = await get(url() + path, headers);
          expect(anonymous.cache, path).not.toBe("HIT");
          if (path.startsWith("/graphql")) expect(anonymous.body, path).toContain("UNAUTHENTICATED");
          else expect(anonymous.status, path).toBe(401);
          expect(anonymous.body).not.toContain("Behind nginx");
        }
      }
    });
  });
});
