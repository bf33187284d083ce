// PostgreSQL sessions get the settings our statements rely on (postgres-driver.ts
// withSessionSettings): synchronized scans off, so two statements of one request that read "the
// first N matches" (LIMIT without ORDER BY: a relevance page and its counts) read the same rows
// even while other scans of the table run; and searches planned for their own values, within their
// time limit. An operator's own `options` in DATABASE_URL are kept.
// PostgreSQL only: SQLite has no such setting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, Prisma, readRowsAside, type Db } from "../../src/db/client.ts";
import { createTestDatabase, testProvider, type TestDatabase } from "../helpers/database.ts";

describe.skipIf(testProvider() !== "postgres")("PostgreSQL session settings", () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = new URL(database.url);
    url.searchParams.set("options", "-c application_name=operator-set");
    db = createDb({ provider: "postgres", url: url.toString(), poolSize: 2, poolIdleTimeoutMs: 10_000, sqliteSynchronous: "FULL", searchStatementTimeoutMs: 7_000 });
  });
  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  it("turns synchronized scans off and keeps the operator's own options", async () => {
    const [row] = await db.$queryRawUnsafe<{ scans: string; name: string }[]>(
      `SELECT current_setting('synchronize_seqscans') AS "scans", current_setting('application_name') AS "name"`,
    );
    expect(row).toEqual({ scans: "off", name: "operator-set" });
  });

  it("plans each search for its own values (no generic plan), with the searches' time limit", async () => {
    const { names, rows } = await readRowsAside(
      db,
      Prisma.sql`SELECT current_setting('plan_cache_mode') AS "plans", current_setting('statement_timeout') AS "timeout", current_setting('synchronize_seqscans') AS "scans"`,
    );
    expect(Object.fromEntries(names.map((name, i) => [name, rows[0]![i]]))).toEqual({ plans: "force_custom_plan", timeout: "7s", scans: "off" });
    // Prisma's own sessions (writes, reads by id) keep PostgreSQL's default.
    const [own] = await db.$queryRawUnsafe<{ plans: string }[]>(`SELECT current_setting('plan_cache_mode') AS "plans"`);
    expect(own!.plans).toBe("auto");
  });
});
