// A plain connection to either database for the commands that move data (backup, restore,
// copy-data): the drivers themselves, no Prisma, so any table of the model is read and written
// generically, and values arrive as the database stores them (dates as text, 64-bit integers
// as text or bigint), which keeps the checksums exact.
import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import pg from "pg";
import { dialectOf, type Dialect } from "../../db/dialect.ts";
import { sqliteFilePath } from "../../db/sqlite/file.ts";

export type Connection = {
  provider: Dialect;
  /** Where it points, without a password (for messages and manifests). */
  label: string;
  /** The SQLite file (SQLite only). */
  file?: string;
  /** Rows as arrays, in the order of the SELECT's columns. `?` placeholders on SQLite, `$n` on PostgreSQL. */
  rows(sql: string, params?: readonly unknown[]): Promise<unknown[][]>;
  run(sql: string, params?: readonly unknown[]): Promise<void>;
  /**
   * Every row of a SELECT, `batchRows` at a time, in whatever order the database reads them
   * fastest (a table scan: no index lookup per row). Nothing else may run on the connection
   * until the scan ends.
   */
  scan(sql: string, batchRows: number): AsyncGenerator<unknown[][]>;
  /** Statements run inside `work` commit together, or not at all. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** Starts a read-only transaction: every read until `endSnapshot` sees the database as it was now. */
  beginSnapshot(): Promise<void>;
  endSnapshot(): Promise<void>;
  close(): Promise<void>;
};

/** Refused before anything is read or written (exit code 1): a database that cannot be used. */
export class DatabaseUnusable extends Error {}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  if (dialectOf(url) !== "postgres") return url;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}

/** `?` on SQLite, `$n` (1-based) on PostgreSQL. */
export const placeholder = (provider: Dialect, index: number) => (provider === "sqlite" ? "?" : `$${index + 1}`);

export const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * `mustExist`: a missing SQLite file is refused instead of created (a source, a backup).
 * `readonly`: opened read-only (a backup's own file, which must not change).
 */
export async function openConnection(
  url: string,
  options: { mustExist?: boolean; readonly?: boolean } = {},
): Promise<Connection> {
  const provider = dialectOf(url);
  if (provider === "sqlite") return openSqlite(sqliteFilePath(url), options);
  if (provider === "postgres") return openPostgres(url);
  throw new DatabaseUnusable(
    `"${redactUrl(url)}" is not a database URL: it must start with file: (SQLite) or postgresql:// (PostgreSQL)`,
  );
}

function openSqlite(file: string, { mustExist = false, readonly = false }): Connection {
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
  return {
    provider: "sqlite",
    label: `file:${file}`,
    file,
    rows: async (sql, params = []) =>
      prepared(sql)
        .raw(true)
        .safeIntegers(true)
        .all(...params) as unknown[][],
    run: async (sql, params = []) => {
      const statement = prepared(sql);
      if (statement.reader) statement.all(...params);
      else statement.run(...params);
    },
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
  };
}

/** Value parsers for the data commands: dates, 64-bit integers and JSON stay the database's text. */
const RAW_TEXT_TYPES = new Set([
  1114, // timestamp (Prisma's DateTime): pg would read it in the process's time zone
  1184, // timestamptz
  1082, // date
  114, // json
  3802, // jsonb
]);
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    RAW_TEXT_TYPES.has(oid)
      ? (text: string) => text
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

async function openPostgres(url: string): Promise<Connection> {
  const client = new pg.Client({ connectionString: url, types });
  client.on("error", () => {}); // a dropped connection fails the next query, which says why
  const label = redactUrl(url);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw new DatabaseUnusable(`cannot connect to ${label}: ${describePgError(error)}`);
  }
  const query = (sql: string, params: readonly unknown[] = []) =>
    client.query({ text: sql, values: params as unknown[], rowMode: "array" });
  let inSnapshot = false;
  return {
    provider: "postgres",
    label,
    rows: async (sql, params) => (await query(sql, params)).rows as unknown[][],
    run: async (sql, params) => void (await query(sql, params)),
    transaction: async (work) => {
      await client.query("BEGIN");
      try {
        const result = await work();
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    },
    scan: async function* (sql, batchRows) {
      // A cursor lives in a transaction: the snapshot's, or one of its own.
      const own = !inSnapshot;
      if (own) await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      try {
        await client.query(`DECLARE gw_scan NO SCROLL CURSOR FOR ${sql}`);
        for (;;) {
          const { rows } = await query(`FETCH FORWARD ${batchRows} FROM gw_scan`);
          if (!rows.length) break;
          yield rows as unknown[][];
        }
        await client.query("CLOSE gw_scan");
      } finally {
        if (own) await client.query("COMMIT").catch(() => {});
      }
    },
    beginSnapshot: async () => {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      inSnapshot = true;
    },
    endSnapshot: async () => {
      inSnapshot = false;
      await client.query("COMMIT");
    },
    close: () => client.end(),
  };
}

/** One line: pg's message, or the network error's code (ECONNREFUSED on every address). */
export function describePgError(error: unknown): string {
  const e = error as { message?: string; code?: string; errors?: unknown[] };
  if (e?.message) return e.message.split("\n")[0]!;
  if (Array.isArray(e?.errors) && e.errors.length) return describePgError(e.errors[0]);
  return String(e?.code ?? error);
}

/**
 * Statistics for PostgreSQL's planner after a bulk load (pg_restore and copy-data leave none):
 * without them it may read a whole table for each batch the verification asks for.
 */
export async function analyze(url: string): Promise<void> {
  const conn = await openConnection(url);
  try {
    await conn.run("ANALYZE");
  } finally {
    await conn.close();
  }
}
