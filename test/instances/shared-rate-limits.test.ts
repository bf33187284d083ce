// Several instances as one (issue 17): with REDIS_URL, rate-limit counts are shared through Redis,
// so RATE_LIMIT_MAX holds across instances. While Redis is unreachable every instance counts for
// itself (fail open to per-instance limits): no 5xx, no request waiting on Redis, /readyz still
// 200 and saying so, a warning and a metric. Once Redis is back, counts are shared again.
// Two servers in one process over one database (SQLite file or PostgreSQL) and one private redis-server.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { redisServerInstalled, startRedis, type TestRedis } from "../helpers/redis.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const ME = "{ me { id } }";
/** No request may wait on Redis: each answers within this, whatever Redis does (a hang fails the test). */
const ANSWER_WITHIN_MS = 5000;

const meStatus = async (s: TestServer, token: string) =>
  (
    await s.fetch("/graphql", {
      method: "POST",
      token,
      json: { query: ME },
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    })
  ).status;

/** Polls until `check` holds (bounded). */
async function eventually(check: () => Promise<boolean>, what: string, limitMs = 10_000) {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not within ${limitMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function readiness(s: TestServer) {
  const res = await s.fetch("/readyz", { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

const metric = async (s: TestServer, name: string) => {
  const text = await (await s.fetch("/metrics")).text();
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
};

describe.skipIf(!redisServerInstalled)(
  "rate limits shared through Redis (needs redis-server on PATH; .ci/run installs it)",
  () => {
    let redis: TestRedis;
    let a: TestServer;
    let b: TestServer;
    const env = () => ({ REDIS_URL: redis.url, RATE_LIMIT_MAX: "10", RATE_LIMIT_WINDOW: "1m", LOG_LEVEL: "info" });

    beforeAll(async () => {
      redis = await startRedis();
      a = await startServer(env());
      b = await startServer(env(), { alongside: a });
      await eventually(
        async () => (await readiness(a)).body.redis === "ok" && (await readiness(b)).body.redis === "ok",
        "both instances reach Redis",
      );
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
      await redis?.close();
    });

    it("RATE_LIMIT_MAX=10: the 11th request across both instances gets 429", async () => {
      const { token } = await a.signUp("shared");
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push(await meStatus(i % 2 ? b : a, token));
      expect(statuses).toEqual([...Array(10).fill(200), 429]);
      // Both instances see the same bucket now.
      expect(await meStatus(a, token)).toBe(429);
    });

    it("/readyz names Redis without depending on it; /metrics says it is reachable", async () => {
      expect(await readiness(a)).toEqual({ status: 200, body: expect.objectContaining({ status: "ok", redis: "ok" }) });
      expect(await metric(a, "redis_reachable")).toBe(1);
    });

    it("while Redis is down: per-instance limits, no 5xx, no waiting, ready with a warning; shared again once it returns", async () => {
      const before = await metric(a, "rate_limit_local_counts_total");
      const logsBefore = a.logs.length; // an earlier hiccup is another outage, with its own warning
      await redis.stop();
      try {
        await eventually(async () => (await readiness(a)).body.redis === "unreachable", "instance A notices");

        // Each instance counts for itself: 10 on A and 10 more on B pass, the 11th on A is refused.
        const { token } = await b.signUp("outage");
        const onA: number[] = [];
        const onB: number[] = [];
        for (let i = 0; i < 10; i++) {
          onA.push(await meStatus(a, token));
          onB.push(await meStatus(b, token));
        }
        expect(onA).toEqual(Array(10).fill(200));
        expect(onB).toEqual(Array(10).fill(200));
        expect(await meStatus(a, token)).toBe(429);

        expect(await readiness(a)).toEqual({
          status: 200,
          body: expect.objectContaining({ status: "ok", redis: "unreachable" }),
        });
        expect(await metric(a, "redis_reachable")).toBe(0);
        expect(await metric(a, "rate_limit_local_counts_total")).toBeGreaterThan(before);
        const warnings = a.logs
          .slice(logsBefore)
          .map((l) => JSON.parse(l))
          .filter((l) => l.level === 40 && /Redis unreachable: rate limits/.test(l.msg));
        expect(warnings).toHaveLength(1); // one per outage, not one per reconnect attempt (the event bus's connections warn for themselves)
      } finally {
        await redis.start(); // also when an assertion failed: the tests after this one need it
      }
      await eventually(
        async () => (await readiness(a)).body.redis === "ok" && (await readiness(b)).body.redis === "ok",
        "both reconnect",
      );
      expect(a.logs.some((l) => /Redis reachable again/.test(JSON.parse(l).msg))).toBe(true);

      const { token: fresh } = await a.signUp("after");
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push(await meStatus(i % 2 ? b : a, fresh));
      expect(statuses).toEqual([...Array(10).fill(200), 429]);
    });

    it("a Redis that accepts connections but never answers costs a request its command timeout, not a hang", async () => {
      const { token } = await a.signUp("paused");
      const before = await metric(a, "rate_limit_local_counts_total");
      const client = new Redis(redis.url);
      try {
        // CLIENT PAUSE holds every other client's commands on the server for the given time.
        await client.call("CLIENT", "PAUSE", "3000", "ALL");
        expect(await meStatus(a, token)).toBe(200);
        expect(await meStatus(b, token)).toBe(200);
        expect(await metric(a, "rate_limit_local_counts_total")).toBeGreaterThan(before); // counted here instead
      } finally {
        await client.call("CLIENT", "UNPAUSE").catch(() => {});
        client.disconnect();
      }
    });
  },
);

describe.skipIf(!redisServerInstalled)("Redis unreachable from the start", () => {
  let s: TestServer;
  beforeAll(async () => {
    // Nothing listens there: the instance starts anyway and counts per instance.
    const port = 1 + Math.floor(Math.random() * 1000);
    s = await startServer({ REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_MAX: "3", LOG_LEVEL: "warn" });
  });
  afterAll(async () => s?.close());

  it("starts, answers and limits per instance", async () => {
    const { token } = await s.signUp("nobody");
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push(await meStatus(s, token));
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await readiness(s)).toEqual({
      status: 200,
      body: expect.objectContaining({ status: "ok", redis: "unreachable" }),
    });
  });
});

describe("REDIS_URL", () => {
  it("is optional, and a value that is not a redis:// URL stops start-up naming the variable", () => {
    expect(loadConfig({}).redisUrl).toBeUndefined();
    expect(loadConfig({ REDIS_URL: "rediss://user:pw@cache.internal:6380/2" }).redisUrl).toBe(
      "rediss://user:pw@cache.internal:6380/2",
    );
    for (const bad of ["localhost:6379", "http://cache:6379", "redis://"]) {
      expect(() => loadConfig({ REDIS_URL: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ REDIS_URL: bad })).toThrow(/REDIS_URL=.*redis:\/\/host:6379/);
    }
  });
});
