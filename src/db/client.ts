// The one place that knows which database is in use. Everything else talks to `Db`, the Prisma
// client type of the SQLite variant; the PostgreSQL client has the same API and is cast once here.
// Likewise `Prisma` (model types, model names, and the SQL template helpers of the raw reads):
// both generated clients come from one schema and one runtime, so the SQLite client's namespace
// is the same on PostgreSQL. Import it from here, never from a generated client.
import { randomUUID } from "node:crypto";
import { PrismaClient as SqliteClient, type Prisma } from "../../generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "../../generated/postgres/client.ts";
import type { Config } from "../config.ts";
import { postgresDriver, searchPoolSize } from "./postgres-driver.ts";
import { sqliteDriver, sqliteFilePath } from "./sqlite-adapter.ts";
import { createSqliteReaders, type SqliteReaders } from "./sqlite-readers.ts";
import { createClientShare } from "./client-share.ts";
import { currentRequester } from "./requester.ts";
import { WriteHealth, type WriteFailure } from "./write-health.ts";

export type Db = SqliteClient;
export { Prisma } from "../../generated/sqlite/client.ts";

export type DatabaseOptions = Config["database"] & {
  /** Called with each SQL statement sent (tests count them; metrics time them). */
  onQuery?: (event: { query: string; durationMs: number; startedAt?: Date }) => void;
};

/** A SELECT's result: column names, and each row's values in that order. */
export type RawRows = { names: string[]; rows: unknown[][] };

/** A driver's reader of one SELECT (text with the driver's placeholders, and its values); undefined until Prisma opened the connection. */
export type DriverReader = (sql: string, args: readonly unknown[]) => Promise<RawRows> | undefined;

const providers = new WeakMap<Db, DatabaseOptions["provider"]>();

/** Which database `db` (a client made by createDb) talks to: the search statements differ. */
export function providerOf(db: Db): DatabaseOptions["provider"] {
  const provider = providers.get(db);
  if (!provider) throw new Error("providerOf: a client made by createDb is needed");
  return provider;
}

const directReaders = new WeakMap<Db, (sql: Prisma.Sql) => Promise<RawRows> | undefined>();
const writeHealths = new WeakMap<Db, WriteHealth>();

/** Whether writes currently succeed on `db`'s connection (see write-health.ts). */
export const writeHealthOf = (db: Db): WriteHealth | undefined => writeHealths.get(db);

/** ~16 KB: enough that the probe needs new pages and log space, as a real write does. */
const PROBE_PADDING = "x".repeat(16 * 1024);

/**
 * With a write failure on record, tries a write that keeps nothing, and answers the failure still
 * on record (null: writes work). The probe adds a row to Prisma's migration table and removes it
 * in the same transaction: nobody ever sees it (readers of that table also skip rows without
 * `finished_at`), yet it needs room to write like any real write does, which a statement that
 * changes nothing would not. It goes through the same driver, so its outcome is recorded there.
 */
export function checkWrites(db: Db): Promise<WriteFailure | null> {
  const health = writeHealths.get(db);
  if (!health) return Promise.resolve(null);
  return health.check(async () => {
    const id = randomUUID();
    await db.$transaction([
      db.$executeRaw`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, logs) VALUES (${id}, '', 'readiness write probe', ${PROBE_PADDING})`,
      db.$executeRaw`DELETE FROM "_prisma_migrations" WHERE id = ${id}`,
    ]);
  });
}

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

const directWriters = new WeakMap<Db, (sql: Prisma.Sql) => Promise<RawRows> | undefined>();

/**
 * Runs one statement that writes and answers rows (INSERT ... RETURNING, a data-changing WITH), as
 * rows like readRows', its outcome recorded (write health). On PostgreSQL it goes straight to the
 * connection Prisma opened, a prepared statement like readRows' (Prisma's $queryRaw parsed and
 * planned it anew each time, and its own steps were a visible share of a comment's CPU); a
 * transaction's client, SQLite's, or one whose connection is not open yet, goes through $queryRaw.
 */
export function writeRows(db: Db, sql: Prisma.Sql): Promise<RawRows> {
  return directWriters.get(db)?.(sql) ?? fromObjects(db.$queryRaw<Record<string, unknown>[]>(sql));
}

const asideReaders = new WeakMap<Db, (sql: Prisma.Sql) => Promise<RawRows>>();

/**
 * Runs a long SELECT (a search) where it holds nothing up: on SQLite, a reader thread with its own
 * connection (sqlite-readers.ts); on PostgreSQL, as readRows does within the searches' share of
 * the pool; without reader threads, as readRows does. Both shares are fair between clients.
 */
export function readRowsAside(db: Db, sql: Prisma.Sql): Promise<RawRows> {
  return asideReaders.get(db)?.(sql) ?? readRows(db, sql);
}

async function fromObjects(pending: Promise<Record<string, unknown>[]>): Promise<RawRows> {
  const objects = await pending;
  const names = objects.length > 0 ? Object.keys(objects[0]) : [];
  return { names, rows: objects.map((object) => names.map((name) => object[name])) };
}

/** Reader threads for an SQLite file (an in-memory database has no file to share). */
function sqliteReadersFor(options: DatabaseOptions): SqliteReaders | undefined {
  if (options.provider !== "sqlite" || !options.sqliteReaders) return undefined;
  const file = sqliteFilePath(options.url);
  return file === ":memory:" ? undefined : createSqliteReaders(file, options.sqliteReaders);
}

/**
 * Columns the database derives for its own searches, left out of every row Prisma returns (as
 * `RestaurantRow` leaves them out): a restaurant's opening pattern (migration
 * 20261126080000_opening_patterns).
 */
const DERIVED_FIELDS = { restaurant: { openingPattern: true } } as const;

export function createDb(options: DatabaseOptions): Db {
  const log = options.onQuery ? ([{ emit: "event", level: "query" }] as const) : undefined;
  const health = new WriteHealth();
  const postgres = options.provider === "postgres" ? postgresDriver(options, health) : undefined;
  const driver = postgres ?? sqliteDriver(options.url, options.sqliteSynchronous, health);
  const client =
    options.provider === "sqlite"
      ? (new SqliteClient({ adapter: driver.factory, log: log as never, omit: DERIVED_FIELDS }) as unknown as Db)
      : (new PostgresClient({ adapter: driver.factory, log: log as never, omit: DERIVED_FIELDS }) as unknown as Db);
  const onQuery = options.onQuery;
  const placeholders = options.provider === "sqlite" ? (sql: Prisma.Sql) => sql.sql : (sql: Prisma.Sql) => sql.text;
  writeHealths.set(client, health);
  providers.set(client, options.provider);
  const readers = sqliteReadersFor(options);
  /** A driver's reader, timed for `onQuery` when it is given. */
  const timed = (read: DriverReader) => (sql: Prisma.Sql) => {
    const text = placeholders(sql);
    if (!onQuery) return read(text, sql.values);
    const startedAt = new Date();
    const started = performance.now();
    return read(text, sql.values)?.finally(() =>
      onQuery({ query: text, durationMs: performance.now() - started, startedAt }),
    );
  };
  if (postgres) {
    // Searches read from their own pool (half of DB_POOL_SIZE, a statement timeout), one client
    // at most half of it (client-share.ts): one client flooding the most expensive search leaves
    // connections for everything else.
    const size = searchPoolSize(options.poolSize);
    const searches = createClientShare(size, Math.max(1, Math.floor(size / 2)));
    const readSearch = timed(postgres.readSearchRows);
    asideReaders.set(client, (sql) => searches.run(currentRequester(), () => readSearch(sql) ?? readRows(client, sql)));
    directWriters.set(client, timed(postgres.writeRows));
    const disconnect = client.$disconnect.bind(client);
    Object.defineProperty(client, "$disconnect", {
      value: async () => Promise.all([postgres.close(), disconnect()]).then(() => undefined),
    });
  }
  if (readers) {
    const read = timed((text, values) => readers.read(text, values));
    asideReaders.set(client, (sql) => read(sql)!);
    const disconnect = client.$disconnect.bind(client);
    Object.defineProperty(client, "$disconnect", {
      value: async () => Promise.all([readers.close(), disconnect()]).then(() => undefined),
    });
  }
  directReaders.set(client, timed(driver.readRows));
  if (onQuery) {
    (
      client as unknown as {
        $on(e: "query", cb: (e: { query: string; duration: number; timestamp: Date }) => void): void;
      }
    ).$on("query", (e) => onQuery({ query: e.query, durationMs: e.duration, startedAt: e.timestamp }));
  }
  return client;
}
