// HTTP-level limits at their boundaries: rate limit per token / per address, body size,
// security headers, CORS.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const ME = `{ me { username } }`;

describe("rate limit", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ RATE_LIMIT_MAX: "5", RATE_LIMIT_WINDOW: "1m", RATE_LIMIT_ADDRESS_FACTOR: "2" });
  });
  afterAll(async () => s?.close());

  it("allows max requests per token, then answers 429 with Retry-After (REST) and RATE_LIMITED (GraphQL)", async () => {
    const res = await s.fetch("/users", {
      method: "POST",
      json: { username: "limited", password: "password-1", first_name: "L" },
    });
    const { access_token: token } = (await res.json()) as any;
    for (let i = 0; i < 5; i++)
      expect((await s.fetch("/graphql", { method: "POST", token, json: { query: ME } })).status).toBe(200);

    const overGraphql = await s.fetch("/graphql", { method: "POST", token, json: { query: ME } });
    expect(overGraphql.status).toBe(429);
    expect(Number(overGraphql.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = (await overGraphql.json()) as any;
    expect(body.errors[0].extensions.code).toBe("RATE_LIMITED");

    const overRest = await s.fetch("/auth/token", { method: "DELETE", token });
    expect(overRest.status).toBe(429);
    expect(((await overRest.json()) as any).error.code).toBe("RATE_LIMITED");
    // The refused logout changed nothing: the token still works once the window allows (checked in the DB).
    const row = await s.db.prisma.accessToken.findFirstOrThrow({ where: { user: { username: "limited" } } });
    expect(row.revokedAt).toBeNull();
  });

  it("counts requests without a token by address, apart from tokens; health checks are exempt", async () => {
    for (let i = 0; i < 10; i++) expect((await s.fetch("/healthz")).status).toBe(200);
    // The address's bucket: the sign-up in the test above used 1 of its 5 requests.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await s.fetch("/graphql", { method: "POST", json: { query: "{ __typename }" } })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    // A token (however obtained) has a bucket of its own.
    const res = await s.fetch("/graphql", { method: "POST", token: "some-token", json: { query: "{ __typename }" } });
    expect(res.status).toBe(200);
  });
});

describe("rate limit per address", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ RATE_LIMIT_MAX: "5", RATE_LIMIT_WINDOW: "1m", RATE_LIMIT_ADDRESS_FACTOR: "2" });
  });
  afterAll(async () => s?.close());

  it("caps one address however many made-up tokens it sends (RATE_LIMIT_ADDRESS_FACTOR x max)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await s.fetch("/auth/token", {
        method: "POST",
        token: `made-up-${i}`,
        json: { username: "limited", password: "guess" },
      });
      statuses.push(res.status);
    }
    // 10 = 5 x 2 requests pass (and fail the login: 401), the rest are refused before any work.
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
  });
});

describe("body size", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ BODY_LIMIT_BYTES: "4096" });
  });
  afterAll(async () => s?.close());

  const bodyOfSize = (size: number) => {
    const base = JSON.stringify({ username: "sizer", password: "password-1", first_name: "" });
    return JSON.stringify({ username: "sizer", password: "password-1", first_name: "x".repeat(size - base.length) });
  };

  it("accepts a JSON body at the limit and refuses one byte over with 413, creating nothing", async () => {
    const over = await s.fetch("/users", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bodyOfSize(4097),
    });
    expect(over.status).toBe(413);
    expect(((await over.json()) as any).error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await s.db.prisma.user.count()).toBe(0);

    const at = await s.fetch("/users", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bodyOfSize(4096),
    });
    // Accepted by the HTTP layer; the domain then refuses a 4 KB first name (max 100) with 400.
    expect(at.status).toBe(400);
    expect(((await at.json()) as any).error.code).toBe("BAD_USER_INPUT");
  });

  it("answers an oversized GraphQL request in GraphQL's shape", async () => {
    const res = await s.fetch("/graphql", {
      method: "POST",
      json: { query: `{ __typename }`, variables: { pad: "x".repeat(5000) } },
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).errors[0].extensions.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("headers", () => {
  let s: TestServer;
  let withCors: TestServer;
  beforeAll(async () => {
    s = await startServer();
    withCors = await startServer({ CORS_ORIGINS: "https://app.example" });
  });
  afterAll(async () => {
    await s?.close();
    await withCors?.close();
  });

  it("sends security headers and no X-Powered-By", async () => {
    const res = await s.fetch("/healthz");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBeTruthy();
    expect(res.headers.get("x-powered-by")).toBeNull();
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("has CORS off by default and on for configured origins only", async () => {
    const origin = { origin: "https://app.example" };
    expect((await s.fetch("/healthz", { headers: origin })).headers.get("access-control-allow-origin")).toBeNull();
    expect((await withCors.fetch("/healthz", { headers: origin })).headers.get("access-control-allow-origin")).toBe(
      "https://app.example",
    );
    const stranger = await withCors.fetch("/healthz", { headers: { origin: "https://evil.example" } });
    expect(stranger.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("behind a proxy (TRUST_PROXY)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ RATE_LIMIT_MAX: "2", TRUST_PROXY: "127.0.0.1" });
  });
  afterAll(async () => s?.close());

  it("counts each forwarded client address on its own", async () => {
    const from = (ip: string) =>
      s.fetch("/graphql", { method: "POST", headers: { "x-forwarded-for": ip }, json: { query: "{ __typename }" } });
    expect([
      (await from("203.0.113.1")).status,
      (await from("203.0.113.1")).status,
      (await from("203.0.113.1")).status,
    ]).toEqual([200, 200, 429]);
    expect((await from("203.0.113.2")).status).toBe(200);
  });
});
