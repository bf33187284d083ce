// Searches' long reads are shared fairly between clients on both databases (src/db/share/fair-share.ts): on
// SQLite the reader threads, on PostgreSQL the half of the pool searches may take. One client
// sending a dozen slow reads at once holds only its share, so another client's read starts at once.
// Real databases through createDb; the slow read sleeps (PostgreSQL) or counts (SQLite).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client.ts";
import type { Db } from "../../src/db/db.ts";
import { Prisma } from "../../src/db/prisma.ts";
import { clientShare } from "../../src/db/share/fair-share.ts";
import { asRequester } from "../../src/db/share/requester.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

describe("searches' reads shared between clients", () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb({
      dialect: database.provider,
      url: database.url,
      poolSize: 10,
      poolIdleTimeoutMs: 10_000,
      sqliteSynchronous: "FULL",
      sqliteReaders: 2,
    });
    if (database.provider === "sqlite") await db.prisma.$queryRawUnsafe(`PRAGMA journal_mode = WAL`); // creates the file the readers open
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it("answers another client's read at once while one client sends twelve slow ones", async () => {
    const slow =
      database.provider === "postgres"
        ? Prisma.sql`SELECT COUNT(*) AS "n" FROM (SELECT pg_sleep(0.3)) "s"`
        : Prisma.sql`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1500000) SELECT COUNT(*) > 0 AS "n" FROM c`;
    const finished: string[] = [];
    const flood = Array.from({ length: 12 }, () =>
      asRequester("address:flooder", () => db.readSearch(slow)).then(() => finished.push("slow")),
    );
    await new Promise((resolve) => setTimeout(resolve, 50)); // the flood has taken what it may
    const other = await asRequester("user:other", () => db.readSearch(Prisma.sql`SELECT 41 + 1 AS "n"`));
    finished.push("other");
    expect(other.rows.map((r) => Number(r[0]))).toEqual([42]);
    await Promise.all(flood);
    expect(finished.indexOf("other")).toBe(0);
    expect(finished).toHaveLength(13);
  });

  it("gives one client half of the readers, and no more than half of the cores their statements run on", () => {
    expect(clientShare(4, 2)).toBe(1); // this project's 2-core machines: one flooder, one core
    expect(clientShare(4, 16)).toBe(2);
    expect(clientShare(16, 8)).toBe(4);
    expect(clientShare(1, 1)).toBe(1); // never none
  });
});
