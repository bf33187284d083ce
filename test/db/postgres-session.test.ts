// PostgreSQL sessions get the settings our statements rely on (src/db/postgres/driver.ts
// withSessionSettings): synchronized scans off, so two statements of one request that read "the
// first N matches" (LIMIT without ORDER BY: a relevance page and its counts) read the same rows
// even while other scans of the table run; and searches planned for their own values, within their
// time limit, without parallel workers, but for a page of the whole catalogue near its start, whose plan is the same whatever
// its values (searches.ts readPage), and a walked first page of lists and a city
// (test/db/postgres-plan-once.test.ts). An operator's own `options` in DATABASE_URL are kept.
// PostgreSQL only: SQLite has no such setting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client.ts";
import type { Db } from "../../src/db/db.ts";
import { Prisma } from "../../src/db/prisma.ts";
import { loadConfig } from "../../src/config.ts";
import { migrate } from "../../src/db/migrate.ts";
import { searchRestaurants } from "../../src/domain/catalogue/restaurants.ts";
import { createTestDatabase, testProvider, type TestDatabase } from "../helpers/database.ts";

describe.skipIf(testProvider() !== "postgres")("PostgreSQL session settings", () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = new URL(database.url);
    url.searchParams.set("options", "-c application_name=operator-set");
    await migrate(loadConfig({ DATABASE_URL: database.url }).database);
    // Two connections: one of Prisma's pool, one of the searches'.
    db = createDb({
      dialect: "postgres",
      url: url.toString(),
      poolSize: 2,
      poolIdleTimeoutMs: 10_000,
      sqliteSynchronous: "FULL",
      searchStatementTimeoutMs: 7_000,
    });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it("turns synchronized scans off and keeps the operator's own options", async () => {
    const [row] = await db.prisma.$queryRawUnsafe<{ scans: string; name: string }[]>(
      `SELECT current_setting('synchronize_seqscans') AS "scans", current_setting('application_name') AS "name"`,
    );
    expect(row).toEqual({ scans: "off", name: "operator-set" });
  });

  it("plans each search for its own values (no generic plan), with the searches' time limit, on one backend", async () => {
    const { names, rows } = await db.readSearch(
      Prisma.sql`SELECT current_setting('plan_cache_mode') AS "plans", current_setting('statement_timeout') AS "timeout", current_setting('synchronize_seqscans') AS "scans", current_setting('max_parallel_workers_per_gather') AS "workers"`,
    );
    expect(Object.fromEntries(names.map((name, i) => [name, rows[0]![i]]))).toEqual({
      plans: "force_custom_plan",
      timeout: "7s",
      scans: "off",
      // One connection, one backend: the fair share of connections bounds one client's cores.
      workers: "0",
    });
    // Prisma's own sessions (writes, reads by id) keep PostgreSQL's default.
    const [own] = await db.prisma.$queryRawUnsafe<{ plans: string }[]>(
      `SELECT current_setting('plan_cache_mode') AS "plans"`,
    );
    expect(own!.plans).toBe("auto");
  });

  it("plans a page of the whole catalogue once per connection, and a search for its values", async () => {
    await db.prisma.user.create({
      data: { id: "plan-owner", username: "plan-owner", firstName: "Ann", passwordHash: "x" },
    });
    await db.prisma.restaurant.create({
      data: { id: "plan-1", title: "Pizzeria Uno", titleSearch: "pizzeria uno", ownerId: "plan-owner" },
    });
    for (let i = 0; i < 8; i++) {
      await searchRestaurants(db, { first: 50 }); // newest first, nothing else: a cached plan serves it
      await searchRestaurants(db, { first: 50, filter: { search: "pizzeria" } }); // words: planned for them
      // Past the first 200 rows, in the searches' fair share (one client cannot hold Prisma's pool
      // with deep pages), whether the offset comes from a variable or a cursor.
      await searchRestaurants(db, { first: 50, offset: 151 });
      await searchRestaurants(db, { first: 2, after: Buffer.from("o:199").toString("base64url") });
    }
    type Plans = { statement: string; generic: number; custom: number };
    const plansOn = async (read: Db["read"]) => {
      const { rows } = await read(
        Prisma.sql`SELECT "statement", CAST("generic_plans" AS INTEGER), CAST("custom_plans" AS INTEGER) FROM pg_prepared_statements
                    WHERE "statement" LIKE '%FROM "Restaurant"%' AND "statement" NOT LIKE '%pg_prepared_statements%'`,
      );
      return rows.map(([statement, generic, custom]) => ({ statement, generic, custom }) as Plans);
    };
    const newest = (p: Plans) => p.statement.includes(`ORDER BY "Restaurant"."createdAt" DESC`);
    const own = await plansOn(db.read);
    const page = own.filter(newest);
    expect(page.length).toBe(1);
    expect(page[0]!.statement).not.toContain("OFFSET");
    expect(page[0]!.generic).toBeGreaterThanOrEqual(3);
    const searches = await plansOn(db.readSearch);
    expect(searches.some((p) => p.custom >= 8)).toBe(true);
    expect(searches.filter((p) => p.generic > 0)).toEqual([]);
    const deep = searches.filter((p) => newest(p) && p.statement.includes("OFFSET"));
    expect(deep.length).toBeGreaterThan(0);
    expect(deep.reduce((n, p) => n + p.custom, 0)).toBe(16);
  });
});
