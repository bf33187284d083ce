// The one place that knows which database is in use. Everything else talks to `Db`, the Prisma
// client type of the SQLite variant; the PostgreSQL client has the same API and is cast once here.
import { PrismaClient as SqliteClient, type Prisma } from "../../generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "../../generated/postgres/client.ts";
import type { Config } from "../config.ts";
import { postgresDriver } from "./postgres-driver.ts";
import { sqliteDriver } from "./sqlite-adapter.ts";

export type Db = SqliteClient;
export type { Prisma } from "../../generated/sqlite/client.ts";

export type DatabaseOptions = Config["database"] & {
  /** Called with each SQL statement sent (tests count them; metrics time them). */
  onQuery?: (event: { query: string; durationMs: number; startedAt?: Date }) => void;
};

/** A SELECT's result: column names, and each row's values in that order. */
export type RawRows = { names: string[]; rows: unknown[][] };

/** A driver's reader of one SELECT (text with the driver's placeholders, and its values); undefined until Prisma opened the connection. */
export type DriverReader = (sql: string, args: readonly unknown[]) => Promise<RawRows> | undefined;

const directReaders = new WeakMap<Db, (sql: Prisma.Sql) => Promise<RawRows> | undefined>();

/** Whether `db` reads straight from its connection (a client made by createDb, not a transaction's). */
export const readsDirectly = (db: Db) => directReaders.has(db);

/**
 * Runs a SELECT without Prisma's query compiler (see reads.ts), on the connection Prisma opened.
 * A transaction's client (its reads must see its own writes), or a client whose connection is
 * not open yet, goes through `$queryRaw` instead.
 */
export function readRows(db: Db, sql: Prisma.Sql): Promise<RawRows> {
  return directReaders.get(db)?.(sql) ?? fromObjects(db.$queryRaw<Record<string, unknown>[]>(sql));
}

async function fromObjects(pending: Promise<Record<string, unknown>[]>): Promise<RawRows> {
  const objects = await pending;
  const names = objects.length > 0 ? Object.keys(objects[0]) : [];
  return { names, rows: objects.map((object) => names.map((name) => object[name])) };
}

export function createDb(options: DatabaseOptions): Db {
  const log = options.onQuery ? ([{ emit: "event", level: "query" }] as const) : undefined;
  const driver =
    options.provider === "sqlite" ? sqliteDriver(options.url, options.sqliteSynchronous) : postgresDriver(options.url, options.poolSize);
  const client =
    options.provider === "sqlite"
      ? new SqliteClient({ adapter: driver.factory, log: log as never })
      : (new PostgresClient({ adapter: driver.factory, log: log as never }) as unknown as Db);
  const onQuery = options.onQuery;
  const placeholders = options.provider === "sqlite" ? (sql: Prisma.Sql) => sql.sql : (sql: Prisma.Sql) => sql.text;
  directReaders.set(client, (sql) => {
    const text = placeholders(sql);
    if (!onQuery) return driver.readRows(text, sql.values);
    const startedAt = new Date();
    const started = performance.now();
    return driver.readRows(text, sql.values)?.finally(() => onQuery({ query: text, durationMs: performance.now() - started, startedAt }));
  });
  if (onQuery) {
    (client as unknown as { $on(e: "query", cb: (e: { query: string; duration: number; timestamp: Date }) => void): void }).$on(
      "query",
      (e) => onQuery({ query: e.query, durationMs: e.duration, startedAt: e.timestamp }),
    );
  }
  return client;
}
