// A SQLite database for the data commands, through better-sqlite3 in this process: integers read
// as bigint (safeIntegers), so 64-bit columns stay exact.
import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import {
  DatabaseUnusable,
  quoteName,
  type DataConnection,
  type OpenOptions,
  type TableSpec,
} from "../data-connection.ts";
import { storable, type StoredForms } from "../values.ts";
import { describeTable, hasTable, objects } from "./catalogue.ts";

/** Prisma's own forms on SQLite: booleans 0/1, dates as "...+00:00" text, 64-bit integers as integers. */
export const sqliteForms: StoredForms = {
  bool: (value) => (value ? 1 : 0),
  datetime: (iso) => iso.replace(/Z$/, "+00:00"),
  bigint: (decimal) => BigInt(decimal),
};

export function openSqlite(file: string, { mustExist = false, readonly = false }: OpenOptions = {}): DataConnection {
  if (mustExist && !existsSync(file)) throw new DatabaseUnusable(`there is no SQLite database at ${file}`);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly, fileMustExist: mustExist });
    db.pragma("busy_timeout = 10000");
    if (!readonly) db.pragma("journal_mode = WAL");
  } catch (error) {
    throw new DatabaseUnusable(`cannot open the SQLite database at ${file}: ${(error as Error).message}`);
  }
  const statements = new Map<string, Database.Statement>();
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const rows = async (sql: string, params: readonly unknown[] = []) =>
    prepared(sql)
      .raw(true)
      .safeIntegers(true)
      .all(...params) as unknown[][];
  const run = async (sql: string, params: readonly unknown[] = []) => {
    const statement = prepared(sql);
    if (statement.reader) statement.all(...params);
    else statement.run(...params);
  };
  return {
    dialect: "sqlite",
    label: `file:${file}`,
    rows,
    run,
    scan: async function* (sql, batchRows) {
      let batch: unknown[][] = [];
      for (const row of prepared(sql).raw(true).safeIntegers(true).iterate() as IterableIterator<unknown[]>) {
        batch.push(row);
        if (batch.length === batchRows) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    },
    transaction: async (work) => {
      db.exec("BEGIN IMMEDIATE");
      try {
        const result = await work();
        db.exec("COMMIT");
        return result;
      } catch (error) {
        if (db.inTransaction) db.exec("ROLLBACK");
        throw error;
      }
    },
    beginSnapshot: async () => {
      db.exec("BEGIN");
      db.prepare("SELECT count(*) FROM sqlite_master").get(); // a deferred BEGIN takes its snapshot at the first read
    },
    endSnapshot: async () => {
      if (db.inTransaction) db.exec("COMMIT");
    },
    close: async () => void db.close(),
    placeholder: () => "?",
    storable: (type, value) => storable(sqliteForms, type, value),
    describeTable: (name) => describeTable(rows, name),
    hasTable: (name) => hasTable(rows, name),
    objects: () => objects(rows),
    // Checked only on connections that turn foreign keys on: a restored or copied file is checked as a whole.
    foreignKeyViolations: async () => (await rows("PRAGMA foreign_key_check")).length,
    // One prepared statement per row: in-process, that costs no round trip.
    inserter: async (spec: TableSpec) => {
      const columns = spec.columns.map((c) => quoteName(c.name)).join(", ");
      const sql = `INSERT INTO ${quoteName(spec.name)} (${columns}) VALUES (${spec.columns.map(() => "?").join(", ")})`;
      return async (batch) => {
        for (const row of batch)
          await run(
            sql,
            row.map((value, i) => storable(sqliteForms, spec.columns[i]!.type, value)),
          );
      };
    },
    // Foreign keys off for the copy (foreignKeyViolations checks them after) and children first: a
    // parent's insert trigger then finds all its children in place and builds derived rows once (the
    // search index indexes each restaurant once, not again for each of its tags).
    beginBulkLoad: async (specs) => {
      await run("PRAGMA foreign_keys = OFF");
      await run("PRAGMA synchronous = NORMAL"); // WAL: a crash loses no committed batch
      return [...specs].reverse();
    },
    endBulkLoad: async () => {},
  };
}
