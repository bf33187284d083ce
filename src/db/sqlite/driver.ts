// Prisma's driver adapter for SQLite with the settings this service relies on. The adapter runs
// plain queries and interactive transactions on one connection, so a query from another request
// could land inside an open transaction (and be rolled back with it): this wrapper queues every
// statement behind any open transaction, which keeps acknowledged writes from being undone by
// someone else's rollback. Whatever way a transaction ends (a COMMIT failing on a full disk
// included), it releases the queue and leaves no transaction open; each write's outcome is told to
// write health. It also keeps prepared statements (the adapter prepares every statement anew) and
// reads straight from the connection, behind the same queue, for the raw reads.
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import type { DriverReader } from "../raw-rows.ts";
import type { WriteHealth } from "../health/write-health.ts";
import { prepareSqliteFile } from "./file.ts";
import { registerLocalTime } from "./local-time.mjs";
import {
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlDriverAdapterFactory,
  type SqlQuery,
  type Transaction,
} from "@prisma/driver-adapter-utils";
import type BetterSqlite3 from "better-sqlite3";

function applyPragmas(db: BetterSqlite3.Database, synchronous: "FULL" | "NORMAL") {
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma("foreign_keys = ON"); // SQLite's default is OFF; the model's cascades depend on it
  db.pragma("busy_timeout = 5000");
  db.pragma("cache_size = -20000"); // ~20 MB page cache
  db.pragma("temp_store = MEMORY");
}

/** A FIFO lock: each holder runs after the previous one released. `idle`: nobody holds or waits. */
function createQueue() {
  let tail: Promise<void> = Promise.resolve();
  let pending = 0;
  function acquire(): Promise<() => void> {
    pending++;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const previous = tail;
    tail = previous.then(() => held);
    return previous.then(() => () => {
      pending--;
      release();
    });
  }
  return { acquire, idle: () => pending === 0 };
}

type Queue = ReturnType<typeof createQueue>;

/** Prepared statements kept, least recently used out first: the common ones stay prepared, rare ones cannot grow it. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Makes `db.prepare` return a cached statement. better-sqlite3 binds a statement for good, so
 * the adapter's `prepare(sql).bind(args)` gets a view that passes the arguments to each call
 * instead. Statements are only ever run to completion (`all`, `run`), never iterated, so
 * sharing one between callers is safe.
 */
function cachePreparedStatements(db: BetterSqlite3.Database): (sql: string) => BetterSqlite3.Statement {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, BetterSqlite3.Statement>();
  const statement = (sql: string) => {
    let stmt = cache.get(sql);
    if (stmt) {
      cache.delete(sql); // re-inserted below: the Map's order is the recency order
    } else {
      stmt = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, stmt);
    return stmt;
  };
  const view = (stmt: BetterSqlite3.Statement, args: unknown[]) => ({
    reader: stmt.reader,
    bind: (bound: unknown[]) => view(stmt, bound),
    columns: () => stmt.columns(),
    raw: () => ({ all: () => stmt.raw(true).all(args) }),
    run: () => stmt.run(args),
  });
  db.prepare = ((sql: string) => view(statement(sql), [])) as unknown as typeof db.prepare;
  return statement;
}

function rowReader(statement: (sql: string) => BetterSqlite3.Statement, queue: Queue) {
  const columnNames = new WeakMap<BetterSqlite3.Statement, string[]>();
  const read = (sql: string, args: readonly unknown[]) => {
    const stmt = statement(sql);
    let names = columnNames.get(stmt);
    if (!names) columnNames.set(stmt, (names = stmt.columns().map((column) => column.name)));
    return { names, rows: stmt.raw(true).all([...args]) as unknown[][] };
  };
  return async (sql: string, args: readonly unknown[]) => {
    // better-sqlite3 is synchronous: with no transaction open or waiting, nothing can run
    // between the check and the read, so the queue's promise round trips can be skipped.
    if (queue.idle()) return read(sql, args);
    const release = await queue.acquire();
    try {
      return read(sql, args);
    } finally {
      release();
    }
  };
}

const BEGIN = { sql: "BEGIN", args: [], argTypes: [] };

/**
 * Ends whatever transaction is open on the connection. After a failed COMMIT, or a statement
 * SQLite answered by rolling back on its own, the connection must not be left inside a
 * transaction: later statements would join it, and direct reads would see its uncommitted rows.
 */
function rollbackLeftover(client: BetterSqlite3.Database) {
  if (!client.inTransaction) return;
  try {
    client.exec("ROLLBACK");
  } catch {
    // Nothing left to undo if SQLite rolled back itself meanwhile; checked again at the next BEGIN.
  }
}

/**
 * One interactive transaction, holding the queue from BEGIN until COMMIT or ROLLBACK settles,
 * whatever the outcome. Prisma sends COMMIT and ROLLBACK as statements, then calls commit() or
 * rollback(); but when the COMMIT statement fails it calls neither (and its own rollback is
 * refused as "already closed"), so a failed COMMIT releases everything here: the transaction is
 * rolled back and the queue released. The adapter's own startTransaction is not used: it takes a
 * lock of its own that a failed BEGIN never gives back.
 */
function transaction(
  adapter: SqlDriverAdapter,
  client: BetterSqlite3.Database,
  release: () => void,
  health: WriteHealth,
): Transaction {
  let open = true;
  let abandoned = false; // SQLite rolled the whole transaction back after an error
  const end = () => {
    if (!open) return;
    open = false;
    rollbackLeftover(client);
    release();
  };
  const closed = (what: string) =>
    new DriverAdapterError({
      kind: "TransactionAlreadyClosed",
      cause: `The transaction was ${what}; start a new one.`,
    });
  const statement =
    <R>(run: (query: SqlQuery) => Promise<R>) =>
    async (query: SqlQuery): Promise<R> => {
      if (!open) throw closed("already ended");
      // Statements after SQLite's own rollback would run outside any transaction, each committed
      // on its own: half a write could stay. They are refused instead.
      if (abandoned) throw closed("rolled back after an error");
      const ticket = health.begin();
      try {
        return await run(query);
      } catch (error) {
        health.failed(error, ticket);
        if (!client.inTransaction) abandoned = true;
        throw error;
      }
    };
  const queryRaw = statement((query) => adapter.queryRaw(query));
  const executeRaw = statement((query) => adapter.executeRaw(query));
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    options: { usePhantomQuery: false },
    queryRaw,
    async executeRaw(query: SqlQuery) {
      if (query.sql === "COMMIT") {
        if (abandoned || !open) throw closed(abandoned ? "rolled back after an error" : "already ended");
        const ticket = health.begin();
        try {
          const changes = await adapter.executeRaw(query);
          health.succeeded(ticket);
          return changes;
        } catch (error) {
          health.failed(error, ticket);
          end(); // Prisma will not call commit() or rollback() after a failed COMMIT
          throw error;
        }
      }
      if (query.sql === "ROLLBACK") {
        end(); // SQLite may have rolled back already; end() rolls back only what is still open
        return 0;
      }
      return executeRaw(query);
    },
    commit: async () => end(),
    rollback: async () => end(),
  };
}

function serialised(
  adapter: SqlDriverAdapter,
  client: BetterSqlite3.Database,
  { acquire }: Queue,
  health: WriteHealth,
  writes: (sql: string) => boolean,
): SqlDriverAdapter {
  const queued =
    <A extends [SqlQuery], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const release = await acquire();
      const ticket = health.begin();
      try {
        const result = await fn(...args);
        if (writes(args[0].sql)) health.succeeded(ticket);
        return result;
      } catch (error) {
        health.failed(error, ticket);
        throw error;
      } finally {
        release();
      }
    };
  const startTransaction = adapter.startTransaction.bind(adapter);
  return Object.assign(Object.create(adapter) as SqlDriverAdapter, {
    queryRaw: queued(adapter.queryRaw.bind(adapter)),
    executeRaw: queued(adapter.executeRaw.bind(adapter)),
    executeScript: async (script: string) => {
      const release = await acquire();
      try {
        return await adapter.executeScript(script);
      } finally {
        release();
      }
    },
    async startTransaction(isolationLevel?: Parameters<SqlDriverAdapter["startTransaction"]>[0]): Promise<Transaction> {
      // The adapter refuses other isolation levels before taking anything: let it say so.
      if (isolationLevel && isolationLevel !== "SERIALIZABLE") return startTransaction(isolationLevel);
      const release = await acquire();
      const ticket = health.begin();
      try {
        rollbackLeftover(client);
        await adapter.executeRaw(BEGIN);
      } catch (error) {
        release();
        health.failed(error, ticket);
        throw error;
      }
      return transaction(adapter, client, release, health);
    },
  });
}

/** The adapter factory for Prisma, and a reader of the same connection once Prisma opened it. */
export function sqliteDriver(
  url: string,
  synchronous: "FULL" | "NORMAL",
  health: WriteHealth,
): { factory: SqlDriverAdapterFactory; readRows: DriverReader } {
  const inner = new PrismaBetterSqlite3({ url: `file:${prepareSqliteFile(url)}` });
  let read: ReturnType<typeof rowReader> | undefined;
  const factory = {
    provider: inner.provider,
    adapterName: inner.adapterName,
    async connect() {
      const adapter = await inner.connect();
      const client = (adapter as unknown as { client: BetterSqlite3.Database }).client;
      applyPragmas(client, synchronous);
      registerLocalTime(client);
      const queue = createQueue();
      const statement = cachePreparedStatements(client);
      read = rowReader(statement, queue);
      return serialised(adapter, client, queue, health, (sql) => !statement(sql).readonly);
    },
  } as SqlDriverAdapterFactory;
  return { factory, readRows: (sql, args) => read?.(sql, args) };
}
