// POST /graphql for a document validated before skips Apollo's request pipeline when it runs
// clean (src/graphql/transport/direct-answer.ts). What a client sees must not change: the same
// status, media type and bytes as Apollo's answer, for every Accept header clients send; an
// error in any step is answered by Apollo exactly as before, with nothing run or charged twice.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KnownDocuments } from "../../src/graphql/transport/known-documents.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { parse } from "graphql";

type Answer = {
  status: number;
  contentType: string;
  text: string;
  remaining: string | undefined;
  /** What HTTP caches read of it: Cache-Control and ETag. */
  caching: string;
};

/** A request to /graphql with exactly these headers, the raw answer kept. */
function exchange(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode!,
          contentType: String(res.headers["content-type"]),
          text,
          remaining: res.headers["x-ratelimit-remaining"] as string | undefined,
          caching: `${res.headers["cache-control"]} ${res.headers.etag}`,
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** POST /graphql with exactly these headers (JSON unless they say otherwise). */
function post(s: TestServer, body: unknown, headers: Record<string, string | undefined> = {}): Promise<Answer> {
  const set = Object.fromEntries(
    Object.entries({ "content-type": "application/json", ...headers }).filter(([, v]) => v !== undefined),
  ) as Record<string, string>;
  return exchange(`${s.url}/graphql`, "POST", set, JSON.stringify(body));
}

/** GET /graphql with exactly these headers and query-string parameters. */
const get = (s: TestServer, params: Record<string, string>, headers: Record<string, string> = {}) =>
  exchange(`${s.url}/graphql?${new URLSearchParams(params)}`, "GET", headers);

/** graphql_http_answers_total by road, from /metrics. */
async function answers(s: TestServer) {
  const text = await (await s.fetch("/metrics")).text();
  const value = (road: string) =>
    Number(new RegExp(`^graphql_http_answers_total\\{road="${road}"\\} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
  return { direct: value("direct"), apollo: value("apollo") };
}

const ACCEPTS: [string, string | undefined][] = [
  ["no Accept header", undefined],
  ["application/json", "application/json"],
  ["application/graphql-response+json", "application/graphql-response+json"],
  ["Apollo Client 4", "application/graphql-response+json,application/json;q=0.9"],
  ["*/* (curl, fetch)", "*/*"],
];

let s: TestServer;
let token: string;
let restaurantId: string;
beforeAll(async () => {
  s = await startServer({ RATE_LIMIT_MAX: "1000", GRAPHQL_MAX_COST: "500" });
  token = (await s.signUp("direct")).token;
  const created = await s.graphql(`mutation { createRestaurant(input: { title: "Direct Diner" }) { id } }`, {}, token);
  restaurantId = created.data.createRestaurant.id;
});
afterAll(async () => s?.close());

describe("a document validated before", () => {
  it.each(ACCEPTS)(
    "answers clean reads directly with Apollo's very status, media type and bytes (%s)",
    async (_client, accept) => {
      // A text of its own per case: the first send is the document's first (Apollo), the second its repeat.
      const query = `query Direct { restaurant(id: "${restaurantId}") { id title commentCount } } # ${accept}`;
      const headers = { accept, authorization: `Bearer ${token}` };
      const before = await answers(s);
      const viaApollo = await post(s, { query }, headers);
      const afterFirst = await answers(s);
      const direct = await post(s, { query }, headers);
      const afterSecond = await answers(s);
      expect(JSON.parse(viaApollo.text).data.restaurant.title).toBe("Direct Diner");
      expect(afterFirst).toEqual({ direct: before.direct, apollo: before.apollo + 1 });
      expect(afterSecond).toEqual({ direct: before.direct + 1, apollo: before.apollo + 1 });
      expect({ status: direct.status, contentType: direct.contentType, text: direct.text }).toEqual({
        status: viaApollo.status,
        contentType: viaApollo.contentType,
        text: viaApollo.text,
      });
    },
  );

  it.each(ACCEPTS)(
    "answers clean GET queries directly with Apollo's very status, media type and bytes (%s)",
    async (_client, accept) => {
      const query = `query DirectGet { restaurant(id: "${restaurantId}") { id title } } # ${accept}`;
      const headers = { ...(accept ? { accept } : {}), authorization: `Bearer ${token}` };
      const before = await answers(s);
      const viaApollo = await get(s, { query }, headers);
      const direct = await get(s, { query }, headers);
      expect(JSON.parse(viaApollo.text).data.restaurant.title).toBe("Direct Diner");
      expect(await answers(s)).toEqual({ direct: before.direct + 1, apollo: before.apollo + 1 });
      expect(viaApollo.caching).toMatch(/^private, max-age=\d+ "/);
      const { status, contentType, text, caching } = viaApollo;
      expect({
        status: direct.status,
        contentType: direct.contentType,
        text: direct.text,
        caching: direct.caching,
      }).toEqual({ status, contentType, text, caching });
    },
  );

  it("leaves to Apollo a GET that CSRF prevention refuses, a browser's, and a GET mutation: nothing runs", async () => {
    const query = `query CsrfGet { restaurant(id: "${restaurantId}") { id } }`;
    const token_ = `Bearer ${token}`;
    await get(s, { query }, { authorization: token_ });
    const before = await answers(s);
    // Sent with the token as a query parameter: no header a browser must preflight.
    const simple = await get(s, { query, access_token: token });
    expect(simple.status).toBe(400);
    expect(simple.text).toContain("Cross-Site Request Forgery");
    const browser = await get(
      s,
      { query },
      { authorization: token_, accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
    );
    expect(browser.contentType).toMatch(/^text\/html/);
    const mutation = `mutation { createRestaurant(input: { title: "By GET" }) { id } }`;
    await post(s, { query: mutation }, { authorization: token_ }); // known from now on
    const byGet = await get(s, { query: mutation }, { authorization: token_ });
    expect(byGet.status).toBe(405);
    expect(await answers(s)).toEqual({ direct: before.direct, apollo: before.apollo + 4 });
    const titles = await s.graphql(`{ restaurants(first: 100) { nodes { title } } }`, {}, token);
    expect(titles.data.restaurants.nodes.filter((r: { title: string }) => r.title === "By GET")).toHaveLength(1);
  });

  it("leaves uploads' content types, extensions and an operation name the document does not hold to Apollo", async () => {
    const query = `query Named { restaurant(id: "${restaurantId}") { id } }`;
    await post(s, { query }, { authorization: `Bearer ${token}` });
    const before = await answers(s);
    const withExtensions = await post(
      s,
      { query, extensions: { tracing: true } },
      { authorization: `Bearer ${token}` },
    );
    const otherName = await post(s, { query, operationName: "Other" }, { authorization: `Bearer ${token}` });
    const textPlain = await post(s, { query }, { "content-type": "text/plain", authorization: `Bearer ${token}` });
    expect(withExtensions.status).toBe(200);
    expect(JSON.parse(otherName.text).errors[0].message).toContain("Other");
    expect(textPlain.status).toBeGreaterThanOrEqual(400);
    expect(await answers(s)).toEqual({ direct: before.direct, apollo: before.apollo + 3 });
  });

  it("still answers directly for a new Accept header after a client sent many made-up ones", async () => {
    const query = `query Accepts { restaurant(id: "${restaurantId}") { id } }`;
    const headers = (accept: string) => ({ accept, authorization: `Bearer ${token}` });
    await post(s, { query }, headers("application/json"));
    for (let i = 0; i < 100; i++) await post(s, { query }, headers(`application/json, text/x-made-up-${i};q=0.1`));
    const before = await answers(s);
    const fresh = await post(s, { query }, headers("application/graphql-response+json, application/json;q=0.5"));
    expect(fresh.status).toBe(200);
    expect(fresh.contentType).toBe("application/graphql-response+json; charset=utf-8");
    expect(await answers(s)).toEqual({ direct: before.direct + 1, apollo: before.apollo });
  });

  // Each failure first sent while the document is new (Apollo's answer), then again once it is known.
  const FAILURES: [string, string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      "the cost limit",
      "query Costly($n: Int) { restaurants(first: $n) { nodes { comments(first: $n) { nodes { id } } } } }",
      { n: 100 },
      { n: 1 },
    ],
    [
      "variables that do not coerce",
      "query Coerce($n: Int) { restaurants(first: $n) { totalCount } }",
      { n: "ten" },
      { n: 1 },
    ],
    ["a resolver's error", "query Paged($n: Int) { restaurants(first: $n) { totalCount } }", { n: -1 }, { n: 1 }],
  ];
  it.each(FAILURES)("answers %s exactly as Apollo does", async (_what, query, failing, clean) => {
    for (const accept of ["application/json", "application/graphql-response+json"]) {
      const text = `${query} # ${accept}`;
      const headers = { accept, authorization: `Bearer ${token}` };
      const first = await post(s, { query: text, variables: failing }, headers);
      expect(first.text).toContain('"errors"');
      expect((await post(s, { query: text, variables: clean }, headers)).status).toBe(200); // now known
      const again = await post(s, { query: text, variables: failing }, headers);
      expect({ status: again.status, contentType: again.contentType, text: again.text }).toEqual({
        status: first.status,
        contentType: first.contentType,
        text: first.text,
      });
    }
  });

  it("runs a mutation that fails half-way once and charges it once", async () => {
    const query = `mutation Two($r: ID!, $second: Int!) {
      a: addComment(restaurantId: $r, input: { title: "First", body: "Kept", rating: 5 }) { id }
      b: addComment(restaurantId: $r, input: { title: "Second", body: "Refused?", rating: $second }) { id }
    }`;
    const headers = { authorization: `Bearer ${token}` };
    const count = async () =>
      (await s.graphql(`query { restaurant(id: "${restaurantId}") { commentCount } }`, {}, token)).data.restaurant
        .commentCount as number;
    expect((await post(s, { query, variables: { r: restaurantId, second: 4 } }, headers)).status).toBe(200); // known now
    const comments = await count();
    const probe = async () => Number((await post(s, { query: "{ __typename }" }, headers)).remaining);
    const remainingBefore = await probe();
    const failed = await post(s, { query, variables: { r: restaurantId, second: 9 } }, headers);
    const remainingAfter = await probe();
    const body = JSON.parse(failed.text);
    expect(body.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    expect(body.data).toBeNull(); // b is non-null: its error nulls the whole answer, a's write stands
    expect(await count()).toBe(comments + 1);
    // The failed request: 1 on arrival + 1 for its second @expensive field; then the probe's own 1.
    expect(remainingBefore - remainingAfter).toBe(3);
  });
});

describe("the known documents", () => {
  it("keeps at most the bound's worth of text, evicting the oldest first", () => {
    const known = new KnownDocuments(100, 60);
    const doc = parse("{ __typename }");
    known.remember("a".repeat(40), doc);
    known.remember("b".repeat(40), doc);
    known.remember("c".repeat(70), doc); // longer than one text may be
    expect(known.size).toBe(2);
    known.remember("d".repeat(40), doc); // 120 > 100: "a..." goes
    expect(known.get("a".repeat(40))).toBeUndefined();
    expect(known.get("b".repeat(40))).toBe(doc);
    expect(known.get("d".repeat(40))).toBe(doc);
  });
});
