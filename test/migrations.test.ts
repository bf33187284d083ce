// The migration applier: an empty database of the kind under test gets every migration once,
// recorded in Prisma's own _prisma_migrations table; a second run does nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { readMigrations } from "../src/db/migrations.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.drop());

describe(`migrations (${process.env.DATABASE_URL?.startsWith("postgres") ? "PostgreSQL" : "SQLite"})`, () => {
  it("apply on an empty database, are recorded, and are not applied twice", async () => {
    const options = {
      dialect: database.provider,
      url: database.url,
      poolSize: 2,
      poolIdleTimeoutMs: 0,
      sqliteSynchronous: "FULL" as const,
    };
    const all = readMigrations(database.provider).map((m) => m.name);
    expect(all.length).toBeGreaterThan(0);
    expect(await migrate(options)).toEqual(all);
    expect(await migrate(options)).toEqual([]);

    const db = createDb(options);
    try {
      const rows = await db.prisma.$queryRawUnsafe<{ migration_name: string; checksum: string }[]>(
        `SELECT migration_name, checksum FROM "_prisma_migrations" ORDER BY migration_name`,
      );
      expect(rows.map((r) => r.migration_name)).toEqual(all);
      expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.checksum))).toBe(true);
      // The schema is usable: every model's table exists.
      expect(await db.prisma.restaurant.count()).toBe(0);
      expect(await db.prisma.report.count()).toBe(0);
    } finally {
      await db.close();
    }
  });

  it("ship the same migration names for both databases", () => {
    expect(readMigrations("sqlite").map((m) => m.name)).toEqual(readMigrations("postgres").map((m) => m.name));
  });
});
