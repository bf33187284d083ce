// What a PostgreSQL database holds, from its own catalogue (pg_class, pg_attribute, pg_proc, ...).
import { quoteName, type CatalogueTable, type FoundObject } from "../data-connection.ts";

type Rows = (sql: string, params?: readonly unknown[]) => Promise<unknown[][]>;

export async function describeTable(rows: Rows, table: string): Promise<CatalogueTable | undefined> {
  const [relation] = await rows(`SELECT to_regclass($1)::oid`, [`${quoteName(table)}`]);
  const oid = relation?.[0];
  if (oid == null) return undefined;
  const columns = await rows(
    `SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attgenerated <> '', t.typtype = 'e'
       FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
      WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [oid],
  );
  const primaryKey = await rows(
    `SELECT a.attname FROM pg_index i
       JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position) ON true
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE i.indrelid = $1 AND i.indisprimary ORDER BY k.position`,
    [oid],
  );
  const references = await rows(
    `SELECT DISTINCT c.relname FROM pg_constraint f JOIN pg_class c ON c.oid = f.confrelid WHERE f.conrelid = $1 AND f.contype = 'f'`,
    [oid],
  );
  return {
    columns: columns.map(([name, declared, generated, enumType]) => ({
      name: String(name),
      declared: String(declared).toUpperCase(),
      generated: Boolean(generated),
      enumType: Boolean(enumType),
    })),
    primaryKey: primaryKey.map(([name]) => String(name)),
    references: references.map(([name]) => String(name)),
  };
}

export const hasTable = async (rows: Rows, name: string) =>
  (await rows(`SELECT to_regclass($1)`, [quoteName(name)]))[0]?.[0] != null;

/**
 * Tables, views, sequences (those a column owns go with its table), functions and types, in every
 * schema but PostgreSQL's own; an extension's members are the extension's and left out.
 */
export async function objects(rows: Rows): Promise<FoundObject[]> {
  const found = await rows(`
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
  const [[current]] = (await rows(`SELECT current_schema()`)) as [[string]];
  return found.map(([schema, name, kind, identity]) => {
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
