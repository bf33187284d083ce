// Which objects of a database are the gateway's, and which another program's. The gateway's are
// those its migrations create (their names are read from the migration files, so a new migration
// needs no change here; test/operability/foreign-objects.test.ts checks that a freshly migrated
// database holds nothing else), in a database whose `_prisma_migrations` table lists the
// gateway's migrations. In any other database, every object is another program's, whatever its
// name. Restore, copy-data and the other admin commands leave another program's objects alone,
// and refuse to work beside them unless told.
import type { Dialect } from "../../db/dialect.ts";
import { readMigrations } from "../../db/migrations.ts";
import type { DataConnection, DbObject } from "./data-connection.ts";
import { TargetNotEmpty } from "./tables.ts";

export type Ownership = {
  /** The database holds the gateway's migrations. */
  isGateway: boolean;
  gateway: DbObject[];
  foreign: DbObject[];
};

/** The gateway's own bookkeeping tables: Prisma's migrations, an unfinished copy-data's progress. */
export const BOOKKEEPING = ["_prisma_migrations", "_gateway_copy_progress"];

const NAME = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)`;
/**
 * What the migrations create (and rename to), extensions included: one pattern, as a second one
 * for extensions alone was too much for the tests' ReDoS checker to prove (exported for it).
 */
export const CREATED = new RegExp(
  String.raw`\b(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:UNIQUE\s+)?(?:VIRTUAL\s+)?(?:TABLE|VIEW|MATERIALIZED\s+VIEW|FUNCTION|PROCEDURE|AGGREGATE|TRIGGER|INDEX|SEQUENCE|TYPE|DOMAIN|(?<extension>EXTENSION))\s+(?:IF\s+NOT\s+EXISTS\s+)?|RENAME\s+TO\s+)(?<name>${NAME}(?:\s*\.\s*${NAME})?)`,
  "gi",
);

const unquote = (name: string) => (name.startsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name);
const lastPart = (qualified: string) =>
  unquote(
    qualified
      .split(/\.(?=\s*["A-Za-z_])/)
      .at(-1)!
      .trim(),
  );

const namesCache = new Map<Dialect, { objects: Set<string>; extensions: Set<string>; migrations: Set<string> }>();

/** The names of what the gateway's migrations create (and rename to), its extensions, its migrations. */
export function gatewayNames(dialect: Dialect) {
  let names = namesCache.get(dialect);
  if (!names) {
    const migrations = readMigrations(dialect);
    const objects = new Set(BOOKKEEPING);
    const extensions = new Set<string>();
    for (const { sql } of migrations) {
      for (const match of sql.matchAll(CREATED)) {
        const name = match.groups!.name!;
        if (match.groups!.extension) extensions.add(unquote(name));
        else objects.add(lastPart(name));
      }
    }
    names = { objects, extensions, migrations: new Set(migrations.map((m) => m.name)) };
    namesCache.set(dialect, names);
  }
  return names;
}

/** Whether the database's `_prisma_migrations` lists at least one of the gateway's migrations. */
async function holdsGatewayMigrations(conn: DataConnection): Promise<boolean> {
  let rows: unknown[][];
  try {
    rows = await conn.rows(`SELECT migration_name FROM "_prisma_migrations"`);
  } catch {
    return false; // no such table
  }
  const ours = gatewayNames(conn.dialect).migrations;
  return rows.some(([name]) => ours.has(String(name)));
}

export async function ownership(conn: DataConnection): Promise<Ownership> {
  const isGateway = await holdsGatewayMigrations(conn);
  const found = await conn.objects();
  const names = gatewayNames(conn.dialect).objects;
  const gateway: DbObject[] = [];
  const foreign: DbObject[] = [];
  for (const { object, here } of found) (isGateway && here && names.has(object.name) ? gateway : foreign).push(object);
  return { isGateway, gateway, foreign };
}

/** "invoices (table), invoice_totals (view)", the first `most` of them. */
export function listObjects(objects: DbObject[], most = 8): string {
  const shown = objects.slice(0, most).map((o) => `${o.name} (${o.kind})`);
  return objects.length > most ? `${shown.join(", ")} and ${objects.length - most} more` : shown.join(", ");
}

/** Another program's objects named like one the gateway creates: the gateway's cannot be put beside them. */
const namesTaken = (conn: DataConnection, foreign: DbObject[]) =>
  foreign.filter((o) => !o.name.includes(".") && gatewayNames(conn.dialect).objects.has(o.name));

/**
 * What restore and copy-data refuse in a target (exit code 1, nothing changed): another program's
 * objects, unless `overwrite`; one named like an object of the gateway's, always. Returns what is there.
 */
export async function refuseOthers(
  conn: DataConnection,
  command: "restore" | "copy-data",
  overwrite: boolean,
): Promise<Ownership> {
  const owned = await ownership(conn);
  const taken = namesTaken(conn, owned.foreign);
  if (taken.length)
    throw new TargetNotEmpty(
      `the target database holds ${listObjects(taken)}, which another program made (it has none of the gateway's migrations): ${command} cannot put the gateway's own beside it; ${command} into another database`,
    );
  if (owned.foreign.length && !overwrite)
    throw new TargetNotEmpty(
      `the target database holds what is not the gateway's: ${listObjects(owned.foreign)}; ${command} into a database of its own, or add --overwrite to replace only the gateway's data and leave these as they are`,
    );
  return owned;
}
