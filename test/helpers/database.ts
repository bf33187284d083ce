// A fresh, empty database for one test file: an SQLite file in a temp folder by default, or a new
// database on the PostgreSQL server that DATABASE_URL points at (so CI runs every test on both).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { dialectOf, type Dialect } from "../../src/db/dialect.ts";

export type TestDatabase = { url: string; provider: Dialect; drop(): Promise<void> };

export const testProvider = (): Dialect => dialectOf(process.env.DATABASE_URL ?? "") ?? "sqlite";

export async function createTestDatabase(): Promise<TestDatabase> {
  if (testProvider() === "sqlite") {
    const dir = mkdtempSync(path.join(tmpdir(), "gw-test-"));
    return {
      url: `file:${path.join(dir, "test.db")}`,
      provider: "sqlite",
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const serverUrl = new URL(process.env.DATABASE_URL!);
  const name = `gw_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    provider: "postgres",
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * One database for `count` servers (e.g. two instances on one PostgreSQL): each server's close()
 * drops its share, and the database goes with the last one.
 */
export function shareTestDatabase(database: TestDatabase, count: number): TestDatabase[] {
  let left = count;
  const share: TestDatabase = { ...database, drop: async () => (--left === 0 ? database.drop() : undefined) };
  return Array.from({ length: count }, () => share);
}
