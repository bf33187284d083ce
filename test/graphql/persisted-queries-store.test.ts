// The store of automatic persisted queries (src/graphql/persisted/persisted-queries.ts) at its
// bounds: each process keeps at most APQ_MEMORY_BYTES, Redis at most APQ_REDIS_BYTES (least
// recently used out first, the byte count kept exact), a client's hourly allowance is counted
// once across instances, a text past the size limit is never kept, and a client flooding the
// store pushes out nobody else's texts. Real Redis (a private redis-server), no server needed.
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENTRY_OVERHEAD, MAX_TEXT_BYTES, PersistedQueries } from "../../src/graphql/persisted/persisted-queries.ts";
import { connectRedis, type SharedRedis } from "../../src/redis/connection.ts";
import { redisServerInstalled, startRedis, type TestRedis } from "../helpers/redis.ts";

const quiet = { warn() {}, info() {} };
/** A text of exactly `bytes` UTF-8 bytes, distinct by `n`. */
const text = (n: number, bytes = 1000) => `query Q${n} { me { id } }`.padEnd(bytes, " ");
const hash = (n: number) => n.toString(16).padStart(64, "0");

describe("in one process", () => {
  it("keeps at most APQ_MEMORY_BYTES, the least recently used out first", async () => {
    const size = 1000 + ENTRY_OVERHEAD;
    const store = new PersistedQueries({ memoryBytes: 20 * size, redisBytes: 0, clientBytesPerHour: 1_000_000 });
    for (let n = 0; n < 10; n++) expect(await store.register(hash(n), text(n), `client:${n}`)).toBe("kept");
    expect(await store.get(hash(0))).toBe(text(0)); // used: now the most recent
    // 19 more: the 9 least recently used go (1 to 9), not 0.
    for (let n = 10; n < 29; n++) await store.register(hash(n), text(n), `client:${n}`);
    expect(store.size).toBe(20);
    expect(await store.get(hash(0))).toBe(text(0));
    for (let n = 1; n < 10; n++) expect(await store.get(hash(n))).toBeUndefined();
    expect(await store.get(hash(28))).toBe(text(28));
  });

  it("lets one client register its hourly allowance, then keeps nothing more of it until the hour has passed", async () => {
    let now = 0;
    const size = 1000 + ENTRY_OVERHEAD;
    const store = new PersistedQueries({
      memoryBytes: 1_000_000,
      redisBytes: 0,
      clientBytesPerHour: 3 * size,
      now: () => now,
    });
    const outcomes = [];
    for (let n = 0; n < 5; n++) outcomes.push(await store.register(hash(n), text(n), "address:10.0.0.1"));
    expect(outcomes).toEqual(["kept", "kept", "kept", "over-allowance", "over-allowance"]);
    expect(await store.register(hash(9), text(9), "address:10.0.0.2")).toBe("kept");
    expect(await store.register(hash(0), text(0), "address:10.0.0.1")).toBe("known");
    now += 3_600_000;
    expect(await store.register(hash(3), text(3), "address:10.0.0.1")).toBe("kept");
  });

  it("never keeps a text over 64 KiB", async () => {
    const store = new PersistedQueries({ memoryBytes: 1_000_000, redisBytes: 0, clientBytesPerHour: 1_000_000 });
    expect(await store.register(hash(1), text(1, MAX_TEXT_BYTES + 1), "c")).toBe("too-large");
    expect(await store.register(hash(2), text(2, MAX_TEXT_BYTES), "c")).toBe("kept");
  });

  it("keeps the texts of others while one client floods it with registrations", async () => {
    const size = 1000 + ENTRY_OVERHEAD;
    // Room for 40 texts; a client may register 10 an hour.
    const store = new PersistedQueries({ memoryBytes: 40 * size, redisBytes: 0, clientBytesPerHour: 10 * size });
    for (let n = 0; n < 20; n++) await store.register(hash(n), text(n), `user:${n}`);
    for (let n = 100; n < 10_100; n++) await store.register(hash(n), text(n), "user:flooder");
    for (let n = 0; n < 20; n++) expect(await store.get(hash(n))).toBe(text(n));
    expect(store.size).toBe(30);
  });
});

describe.skipIf(!redisServerInstalled)("shared through Redis (needs redis-server on PATH; .ci/run installs it)", () => {
  let redis: TestRedis;
  let raw: Redis;
  const connections: SharedRedis[] = [];

  const connected = async () => {
    const shared = connectRedis(redis.url, quiet);
    connections.push(shared);
    const until = Date.now() + 10_000;
    while (!shared.reachable()) {
      if (Date.now() > until) throw new Error("Redis not reachable");
      await new Promise((r) => setTimeout(r, 20));
    }
    return shared;
  };

  beforeAll(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });
  afterAll(async () => {
    raw?.disconnect();
    await Promise.all(connections.map((c) => c.close()));
    await redis?.close();
  });

  it("keeps at most APQ_REDIS_BYTES there, the least recently looked up out first, its byte count exact", async () => {
    await raw.flushall();
    const size = 1000 + ENTRY_OVERHEAD;
    const options = { memoryBytes: 64 * 1024, redisBytes: 20 * size, clientBytesPerHour: 1_000_000 };
    const a = new PersistedQueries({ ...options, redis: await connected() });
    for (let n = 0; n < 10; n++) expect(await a.register(hash(n), text(n), `user:${n}`)).toBe("kept");
    // Another instance (nothing in its memory) looks the first one up: it moves to the back.
    const b = new PersistedQueries({ ...options, redis: await connected() });
    expect(await b.get(hash(0))).toBe(text(0));
    // 19 more: the 9 least recently used go from Redis (1 to 9), not 0.
    for (let n = 10; n < 29; n++) await a.register(hash(n), text(n), `user:${n}`);
    const bytes = Number(await raw.get("gateway:apq:bytes"));
    const kept = await raw.hkeys("gateway:apq:texts");
    expect(bytes).toBeLessThanOrEqual(20 * size);
    expect(kept).toHaveLength(20);
    expect(await raw.zcard("gateway:apq:used")).toBe(20);
    const lengths = await Promise.all(kept.map((k) => raw.hstrlen("gateway:apq:texts", k)));
    expect(bytes).toBe(lengths.reduce((sum, l) => sum + l + ENTRY_OVERHEAD, 0));
    const c = new PersistedQueries({ ...options, redis: await connected() });
    expect(await c.get(hash(0))).toBe(text(0));
    expect(await c.get(hash(1))).toBeUndefined();
    expect(await c.get(hash(28))).toBe(text(28));
  });

  it("counts a client's allowance once across instances", async () => {
    await raw.flushall();
    const size = 1000 + ENTRY_OVERHEAD;
    const options = { memoryBytes: 64 * 1024, redisBytes: 1_000_000, clientBytesPerHour: 3 * size };
    const a = new PersistedQueries({ ...options, redis: await connected() });
    const b = new PersistedQueries({ ...options, redis: await connected() });
    expect(await a.register(hash(1), text(1), "user:x")).toBe("kept");
    expect(await b.register(hash(2), text(2), "user:x")).toBe("kept");
    expect(await a.register(hash(3), text(3), "user:x")).toBe("kept");
    expect(await b.register(hash(4), text(4), "user:x")).toBe("over-allowance");
    expect(await b.register(hash(1), text(1), "user:x")).toBe("known");
    expect(await a.register(hash(5), text(5), "user:y")).toBe("kept");
    // One hash for the hour's counts, gone an hour after the hour.
    const [counts] = await raw.keys("gateway:apq:clients:*");
    expect(await raw.hgetall(counts)).toEqual({ "user:x": String(3 * size), "user:y": String(size) });
    const ttl = await raw.ttl(counts);
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(7200);
  });

  it("counts at most so many clients an hour, so a flood from many addresses cannot grow the counts", async () => {
    await raw.flushall();
    let now = 0;
    const options = {
      memoryBytes: 64 * 1024,
      redisBytes: 1_000_000,
      clientBytesPerHour: 1_000_000,
      maxClientsPerHour: 3,
      now: () => now,
    };
    const a = new PersistedQueries({ ...options, redis: await connected() });
    const b = new PersistedQueries({ ...options, redis: await connected() });
    const outcomes = [];
    for (let n = 0; n < 6; n++) outcomes.push(await (n % 2 ? b : a).register(hash(n), text(n), `address:10.0.0.${n}`));
    expect(outcomes).toEqual(["kept", "kept", "kept", "over-allowance", "over-allowance", "over-allowance"]);
    // A client counted already still registers; the next hour counts anew.
    expect(await b.register(hash(10), text(10), "address:10.0.0.0")).toBe("kept");
    expect(await raw.hlen((await raw.keys("gateway:apq:clients:*"))[0])).toBe(3);
    now += 3_600_000;
    expect(await a.register(hash(11), text(11), "address:10.0.0.9")).toBe("kept");
  });
});
