// Brings a database up to date with the committed migrations (migrations.ts), with its dialect's
// plain driver: no Prisma engine, no network. `prisma migrate deploy/status` agree with what it wrote.
import type { Config } from "../config.ts";
import type { Dialect } from "./dialect.ts";
import { readMigrations, type Migration } from "./migrations.ts";
import { migratePostgres } from "./postgres/migrate.ts";
import { migrateSqlite } from "./sqlite/migrate.ts";

const APPLY: Record<Dialect, (url: string, migrations: Migration[]) => Promise<string[]>> = {
  sqlite: migrateSqlite,
  postgres: migratePostgres,
};

/** Returns the names of the migrations it applied. */
export async function migrate(database: Config["database"]): Promise<string[]> {
  return APPLY[database.dialect](database.url, readMigrations(database.dialect));
}
