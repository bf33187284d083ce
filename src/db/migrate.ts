// Applies the committed migrations (prisma/<provider>/migrations/*/migration.sql) in name order and
// records them in Prisma's own `_prisma_migrations` table, so `prisma migrate deploy/status`
// agree with what this wrote. It uses the plain driver: no Prisma engine, no network.
import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import pg from "pg";
import type { Config } from "../config.ts";
import { prepareSqliteFile } from "./sqlite-adapter.ts";

type Migration = { name: string; sql: string; checksum: string };

export function migrationsDir(provider: "sqlite" | "postgres"): string {
  return fileURLToPath(new URL(`../../prisma/${provider}/migrations/`, import.meta.url));
}

export function readMigrations(provider: "sqlite" | "postgres"): Migration[] {
  const dir = migrationsDir(provider);
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(`${dir}${e.name}/migration.sql`))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(`${dir}${name}/migration.sql`, "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const SQLITE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
  "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
  "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`;

const POSTGRES_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`;

export class MigrationError extends Error {}

function pending(all: Migration[], applied: Map<string, string>): Migration[] {
  for (const [name, checksum] of applied) {
    const m = all.find((x) => x.name === name);
    if (m && m.checksum !== checksum) {
      throw new MigrationError(`migration ${name} was changed after it was applied; add a new migration instead`);
    }
  }
  return all.filter((m) => !applied.has(m.name));
}

function migrateSqlite(url: string, migrations: Migration[]): string[] {
  const db = new Database(prepareSqliteFile(url));
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    db.exec(SQLITE_TABLE);
    const rows = db
      .prepare(
        `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      )
      .all() as { migration_name: string; checksum: string }[];
    const todo = pending(migrations, new Map(rows.map((r) => [r.migration_name, r.checksum])));
    for (const m of todo) {
      db.transaction(() => {
        db.exec(m.sql);
        db.prepare(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES (?, ?, ?, ?, 1)`,
        ).run(randomUUID(), m.checksum, new Date().toISOString(), m.name);
      }).immediate();
    }
    return todo.map((m) => m.name);
  } finally {
    db.close();
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // One instance migrates at a time; the others wait here, then find nothing to do.
    await client.query("SELECT pg_advisory_lock(727274)");
    await client.query(POSTGRES_TABLE);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const todo = pending(migrations, new Map(rows.map((r) => [r.migration_name, r.checksum])));
    for (const m of todo) {
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new MigrationError(`migration ${m.name} failed: ${(error as Error).message}`);
      }
    }
    return todo.map((m) => m.name);
  } finally {
    await client.end();
  }
}

/** Brings the database up to date; returns the names of the migrations it applied. */
export async function migrate(database: Config["database"]): Promise<string[]> {
  const migrations = readMigrations(database.provider);
  return database.provider === "sqlite"
    ? migrateSqlite(database.url, migrations)
    : migratePostgres(database.url, migrations);
}
