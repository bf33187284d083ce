// Logs and metrics through the real server: request ids, one summary line per request, no
// secrets in logs; /metrics in Prometheus text format, counting requests, protected by setting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricValue } from "../helpers/live.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** Each sample line of the Prometheus text format: name{labels} value. */
const SAMPLE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? -?(\d+(\.\d+)?(e[+-]?\d+)?|NaN|\+Inf|-Inf)$/;

function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    expect(line).toMatch(SAMPLE);
    const at = line.lastIndexOf(" ");
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

describe("logs", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ LOG_LEVEL: "info" });
  });
  afterAll(async () => s?.close());

  const lines = () => s.logs.map((l) => JSON.parse(l));

  it("echo the caller's x-request-id, or make one, and log it with route, status and duration", async () => {
    const res = await s.fetch("/healthz", { headers: { "x-request-id": "trace-42" } });
    expect(res.headers.get("x-request-id")).toBe("trace-42");
    const made = await s.fetch("/healthz", { headers: { "x-request-id": "bad id with spaces" } });
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const line = lines().find((l) => l.reqId === "trace-42");
    expect(line).toMatchObject({ route: "/healthz", status: 200, method: "GET", msg: "request completed" });
    expect(typeof line.durationMs).toBe("number");
  });

  it("name the GraphQL operation", async () => {
    await s.fetch("/graphql", {
      method: "POST",
      headers: { "x-request-id": "op-1" },
      json: { query: "query WhoAmI { me { id } }" },
    });
    expect(lines().find((l) => l.reqId === "op-1")).toMatchObject({ route: "/graphql", operation: "WhoAmI" });
  });

  it("never contain passwords or tokens", async () => {
    const password = "very-secret-password-77";
    const res = await s.fetch("/users", { method: "POST", json: { username: "logged", password, first_name: "L" } });
    const { access_token: token } = (await res.json()) as any;
    await s.fetch(`/graphql?access_token=${token}`, { method: "POST", json: { query: "{ me { id } }" } });
    await s.fetch("/graphql", { method: "POST", token, json: { query: "{ me { id } }" } });
    await s.fetch("/auth/token", { method: "POST", json: { username: "logged", password } });
    const all = s.logs.join("\n");
    expect(all).toContain("/users"); // the requests were logged...
    expect(all).not.toContain(password); // ...without their secrets
    expect(all).not.toContain(token);
  });
});

describe("metrics", () => {
  let s: TestServer;
  let locked: TestServer;
  let off: TestServer;
  beforeAll(async () => {
    s = await startServer();
    locked = await startServer({ METRICS_TOKEN: "metrics-secret-0123456789" });
    off = await startServer({ METRICS_ENABLED: "false" });
  });
  afterAll(async () => Promise.all([s?.close(), locked?.close(), off?.close()]));

  it("serve Prometheus text that counts requests by route and status, errors by code, and SQL time", async () => {
    const key = 'http_requests_total{method="GET",route="/healthz",operation="",status="200"}';
    const before = parsePrometheus(await (await s.fetch("/metrics")).text()).get(key) ?? 0;
    for (let i = 0; i < 3; i++) await s.fetch("/healthz");
    await s.graphql("{ me { id } }"); // UNAUTHENTICATED
    await s.signUp("m"); // runs SQL
    const res = await s.fetch("/metrics");
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const samples = parsePrometheus(await res.text());
    expect(samples.get(key)).toBe(before + 3);
    expect(samples.get('api_errors_total{code="UNAUTHENTICATED"}')).toBeGreaterThanOrEqual(1);
    expect([...samples.keys()].some((k) => k.startsWith('db_statement_duration_seconds_count{kind="insert"}'))).toBe(
      true,
    );
    expect(samples.has("process_resident_memory_bytes")).toBe(true);
  });

  it("count each error under the code its answer carried, on every face (one table: src/contract/error-codes.ts)", async () => {
    const count = (code: string) => metricValue(s, "api_errors_total", { code });
    const [badInput, badRequest, notFound] = await Promise.all(
      ["BAD_USER_INPUT", "BAD_REQUEST", "NOT_FOUND"].map(count),
    );
    const user = await s.signUp("codes");
    // REST: an invalid field is BAD_USER_INPUT in the body, and so in the metrics (a 400 either way).
    const invalid = await s.fetch("/restaurants?limit=0", { token: user.token });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).error.code).toBe("BAD_USER_INPUT");
    // A body that is not JSON is BAD_REQUEST, in the body and in the metrics.
    const notJson = await s.fetch("/users", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect((await notJson.json()).error.code).toBe("BAD_REQUEST");
    expect((await s.fetch("/no-such-path")).status).toBe(404);
    expect(await count("BAD_USER_INPUT")).toBe(badInput + 1);
    expect(await count("BAD_REQUEST")).toBe(badRequest + 1);
    expect(await count("NOT_FOUND")).toBe(notFound + 1);
  });

  it("want the token when METRICS_TOKEN is set, and are gone when disabled", async () => {
    expect((await locked.fetch("/metrics")).status).toBe(401);
    expect((await locked.fetch("/metrics", { token: "wrong-token-000000000000" })).status).toBe(401);
    expect((await locked.fetch("/metrics", { token: "metrics-secret-0123456789" })).status).toBe(200);
    expect((await off.fetch("/metrics")).status).toBe(404);
  });
});
