// The PostgreSQL event bus on a real database: two buses (as two instances would hold) hear each
// other exactly once, an oversize event is refused without throwing, a LISTEN connection killed by
// the server comes back, and close() leaves no connection behind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { createTestDatabase, testProvider, type TestDatabase } from "../helpers/database.ts";
import { LISTEN_APPLICATION_NAME, PostgresBus, PUBLISH_APPLICATION_NAME } from "../../src/events/postgres-bus.ts";
import type { LiveEvent } from "../../src/events/live-event.ts";

/** Waits until `check` holds, for at most `ms`; says what it waited for otherwise. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const settle = () => new Promise((r) => setTimeout(r, 300));

describe.skipIf(testProvider() !== "postgres")("PostgresBus (LISTEN/NOTIFY)", () => {
  let database: TestDatabase;
  let observer: pg.Client;
  const connectionsOf = async (applicationName: string) =>
    Number(
      (
        await observer.query(
          "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1",
          [applicationName],
        )
      ).rows[0].count,
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    observer = new pg.Client({ connectionString: database.url });
    await observer.connect();
  });
  afterAll(async () => {
    await observer?.end();
    await database?.drop();
  });

  it("delivers every event to every bus on the database exactly once, the publisher's own listeners included", async () => {
    const a = new PostgresBus(database.url);
    const b = new PostgresBus(database.url);
    try {
      await Promise.all([a.whenListening(), b.whenListening()]);
      const heardByA: LiveEvent[] = [];
      const heardByB: LiveEvent[] = [];
      a.listen((e) => heardByA.push(e));
      b.listen((e) => heardByB.push(e));
      const before = Date.now();
      a.publish({ topic: "commentAdded", restaurantId: "r1", commentId: "c1" });
      b.publish({ topic: "reportFiled", reportId: "p1" });
      a.publish({ topic: "commentAdded", restaurantId: "r1", commentId: "c2" });
      await until(() => heardByA.length >= 3 && heardByB.length >= 3, "three events on both buses");
      await settle(); // a duplicate would arrive by now
      for (const heard of [heardByA, heardByB]) {
        expect(heard).toHaveLength(3);
        expect(
          heard
            .map((e) => (e.topic === "commentAdded" ? e.commentId : e.topic === "reportFiled" ? e.reportId : "?"))
            .sort(),
        ).toEqual(["c1", "c2", "p1"]);
        // One publisher's events keep their order, and each carries when it was published.
        const fromA = heard
          .filter((e) => e.topic === "commentAdded")
          .map((e) => (e as { commentId: string }).commentId);
        expect(fromA).toEqual(["c1", "c2"]);
        for (const e of heard) expect(e.publishedAt).toBeGreaterThanOrEqual(before);
      }
      // Both buses saw the same sequence: one delivery path, in commit order.
      expect(heardByB).toEqual(heardByA);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("a burst of publishes (sent in batches while the connection is busy) arrives complete, once each, in order, on both buses", async () => {
    const a = new PostgresBus(database.url);
    const b = new PostgresBus(database.url);
    try {
      await Promise.all([a.whenListening(), b.whenListening()]);
      const ids = (heard: LiveEvent[]) => heard.map((e) => (e as { commentId: string }).commentId);
      const heardByA: LiveEvent[] = [];
      const heardByB: LiveEvent[] = [];
      a.listen((e) => heardByA.push(e));
      b.listen((e) => heardByB.push(e));
      // More than one batch's worth (200), all published before the first NOTIFY is answered.
      const sent = Array.from({ length: 450 }, (_, i) => `c${i}`);
      for (const commentId of sent) a.publish({ topic: "commentAdded", restaurantId: "r1", commentId });
      await until(() => heardByA.length >= sent.length && heardByB.length >= sent.length, "every event on both buses");
      await settle();
      expect(ids(heardByA)).toEqual(sent);
      expect(ids(heardByB)).toEqual(sent);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("passes on only well-formed events, with their known fields: whoever can NOTIFY cannot hand a subscriber rows", async () => {
    const a = new PostgresBus(database.url);
    try {
      await a.whenListening();
      const heard: LiveEvent[] = [];
      a.listen((e) => heard.push(e));
      for (const payload of [
        "not json",
        JSON.stringify({ topic: "dropTables", reportId: "1" }),
        JSON.stringify({ topic: "orderPlaced", restaurantId: "r" }),
        JSON.stringify({ topic: "orderPlaced", restaurantId: "r", orderId: 7 }),
        JSON.stringify({ topic: "orderPlaced", restaurantId: "r", orderId: "o", order: { secret: "row data" } }),
      ]) {
        await observer.query("SELECT pg_notify('gateway_live_events', $1)", [payload]);
      }
      await until(() => heard.length > 0, "the well-formed event");
      await settle();
      expect(heard).toEqual([
        { topic: "orderPlaced", restaurantId: "r", orderId: "o", publishedAt: expect.any(Number) },
      ]);
    } finally {
      await a.close();
    }
  });

  it("refuses an event too large for NOTIFY without throwing, logs it, and keeps delivering", async () => {
    const bus = new PostgresBus(database.url);
    const errors: string[] = [];
    bus.useLogger({ info() {}, warn() {}, error: (_details, message) => void errors.push(message) });
    try {
      await bus.whenListening();
      const heard: LiveEvent[] = [];
      bus.listen((e) => heard.push(e));
      expect(() => bus.publish({ topic: "reportFiled", reportId: "x".repeat(9_000) })).not.toThrow();
      // Multi-byte text counts in bytes: 3,000 characters of 3 bytes each are over the limit too.
      expect(() => bus.publish({ topic: "reportFiled", reportId: "€".repeat(3_000) })).not.toThrow();
      bus.publish({ topic: "reportFiled", reportId: "small" });
      await until(() => heard.length >= 1, "the small event");
      await settle();
      expect(heard.map((e) => (e as { reportId: string }).reportId)).toEqual(["small"]);
      expect(errors).toEqual([
        "live event too large for NOTIFY; not sent",
        "live event too large for NOTIFY; not sent",
      ]);
    } finally {
      await bus.close();
    }
  });

  it("reconnects after the server terminates its LISTEN connection, tells gap listeners, and delivers later events", async () => {
    const bus = new PostgresBus(database.url);
    const sender = new PostgresBus(database.url);
    const warnings: string[] = [];
    bus.useLogger({ info() {}, warn: (_d, message) => void warnings.push(message), error() {} });
    try {
      await Promise.all([bus.whenListening(), sender.whenListening()]);
      let gaps = 0;
      bus.listenForGaps(() => gaps++);
      const heard: LiveEvent[] = [];
      bus.listen((e) => heard.push(e));
      sender.publish({ topic: "reportFiled", reportId: "before" });
      await until(() => heard.length === 1, "the event before the cut");

      const killed = await observer.query(
        "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()",
        [LISTEN_APPLICATION_NAME],
      );
      expect(killed.rows.length).toBe(2); // both buses' LISTEN connections
      await until(
        () => warnings.some((w) => w.startsWith("live events: LISTEN connection lost")),
        "the loss to be noticed",
      );
      await until(() => gaps === 1, "the bus to listen again");
      await sender.whenListening();

      sender.publish({ topic: "reportFiled", reportId: "after" });
      await until(() => heard.length === 2, "the event after the reconnect");
      expect(heard.map((e) => (e as { reportId: string }).reportId)).toEqual(["before", "after"]);
    } finally {
      await Promise.all([bus.close(), sender.close()]);
    }
  });

  it("close() releases its connections: none left in pg_stat_activity", async () => {
    const buses = [new PostgresBus(database.url), new PostgresBus(database.url)];
    await Promise.all(buses.map((b) => b.whenListening()));
    buses[0]!.publish({ topic: "reportFiled", reportId: "opens the publishing connection" });
    buses[1]!.publish({ topic: "reportFiled", reportId: "opens the publishing connection" });
    await until(
      async () => (await connectionsOf(PUBLISH_APPLICATION_NAME)) === 2,
      "both publishing connections to open",
    );
    expect(await connectionsOf(LISTEN_APPLICATION_NAME)).toBe(2);

    await Promise.all(buses.map((b) => b.close()));
    await until(
      async () =>
        (await connectionsOf(LISTEN_APPLICATION_NAME)) + (await connectionsOf(PUBLISH_APPLICATION_NAME)) === 0,
      "every bus connection to go",
    );
    // A closed bus neither throws nor reconnects.
    expect(() => buses[0]!.publish({ topic: "reportFiled", reportId: "late" })).not.toThrow();
    await settle();
    expect(await connectionsOf(LISTEN_APPLICATION_NAME)).toBe(0);
    expect(await connectionsOf(PUBLISH_APPLICATION_NAME)).toBe(0);
  });
});
