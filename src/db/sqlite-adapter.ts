// Prisma driver adapter for SQLite with the settings this service relies on.
// adapter-better-sqlite3 runs plain queries and interactive transactions on one connection, so a
// query from another request could land inside an open transaction (and be rolled back with it).
// This wrapper queues every statement behind any open transaction, which makes each
// transaction isolated and keeps acknowledged writes from being undone by someone else's rollback.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from "@prisma/driver-adapter-utils";
import type BetterSqlite3 from "better-sqlite3";

export function sqliteFilePath(url: string): string {
  return url.replace(/^file:/, "").replace(/\?.*$/, "");
}

/** Opens (creating its folder if needed) an SQLite file in WAL mode. */
export function prepareSqliteFile(url: string): string {
  const file = sqliteFilePath(url);
  if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return file;
}

function applyPragmas(db: BetterSqlite3.Database, synchronous: "FULL" | "NORMAL") {
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma("foreign_keys = ON"); // SQLite's default is OFF; the model's cascades depend on it
  db.pragma("busy_timeout = 5000");
  db.pragma("cache_size = -20000"); // ~20 MB page cache
  db.pragma("temp_store = MEMORY");
}

/** A FIFO lock: each holder runs after the previous one released. */
function createQueue() {
  let tail: Promise<void> = Promise.resolve();
  return function acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const previous = tail;
    tail = previous.then(() => held);
    return previous.then(() => release);
  };
}

function serialised(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const acquire = createQueue();
  const queued =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const release = await acquire();
      try {
        return await fn(...args);
      } finally {
        release();
      }
    };
  const startTransaction = adapter.startTransaction.bind(adapter);
  return Object.assign(Object.create(adapter) as SqlDriverAdapter, {
    queryRaw: queued(adapter.queryRaw.bind(adapter)),
    executeRaw: queued(adapter.executeRaw.bind(adapter)),
    executeScript: queued(adapter.executeScript.bind(adapter)),
    async startTransaction(isolationLevel?: Parameters<SqlDriverAdapter["startTransaction"]>[0]): Promise<Transaction> {
      const release = await acquire();
      let tx: Transaction;
      try {
        tx = await startTransaction(isolationLevel);
      } catch (error) {
        release();
        throw error;
      }
      const end = (fn: () => Promise<void>) => async () => {
        try {
          await fn();
        } finally {
          release();
        }
      };
      tx.commit = end(tx.commit.bind(tx));
      tx.rollback = end(tx.rollback.bind(tx));
      return tx;
    },
  });
}

export function sqliteAdapterFactory(url: string, synchronous: "FULL" | "NORMAL"): SqlDriverAdapterFactory {
  const inner = new PrismaBetterSQLite3({ url: `file:${prepareSqliteFile(url)}` });
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    async connect() {
      const adapter = await inner.connect();
      applyPragmas((adapter as unknown as { client: BetterSqlite3.Database }).client, synchronous);
      return serialised(adapter);
    },
  } as SqlDriverAdapterFactory;
}
