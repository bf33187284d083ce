// Which schema a database is at: the migrations recorded in Prisma's `_prisma_migrations` table
// (as src/db/migrate.ts applies them). A backup records them; restore and copy-data refuse a
// database this version of the code does not know.
import { readMigrations } from "../../db/migrations.ts";
import type { DataConnection } from "./data-connection.ts";
import { SchemaMismatch } from "./tables.ts";

export async function appliedMigrations(conn: DataConnection): Promise<string[]> {
  try {
    const rows = await conn.rows(
      `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name`,
    );
    return rows.map(([name]) => String(name));
  } catch {
    throw new SchemaMismatch(`${conn.label} is not a gateway database (it has no migrations table)`);
  }
}

/** Refuses a database migrated past what this version knows (a newer gateway wrote it). */
export function refuseNewerSchema(conn: DataConnection, applied: string[]): void {
  const known = new Set(readMigrations(conn.dialect).map((m) => m.name));
  const unknown = applied.filter((name) => !known.has(name));
  if (unknown.length) {
    throw new SchemaMismatch(
      `${conn.label} is at a newer schema (migration ${unknown.at(-1)}) than this version knows: use the gateway version that runs it`,
    );
  }
}
