// Reader threads for SQLite's long reads (searches): better-sqlite3 is synchronous, so a search
// on the service's own connection holds the event loop for as long as it runs, and every other
// request (health checks included) waits behind it. Each reader is a worker thread with its own
// read-only connection (sqlite-read-worker.mjs); WAL lets them read while the service writes.
// Reads see the last committed state, as any other connection would: never sent from inside a
// transaction (client.ts sees to that). A reader runs one read at a time; the readers are shared
// fairly between clients (client-share.ts): one client holds at most half of them.
import { Worker } from "node:worker_threads";
import type { RawRows } from "./client.ts";
import { createClientShare } from "./client-share.ts";
import { currentRequester } from "./requester.ts";

type Read = { resolve: (rows: RawRows) => void; reject: (error: Error) => void };
type Reader = { worker: Worker; current?: Read };

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

const closedError = () => new SqliteReadError("the database is closed");

export function createSqliteReaders(file: string, count: number): SqliteReaders {
  const readers: Reader[] = [];
  const share = createClientShare(count, Math.max(1, Math.floor(count / 2)));
  let closed = false;

  function start(): Reader {
    const worker = new Worker(new URL("./sqlite-read-worker.mjs", import.meta.url), { workerData: { file } });
    worker.unref(); // never what keeps the process alive
    const reader: Reader = { worker };
    worker.on("message", (message: { names?: string[]; rows?: unknown[][]; error?: { message: string; code?: string } }) => {
      const read = finish(reader);
      if (!read) return;
      if (message.error) read.reject(new SqliteReadError(message.error.message, message.error.code));
      else read.resolve({ names: message.names!, rows: message.rows! });
    });
    const fail = (error: Error) => {
      if (readers.includes(reader)) readers.splice(readers.indexOf(reader), 1); // the next read starts a new one
      finish(reader)?.reject(error);
    };
    worker.on("error", fail);
    worker.on("exit", (code) => {
      if (readers.includes(reader)) fail(new SqliteReadError(`SQLite reader thread stopped (exit code ${code})`));
    });
    readers.push(reader);
    return reader;
  }

  /** The read `reader` ran, now answered (or lost). */
  function finish(reader: Reader): Read | undefined {
    const read = reader.current;
    reader.current = undefined;
    reader.worker.unref();
    return read;
  }

  /** Runs a read on a free reader: the share never lets more reads run than there are readers. */
  function readOnFreeReader(sql: string, args: readonly unknown[]): Promise<RawRows> {
    if (closed) return Promise.reject(closedError());
    const reader = readers.find((r) => !r.current) ?? start();
    return new Promise<RawRows>((resolve, reject) => {
      reader.current = { resolve, reject };
      reader.worker.ref(); // a read in flight keeps the process up until answered
      reader.worker.postMessage({ sql, args });
    });
  }

  return {
    read(sql, args) {
      if (closed) return Promise.reject(closedError());
      return share.run(currentRequester(), () => readOnFreeReader(sql, args));
    },
    async close() {
      closed = true; // reads still waiting for their turn are refused when it comes
      const stopping = readers.splice(0).map((r) => {
        finish(r)?.reject(closedError());
        return r.worker.terminate();
      });
      await Promise.all(stopping);
    },
  };
}
