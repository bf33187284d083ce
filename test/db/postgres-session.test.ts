// PostgreSQL sessions get the settings our statements rely on (postgres-driver.ts
// withSessionSettings): synchronized scans off, so two statements of one request that read "the
// first N matches" (LIMIT without ORDER BY: a relevance page and its counts) read the same rows
// even while other scans of the table run. An operator's own `options` in DATABASE_URL are kept.
// PostgreSQL only: SQLite has no such setting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../../src/db/client.ts";
import { createTestDatabase, testProvider, type TestDatabase } from "../helpers/database.ts";

describe.skipIf(testProvider() !== "postgres")("PostgreSQL session settings", () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = new URL(database.url);
    url.searchParams.set("options", "-c application_name=operator-set");
    db = createDb({ provider: "postgres", url: url.toString(), poolSize: 2, poolIdleTimeoutMs: 10_000, sqliteSynchronous: "FULL" });
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
});
