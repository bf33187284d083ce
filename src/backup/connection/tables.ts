// Which tables hold the data, read from the Prisma model (its model names and scalar fields) and
// the database's own catalogue (column types, primary keys, foreign keys), never from a list kept
// here: a new model or column is backed up, copied and checked without touching this code (unless
// it is derived data the model must declare: DERIVED below).
// What the model does not declare is derived data the database rebuilds itself (search indexes,
// FTS tables, generated columns, triggers' work) and is neither copied nor checksummed.
import { Prisma } from "../../db/prisma.ts";
import {
  quoteName,
  type CatalogueTable,
  type Column,
  type ColumnType,
  type DataConnection,
  type TableSpec,
} from "./data-connection.ts";

/** Refused: the database's schema is not the one this version expects (exit code 1). */
export class SchemaMismatch extends Error {}

/**
 * Derived data the model declares all the same (Prisma's schema must describe its tables and
 * columns): the opening patterns and each restaurant's pattern id, which the database's triggers
 * derive from the zone and the opening hours (migration 20261126080000_opening_patterns). Like
 * the search indexes, neither copied nor checksummed: the target derives them from the copied
 * rows, with ids of its own (copied, the source's ids met the ones the target's triggers had
 * given already).
 */
const DERIVED: Record<string, "table" | readonly string[]> = {
  OpeningPattern: "table",
  Restaurant: ["openingPattern"],
};

/** The model's tables and their scalar fields, from the generated client, derived data left out. */
export function modelTables(): { name: string; fields: string[] }[] {
  const namespace = Prisma as unknown as Record<string, Record<string, string> | undefined>;
  return Object.values(Prisma.ModelName)
    .filter((name) => DERIVED[name] !== "table")
    .map((name) => {
      const derived = DERIVED[name];
      const fields = Object.values(namespace[`${name}ScalarFieldEnum`] ?? {});
      return { name, fields: Array.isArray(derived) ? fields.filter((f) => !derived.includes(f)) : fields };
    });
}

type CatalogueColumn = CatalogueTable["columns"][number];

/** The model's tables as this database has them, parents before the tables that refer to them. */
export async function describeTables(conn: DataConnection): Promise<TableSpec[]> {
  const tables = new Map<string, { spec: TableSpec; references: string[] }>();
  for (const model of modelTables()) {
    const found = await conn.describeTable(model.name);
    if (!found)
      throw new SchemaMismatch(
        `${conn.label} has no table "${model.name}": it is not a gateway database, or not migrated`,
      );
    const columns: Column[] = [];
    for (const field of model.fields) {
      const column = found.columns.find((c) => c.name === field);
      if (!column)
        throw new SchemaMismatch(
          `${conn.label}: table "${model.name}" has no column "${field}" (not migrated to this version?)`,
        );
      if (column.generated) continue; // computed by the database from other columns
      columns.push({ name: field, type: columnType(conn, model.name, column) });
    }
    columns.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (!found.primaryKey.length) throw new SchemaMismatch(`${conn.label}: table "${model.name}" has no primary key`);
    tables.set(model.name, {
      spec: { name: model.name, columns, primaryKey: found.primaryKey },
      references: found.references,
    });
  }
  return parentsFirst(tables);
}

/** Orders tables so that each comes after every table it refers to (a self-reference is ignored). */
function parentsFirst(tables: Map<string, { spec: TableSpec; references: string[] }>): TableSpec[] {
  const ordered: TableSpec[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string, path: string[]) => {
    if (state.get(name) === "done") return;
    if (state.get(name) === "visiting")
      throw new SchemaMismatch(
        `tables refer to each other in a cycle (${[...path, name].join(" -> ")}); they cannot be copied in order`,
      );
    state.set(name, "visiting");
    for (const parent of tables.get(name)!.references)
      if (parent !== name && tables.has(parent)) visit(parent, [...path, name]);
    state.set(name, "done");
    ordered.push(tables.get(name)!.spec);
  };
  for (const name of [...tables.keys()].sort()) visit(name, []);
  return ordered;
}

/** The column types Prisma's migrations create on each database (an enum is text on both). */
function columnType(conn: DataConnection, table: string, column: CatalogueColumn): ColumnType {
  const t = column.declared;
  if (column.enumType) return "text";
  const type: ColumnType | undefined =
    t === "BIGINT" || t === "INT8"
      ? "bigint"
      : /^(INTEGER|INT|INT4|SMALLINT|INT2)$/.test(t)
        ? "int"
        : /^(REAL|DOUBLE|DOUBLE PRECISION|FLOAT|FLOAT8|FLOAT4)$/.test(t)
          ? "float"
          : t === "BOOLEAN" || t === "BOOL"
            ? "bool"
            : /^(DATETIME|DATE|TIMESTAMP)/.test(t)
              ? "datetime"
              : /^(TEXT|VARCHAR|CHARACTER VARYING|CHAR|CHARACTER|UUID|CITEXT)/.test(t)
                ? "text"
                : t === "BLOB" || t === "BYTEA"
                  ? "bytes"
                  : t === "JSON" || t === "JSONB"
                    ? "json"
                    : undefined;
  if (!type)
    throw new SchemaMismatch(
      `${conn.label}: column "${table}"."${column.name}" has type ${t}, which backup and copy-data do not know yet`,
    );
  return type;
}

/** Refused: the target holds data (exit code 1, nothing changed). */
export class TargetNotEmpty extends Error {}

/** The model's tables that exist in this database and hold at least one row. */
export async function tablesWithRows(conn: DataConnection): Promise<string[]> {
  const found: string[] = [];
  for (const { name } of modelTables()) {
    if ((await conn.hasTable(name)) && (await conn.rows(`SELECT 1 FROM ${quoteName(name)} LIMIT 1`)).length)
      found.push(name);
  }
  return found;
}
