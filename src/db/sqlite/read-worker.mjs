// A reader thread for SQLite (readers.ts): its own read-only connection to the database
// file, so a long search runs here while the event loop goes on serving everything else. WAL lets
// it read the last committed state while the service writes. Plain JavaScript: a worker thread
// has no TypeScript loader in every runner (vitest's workers, the bench).
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { registerLocalTime } from "./local-time.mjs";

const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma("busy_timeout = 5000");
db.pragma(`cache_size = ${workerData.cacheSize ?? -20000}`);
db.pragma("temp_store = MEMORY");
registerLocalTime(db);
// Loaded: the service may stop this thread from now on (readers.ts close); stopped while
// better-sqlite3 was still loading, the process aborted ("FATAL ERROR: Error::New").
parentPort.postMessage({ ready: true });

/** Prepared statements a reader keeps, least recently used out first (as the driver's cache). */
const STATEMENTS = 200;
const statements = new Map();

function statementOf(sql) {
  let entry = statements.get(sql);
  if (entry) {
    statements.delete(sql); // re-inserted below: the Map's order is the recency order
  } else {
    const stmt = db.prepare(sql);
    entry = { stmt, names: stmt.columns().map((c) => c.name) };
    if (statements.size >= STATEMENTS) statements.delete(statements.keys().next().value);
  }
  statements.set(sql, entry);
  return entry;
}

parentPort.on("message", ({ id, sql, args }) => {
  try {
    const { stmt, names } = statementOf(sql);
    parentPort.postMessage({ id, names, rows: stmt.raw(true).all(args) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error?.message ?? error), code: error?.code } });
  }
});
