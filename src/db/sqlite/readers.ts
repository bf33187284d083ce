// Reader threads for SQLite's long reads (searches): better-sqlite3 is synchronous, so a search on
// the service's own connection holds the event loop for as long as it runs, and every other
// request (health checks included) waits behind it. Each reader is a worker thread with its own
// read-only connection (read-worker.mjs); WAL lets them read the last committed state while the
// service writes. A read goes to the reader with the fewest reads in flight, which may queue one
// more behind its current one, so a reader never idles while the busy event loop gets round to its
// answer. The reads are shared fairly between clients (share/fair-share.ts): one client has at most
// half as many reads in flight as there are readers, and as there are cores (clientShare), so
// another client's read starts at once, on a core of its own.
import { Worker } from "node:worker_threads";
import type { RawRows } from "../raw-rows.ts";
import { clientShare, createFairShare } from "../share/fair-share.ts";
import { currentRequester } from "../share/requester.ts";

type Read = { resolve: (rows: RawRows) => void; reject: (error: Error) => void };
type Reader = { worker: Worker; pending: Map<number, Read>; loaded: Promise<void> };

/** Reads a reader may hold at once: the one it runs, and one waiting in its queue. */
const DEPTH = 2;

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
  const share = createFairShare(count * DEPTH, clientShare(count));
  let nextId = 0;
  let closed = false;

  function start(): Reader {
    const worker = new Worker(new URL("./read-worker.mjs", import.meta.url), { workerData: { file } });
    // Kept referenced until its connection is open, then never what keeps the process alive: a
    // thread stopped while better-sqlite3 loads (by close, or by the process ending) aborts the
    // process (node-addon-api's "FATAL ERROR: Error::New").
    let isLoaded = () => {};
    const loaded = new Promise<void>((resolve) => (isLoaded = resolve));
    const reader: Reader = { worker, pending: new Map(), loaded };
    worker.on(
      "message",
      (message: {
        id: number;
        ready?: boolean;
        names?: string[];
        rows?: unknown[][];
        error?: { message: string; code?: string };
      }) => {
        if (message.ready) {
          if (reader.pending.size === 0) worker.unref();
          return isLoaded();
        }
        const read = finish(reader, message.id);
        if (!read) return;
        if (message.error) read.reject(new SqliteReadError(message.error.message, message.error.code));
        else read.resolve({ names: message.names!, rows: message.rows! });
      },
    );
    const fail = (error: Error) => {
      if (readers.includes(reader)) readers.splice(readers.indexOf(reader), 1); // the next read starts a new one
      for (const id of [...reader.pending.keys()]) finish(reader, id)?.reject(error);
    };
    worker.on("error", fail);
    worker.on("exit", (code) => {
      isLoaded();
      if (readers.includes(reader)) fail(new SqliteReadError(`SQLite reader thread stopped (exit code ${code})`));
    });
    readers.push(reader);
    return reader;
  }

  /** The read `id` of `reader`, now answered (or lost). */
  function finish(reader: Reader, id: number): Read | undefined {
    const read = reader.pending.get(id);
    reader.pending.delete(id);
    if (reader.pending.size === 0) void reader.loaded.then(() => reader.pending.size === 0 && reader.worker.unref());
    return read;
  }

  /** Runs a read on the reader with the fewest in flight. */
  function readOnReader(sql: string, args: readonly unknown[]): Promise<RawRows> {
    if (closed) return Promise.reject(closedError());
    // Every reader is started with the first read (and one that stopped, with the next): a reader
    // started when a read needed it made that read wait for a thread, a connection and its
    // statements (another client's cheap search, 1.8 s behind a flood on a loaded machine), where
    // an idle reader was what the fair share kept for it.
    while (readers.length < count) start();
    const reader = readers.reduce((best, r) => (r.pending.size < best.pending.size ? r : best));
    const id = nextId++;
    return new Promise<RawRows>((resolve, reject) => {
      if (reader.pending.size === 0) reader.worker.ref(); // a read in flight keeps the process up until answered
      reader.pending.set(id, { resolve, reject });
      reader.worker.postMessage({ id, sql, args });
    });
  }

  return {
    read(sql, args) {
      if (closed) return Promise.reject(closedError());
      return share.run(currentRequester(), () => readOnReader(sql, args));
    },
    async close() {
      closed = true; // reads still waiting for their turn are refused when it comes
      const stopping = readers.splice(0);
      for (const r of stopping) for (const id of [...r.pending.keys()]) finish(r, id)?.reject(closedError());
      // A thread still loading is stopped once loaded (see start). The timer keeps the process up
      // until every thread has stopped, which an unreferenced thread does not.
      const waiting = setInterval(() => undefined, 1_000);
      try {
        await Promise.all(stopping.map((r) => r.loaded.then(() => r.worker.terminate())));
      } finally {
        clearInterval(waiting);
      }
    },
  };
}
