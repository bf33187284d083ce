// What a SQLite database holds, from its own catalogue (sqlite_master and the table pragmas).
import type { CatalogueTable, FoundObject } from "../data-connection.ts";

type Rows = (sql: string, params?: readonly unknown[]) => Promise<unknown[][]>;

export async function describeTable(rows: Rows, table: string): Promise<CatalogueTable | undefined> {
  // table_xinfo: name, type, notnull, dflt_value, pk (position in the key, 0 when not), hidden (2, 3: generated)
  const info = await rows(`SELECT name, type, pk, hidden FROM pragma_table_xinfo(?)`, [table]);
  if (!info.length) return undefined;
  const references = await rows(`SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)`, [table]);
  return {
    columns: info.map(([name, declared, , hidden]) => ({
      name: String(name),
      declared: String(declared).toUpperCase(),
      generated: Number(hidden) >= 2,
      enumType: false,
    })),
    primaryKey: info
      .filter(([, , pk]) => Number(pk) > 0)
      .sort((a, b) => Number(a[2]) - Number(b[2]))
      .map(([name]) => String(name)),
    references: references.map(([name]) => String(name)),
  };
}

export const hasTable = async (rows: Rows, name: string) =>
  (await rows(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, [name])).length > 0;

/**
 * Tables (virtual ones included; their shadow tables go with them), views, indexes and triggers,
 * SQLite's own (sqlite_*) left out. One schema: all are here.
 */
export async function objects(rows: Rows): Promise<FoundObject[]> {
  const found = await rows(
    `SELECT m.type, m.name, m.sql, l.type FROM sqlite_master m
       LEFT JOIN pragma_table_list l ON l.schema = 'main' AND l.name = m.name
      WHERE m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY m.type, m.name`,
  );
  return found
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
