// Which objects of a database are the gateway's, and which another program's. The gateway's are
// those its migrations create (their names are read from the migration files, so a new migration
// needs no change here; test/operability/foreign-objects.test.ts checks that a freshly migrated
// database holds nothing else), in a database whose `_prisma_migrations` table lists the
// gateway's migrations. In any other database, every object is another program's, whatever its
// name. Restore, copy-data and the other admin commands leave another program's objects alone,
// and refuse to work beside them unless told.
import { existsSync } from "node:fs";
import { dialectOf, type Dialect } from "../../db/dialect.ts";
import { readMigrations } from "../../db/migrations.ts";
import { sqliteFilePath } from "../../db/sqlite/file.ts";
import { DatabaseUnusable, openConnection, type Connection } from "./open.ts";
import { TargetNotEmpty } from "./tables.ts";

/** A table, view, function, sequence or type (PostgreSQL); a table, view, trigger or index (SQLite). */
export type DbObject = {
  kind: string;
  /** As people read it: schema-qualified when not in the gateway's schema. */
  name: string;
  /** PostgreSQL: the name a DROP statement takes (with a function's argument types). */
  identity?: string;
  /** PostgreSQL: its schema, and its name alone. */
  schema?: string;
  bare?: string;
};

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
export function gatewayNames(provider: Dialect) {
  let names = namesCache.get(provider);
  if (!names) {
    const migrations = readMigrations(provider);
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
    namesCache.set(provider, names);
  }
  return names;
}

/** Whether the database's `_prisma_migrations` lists at least one of the gateway's migrations. */
async function holdsGatewayMigrations(conn: Connection): Promise<boolean> {
  let rows: unknown[][];
  try {
    rows = await conn.rows(`SELECT migration_name FROM "_prisma_migrations"`);
  } catch {
    return false; // no such table
  }
  const ours = gatewayNames(conn.provider).migrations;
  return rows.some(([name]) => ours.has(String(name)));
}

export async function ownership(conn: Connection): Promise<Ownership> {
  const isGateway = await holdsGatewayMigrations(conn);
  const found = conn.provider === "sqlite" ? await sqliteObjects(conn) : await postgresObjects(conn);
  const names = gatewayNames(conn.provider).objects;
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
const namesTaken = (conn: Connection, foreign: DbObject[]) =>
  foreign.filter((o) => !o.name.includes(".") && gatewayNames(conn.provider).objects.has(o.name));

/**
 * What restore and copy-data refuse in a target (exit code 1, nothing changed): another program's
 * objects, unless `overwrite`; one named like an object of the gateway's, always. Returns what is there.
 */
export async function refuseOthers(
  conn: Connection,
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

/**
 * For the commands that migrate the database first: refuses one that holds another program's
 * objects and none of the gateway's migrations, which would get the gateway's tables beside them.
 * Looked at read-only; a SQLite file that does not exist yet is a new database.
 */
export async function refuseForeignDatabase(url: string): Promise<void> {
  if (dialectOf(url) === "sqlite" && !existsSync(sqliteFilePath(url))) return;
  const conn = await openConnection(url, { readonly: true });
  try {
    const owned = await ownership(conn);
    if (!owned.isGateway && owned.foreign.length)
      throw new DatabaseUnusable(
        `${conn.label} is not the gateway's database: it holds ${listObjects(owned.foreign)} and none of the gateway's migrations; point DATABASE_URL at the gateway's database, or at an empty one`,
      );
  } finally {
    await conn.close();
  }
}

/** Another program's objects in a SQLite file (a backup's copy of a database). */
export async function othersInFile(file: string): Promise<DbObject[]> {
  const conn = await openConnection(`file:${file}`, { mustExist: true, readonly: true });
  try {
    return (await ownership(conn)).foreign;
  } finally {
    await conn.close();
  }
}

type Found = { object: DbObject; here: boolean };

/**
 * Tables (virtual ones included; their shadow tables go with them), views, indexes and triggers,
 * SQLite's own (sqlite_*) left out.
 */
async function sqliteObjects(conn: Connection): Promise<Found[]> {
  const rows = await conn.rows(
    `SELECT m.type, m.name, m.sql, l.type FROM sqlite_master m
       LEFT JOIN pragma_table_list l ON l.schema = 'main' AND l.name = m.name
      WHERE m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY m.type, m.name`,
  );
  return rows
    .filter(([, , , listed]) => listed !== "shadow")
    .map(([type, name, sql]) => ({
      object: {
        kind:
          type === "table" && /^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(String(sql ?? "")) ? "virtual table" : String(type),
        name: String(name),
      },
      here: true,
    }));
}

/**
 * Tables, views, sequences (those a column owns go with its table), functions and types, in every
 * schema but PostgreSQL's own; an extension's members are the extension's and left out.
 */
async function postgresObjects(conn: Connection): Promise<Found[]> {
  const rows = await conn.rows(`
    WITH ext AS (SELECT classid, objid FROM pg_depend WHERE deptype = 'e'),
    owned AS (SELECT objid FROM pg_depend WHERE classid = 'pg_class'::regclass AND refclassid = 'pg_class'::regclass AND deptype IN ('a', 'i')),
    schemas AS (SELECT oid, nspname FROM pg_namespace WHERE nspname NOT IN ('information_schema') AND nspname !~ '^pg_')
    SELECT s.nspname, c.relname,
           CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'S' THEN 'sequence' WHEN 'f' THEN 'foreign table' ELSE 'table' END,
           c.oid::regclass::text
      FROM pg_class c JOIN schemas s ON s.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND NOT c.relispartition
       AND c.oid NOT IN (SELECT objid FROM ext WHERE classid = 'pg_class'::regclass)
       AND c.oid NOT IN (SELECT objid FROM owned)
    UNION ALL
    SELECT s.nspname, p.proname, CASE p.prokind WHEN 'p' THEN 'procedure' WHEN 'a' THEN 'aggregate' ELSE 'function' END,
           p.oid::regprocedure::text
      FROM pg_proc p JOIN schemas s ON s.oid = p.pronamespace
     WHERE p.oid NOT IN (SELECT objid FROM ext WHERE classid = 'pg_proc'::regclass)
    UNION ALL
    SELECT s.nspname, t.typname, CASE t.typtype WHEN 'd' THEN 'domain' ELSE 'type' END, t.oid::regtype::text
      FROM pg_type t JOIN schemas s ON s.oid = t.typnamespace
     WHERE (t.typtype IN ('e', 'd', 'r') OR (t.typtype = 'c' AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c'))
       AND t.oid NOT IN (SELECT objid FROM ext WHERE classid = 'pg_type'::regclass)
    ORDER BY 1, 3, 2`);
  const [[current]] = (await conn.rows(`SELECT current_schema()`)) as [[string]];
  return rows.map(([schema, name, kind, identity]) => {
    const here = schema === current;
    return {
      object: {
        kind: String(kind),
        name: here ? String(name) : `${schema}.${name}`,
        identity: String(identity),
        schema: String(schema),
        bare: String(name),
      },
      here,
    };
  });
}
