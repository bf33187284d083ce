// The committed migrations (prisma/<dialect>/migrations/*/migration.sql), in name order, and which
// of them a database still needs. Each dialect applies them with its plain driver (sqlite/migrate.ts,
// postgres/migrate.ts) and records them in Prisma's own `_prisma_migrations` table, with Prisma's
// checksums, so `prisma migrate status` agrees.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Dialect } from "./dialect.ts";
import { titleOrderKey } from "./search/words.ts";

export type Migration = { name: string; sql: string; checksum: string };

export class MigrationError extends Error {}

export function migrationsDir(dialect: Dialect): string {
  return fileURLToPath(new URL(`../../prisma/${dialect}/migrations/`, import.meta.url));
}

export function readMigrations(dialect: Dialect): Migration[] {
  const dir = migrationsDir(dialect);
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(`${dir}${e.name}/migration.sql`))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(`${dir}${name}/migration.sql`, "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/** The migrations not applied yet; refuses an applied one that was changed since (checksum by name). */
export function pending(all: Migration[], applied: Map<string, string>): Migration[] {
  for (const [name, checksum] of applied) {
    const m = all.find((x) => x.name === name);
    if (m && m.checksum !== checksum) {
      throw new MigrationError(`migration ${name} was changed after it was applied; add a new migration instead`);
    }
  }
  return all.filter((m) => !applied.has(m.name));
}

/** The restaurants whose TITLE order key is missing (rows written before the column, or by hand). */
export const MISSING_TITLE_ORDERS = `SELECT "id", "title" FROM "Restaurant" WHERE "titleOrder" = ''`;

/** The keys the appliers write for those rows, as [key, id] (a title that folds to nothing keeps ''). */
export const missingTitleOrders = (rows: { id: string; title: string }[]): [string, string][] =>
  rows.map((r): [string, string] => [titleOrderKey(r.title), r.id]).filter(([key]) => key !== "");
