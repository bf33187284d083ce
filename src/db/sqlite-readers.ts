// Reader threads for SQLite's long reads (searches): better-sqlite3 is synchronous, so a search
// on the service's own connection holds the event loop for as long as it runs, and every other
// request (health checks included) waits behind it. Each reader is a worker thread with its own
// read-only connection (sqlite-read-worker.mjs); WAL lets them read while the service writes. A
// read goes to the reader with the fewest reads in flight. Reads see the last committed state,
// as any other connection would: never sent from inside a transaction (client.ts sees to that).
import { Worker } from "node:worker_threads";
import type { RawRows } from "./client.ts";

type Pending = { resolve: (rows: RawRows) => void; reject: (error: Error) => void };
type Reader = { worker: Worker; pending: Map<number, Pending> };

/** An error of the reader's connection, as the service's own connection would throw it. */
export class SqliteReadError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "SqliteError";
  }
}

export type SqliteReaders = { read(sql: string, args: readonly unknown[]): Promise<RawRows>; close(): Promise<void> };

export function createSqliteReaders(file: string, count: number): SqliteReaders {
  const readers: Reader[] = [];
  let nextId = 0;
  let closed = false;

  function start(): Reader {
    const worker = new Worker(new URL("./sqlite-read-worker.mjs", import.meta.url), { workerData: { file } });
    worker.unref(); // never what keeps the process alive
    const reader: Reader = { worker, pending: new Map() };
    worker.on("message", (message: { id: number; names?: string[]; rows?: unknown[][]; error?: { message: string; code?: string } }) => {
      const waiting = reader.pending.get(message.id);
      if (!waiting) return;
      reader.pending.delete(message.id);
      if (reader.pending.size === 0) worker.unref();
      if (message.error) waiting.reject(new SqliteReadError(message.error.message, message.error.code));
      else waiting.resolve({ names: message.names!, rows: message.rows! });
    });
    const fail = (error: Error) => {
      if (readers.includes(reader)) readers.splice(readers.indexOf(reader), 1); // the next read starts a new one
      for (const waiting of reader.pending.values()) waiting.reject(error);
      reader.pending.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => {
      if (readers.includes(reader)) fail(new SqliteReadError(`SQLite reader thread stopped (exit code ${code})`));
    });
    readers.push(reader);
    return reader;
  }

  return {
    read(sql, args) {
      if (closed) return Promise.reject(new SqliteReadError("the database is closed"));
      const reader =
        readers.length < count ? start() : readers.reduce((least, r) => (r.pending.size < least.pending.size ? r : least));
      const id = nextId++;
      return new Promise<RawRows>((resolve, reject) => {
        if (reader.pending.size === 0) reader.worker.ref(); // a read in flight keeps the process up until answered
        reader.pending.set(id, { resolve, reject });
        reader.worker.postMessage({ id, sql, args });
      });
    },
    async close() {
      closed = true;
      const stopping = readers.splice(0).map((r) => r.worker.terminate());
      await Promise.all(stopping);
    },
  };
}
