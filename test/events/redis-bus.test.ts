// RedisBus: live events across instances over Redis pub/sub, with two buses (two "instances") on
// one private redis-server: each event reaches every instance exactly once, the publishing one
// included; nothing but well-formed events reaches a listener; publish never throws or waits,
// even with Redis gone; events sent meanwhile are lost (at most once), and delivery resumes once
// Redis is back, without a restart.
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RedisBus, DEFAULT_CHANNEL } from "../../src/events/redis-bus.ts";
import type { LiveEvent } from "../../src/events/live-event.ts";
import { redisServerInstalled, startRedis, type TestRedis } from "../helpers/redis.ts";

const silent = { warn: () => {}, info: () => {} };

/** Polls until `check` holds (bounded). */
async function eventually(check: () => boolean | Promise<boolean>, what: string, limitMs = 10_000) {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not within ${limitMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const report = (reportId: string): LiveEvent => ({ topic: "reportFiled", reportId });
const ids = (events: LiveEvent[]) => events.map((e) => (e.topic === "reportFiled" ? e.reportId : e.topic));

describe.skipIf(!redisServerInstalled)("RedisBus (needs redis-server on PATH; .ci/run installs it)", () => {
  let redis: TestRedis;
  let a: RedisBus;
  let b: RedisBus;
  const seenByA: LiveEvent[] = [];
  const seenByB: LiveEvent[] = [];

  /** Sends markers from `from` until `to` has one (subscriptions settle after a (re)connect), then clears both logs. */
  async function settle(from = a) {
    let n = 0;
    await eventually(() => {
      from.publish(report(`settle-${++n}`));
      const other = from === a ? seenByB : seenByA;
      return other.some((e) => e.topic === "reportFiled" && e.reportId.startsWith("settle-"));
    }, "the other bus receives");
    await new Promise((r) => setTimeout(r, 100)); // stragglers of the settle markers
    seenByA.length = 0;
    seenByB.length = 0;
  }

  beforeAll(async () => {
    redis = await startRedis();
    a = new RedisBus(redis.url, silent);
    b = new RedisBus(redis.url, silent);
    a.listen((e) => seenByA.push(e));
    b.listen((e) => seenByB.push(e));
    await eventually(() => a.connected() && b.connected(), "both buses connect");
    await settle(a);
    await settle(b);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.close();
  });
  afterEach(() => {
    seenByA.length = 0;
    seenByB.length = 0;
  });

  it("delivers each event once on every instance, the publishing one included, in each publisher's order", async () => {
    for (const id of ["1", "2", "3"]) a.publish(report(id));
    await eventually(() => seenByA.length >= 3 && seenByB.length >= 3, "A's three arrive on both");
    b.publish({ topic: "restaurantChanged", restaurantId: "r1", change: "REMOVED" });
    b.publish(report("last")); // once "last" is in, anything doubled before it would be too
    await eventually(() => ids(seenByA).includes("last") && ids(seenByB).includes("last"), "the last marker arrives");
    await new Promise((r) => setTimeout(r, 100)); // room for a duplicate to show up
    expect(ids(seenByA)).toEqual(["1", "2", "3", "restaurantChanged", "last"]);
    expect(ids(seenByB)).toEqual(["1", "2", "3", "restaurantChanged", "last"]);
    // Stamped once, by the publisher: both instances measure delivery lag from the same instant.
    expect(seenByA[3]).toEqual({
      topic: "restaurantChanged",
      restaurantId: "r1",
      change: "REMOVED",
      publishedAt: expect.any(Number),
    });
    expect(seenByB[3]).toEqual(seenByA[3]);
  });

  it("delivers events published at once by two instances in one order on both (Redis's order of the channel)", async () => {
    for (let i = 0; i < 100; i++) {
      a.publish(report(`a${i}`));
      b.publish(report(`b${i}`));
    }
    await eventually(() => seenByA.length >= 200 && seenByB.length >= 200, "all 200 arrive on both");
    expect(ids(seenByA)).toEqual(ids(seenByB));
    // Each publisher's own order is kept within that one order.
    expect(ids(seenByA).filter((id) => id.startsWith("a"))).toEqual(Array.from({ length: 100 }, (_, i) => `a${i}`));
  });

  it("drops anything on the channel that is not a well-formed event, and extra fields of one that is", async () => {
    const raw = new Redis(redis.url);
    try {
      for (const junk of [
        "not json",
        "null",
        JSON.stringify({ origin: "x", event: { topic: "dropTables", reportId: "1" } }),
        JSON.stringify({ origin: "x", event: { topic: "reportFiled" } }),
        JSON.stringify({ origin: "x", event: { topic: "reportFiled", reportId: 7 } }),
        JSON.stringify({ origin: "x", event: { topic: "restaurantChanged", restaurantId: "r", change: "EXPLODED" } }),
        JSON.stringify({ event: { topic: "reportFiled", reportId: "no-origin" } }),
      ])
        await raw.publish(DEFAULT_CHANNEL, junk);
      await raw.publish(
        DEFAULT_CHANNEL,
        JSON.stringify({ origin: "x", event: { topic: "reportFiled", reportId: "ok", secret: "row data" } }),
      );
    } finally {
      raw.disconnect();
    }
    await eventually(() => seenByA.length > 0 && seenByB.length > 0, "the good one arrives");
    expect(seenByA).toEqual([{ topic: "reportFiled", reportId: "ok", publishedAt: expect.any(Number) }]);
    expect(seenByB).toEqual([{ topic: "reportFiled", reportId: "ok", publishedAt: expect.any(Number) }]);
  });

  it("with Redis gone: publish neither throws nor waits, the publisher's own listeners still hear it; delivery resumes when Redis returns", async () => {
    await redis.stop();
    await eventually(() => !a.connected() && !b.connected(), "both notice");
    expect(() => a.publish(report("during-outage"))).not.toThrow();
    await eventually(() => ids(seenByA).includes("during-outage"), "A's own listener hears it");

    await redis.start();
    await eventually(() => a.connected() && b.connected(), "both reconnect", 15_000);
    await settle(a);
    await settle(b);
    a.publish(report("after"));
    await eventually(() => ids(seenByB).includes("after"), "B receives again");
    expect(ids(seenByB)).not.toContain("during-outage"); // lost for B: at most once, never replayed
    expect(ids(seenByB).filter((id) => id === "after")).toHaveLength(1);
  });

  it("close stops delivery and releases both connections", async () => {
    const c = new RedisBus(redis.url, silent);
    const seenByC: LiveEvent[] = [];
    c.listen((e) => seenByC.push(e));
    await eventually(() => c.connected(), "C connects");
    const admin = new Redis(redis.url);
    try {
      const clients = async () => (await admin.call("CLIENT", "LIST")) as string;
      const before = (await clients()).trim().split("\n").length;
      await c.close();
      await eventually(async () => (await clients()).trim().split("\n").length === before - 2, "two connections fewer");
      a.publish(report("after-close"));
      await eventually(() => ids(seenByB).includes("after-close"), "B still receives");
      expect(seenByC.map((e) => e.topic)).not.toContain("after-close");
      expect(ids(seenByC)).not.toContain("after-close");
    } finally {
      admin.disconnect();
    }
  });
});
