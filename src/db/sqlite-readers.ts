// Reader threads for SQLite's long reads (searches): better-sqlite3 is synchronous, so a search
// on the service's own connection holds the event loop for as long as it runs, and every other
// request (health checks included) waits behind it. Each reader is a worker thread with its own
// read-only connection (sqlite-read-worker.mjs); WAL lets them read while the service writes.
// Reads see the last committed state, as any other connection would: never sent from inside a
// transaction (client.ts sees to that).
//
// Shared fairly: a reader runs one read at a time; waiting reads queue per client (requester.ts)
// and free readers take them client by client in turn. One client holds at most half the readers
// (at least one), so one client sending the most expensive
// search over many connections keeps at most half of them busy (issue 31's attacker's view: with
// 2 readers, one flooding client held both and every other search queued behind seconds of its work).
import { Worker } from "node:worker_threads";
import type { RawRows } from "./client.ts";
import { currentRequester } from "./requester.ts";

type Read = { client: string; sql: string; args: readonly unknown[]; resolve: (rows: RawRows) => void; reject: (error: Error) => void };
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

export function createSqliteReaders(file: string, count: number): SqliteReaders {
  const readers: Reader[] = [];
  /** Waiting reads by client; the Map's order is the turn order (a served client goes to the back). */
  const waiting = new Map<string, Read[]>();
  const running = new Map<string, number>();
  const share = Math.max(1, Math.floor(count / 2));
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
      dispatch();
    });
    const fail = (error: Error) => {
      if (readers.includes(reader)) readers.splice(readers.indexOf(reader), 1); // the next read starts a new one
      finish(reader)?.reject(error);
      dispatch();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => {
      if (readers.includes(reader)) fail(new SqliteReadError(`SQLite reader thread stopped (exit code ${code})`));
    });
    readers.push(reader);
    return reader;
  }

  /** The read `reader` ran, now done: its client holds one reader less. */
  function finish(reader: Reader): Read | undefined {
    const read = reader.current;
    if (!read) return undefined;
    reader.current = undefined;
    reader.worker.unref();
    const held = (running.get(read.client) ?? 1) - 1;
    if (held > 0) running.set(read.client, held);
    else running.delete(read.client);
    return read;
  }

  /**
   * The next read to run: the first client in turn that holds less than its share. Even a client
   * alone keeps to it: a reader left free is what another client's read finds at once.
   */
  function next(): Read | undefined {
    for (const [client, queue] of waiting) {
      if ((running.get(client) ?? 0) >= share) continue;
      const read = queue.shift()!;
      waiting.delete(client);
      if (queue.length > 0) waiting.set(client, queue); // to the back of the turn
      return read;
    }
    return undefined;
  }

  function dispatch() {
    while (waiting.size > 0) {
      const reader = readers.find((r) => !r.current) ?? (readers.length < count ? start() : undefined);
      if (!reader) return;
      const read = next();
      if (!read) return;
      reader.current = read;
      running.set(read.client, (running.get(read.client) ?? 0) + 1);
      reader.worker.ref(); // a read in flight keeps the process up until answered
      reader.worker.postMessage({ sql: read.sql, args: read.args });
    }
  }

  return {
    read(sql, args) {
      if (closed) return Promise.reject(new SqliteReadError("the database is closed"));
      const client = currentRequester();
      return new Promise<RawRows>((resolve, reject) => {
        const queue = waiting.get(client);
        if (queue) queue.push({ client, sql, args, resolve, reject });
        else waiting.set(client, [{ client, sql, args, resolve, reject }]);
        dispatch();
      });
    },
    async close() {
      closed = true;
      const gone = () => new SqliteReadError("the database is closed");
      for (const queue of waiting.values()) for (const read of queue) read.reject(gone());
      waiting.clear();
      const stopping = readers.splice(0).map((r) => {
        finish(r)?.reject(gone());
        return r.worker.terminate();
      });
      await Promise.all(stopping);
    },
  };
}
