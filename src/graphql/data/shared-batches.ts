// Rows by id that every request of the same moment reads in one statement. A request's loaders
// batch its own look-ups (context.ts); under load, many requests ask for a restaurant at once, each
// with its own statement, and each statement costs the server and the database more than its row
// (docs/performance.md, "One statement for the requests of a moment"). Only reads whose SQL no
// viewer changes come here: who may see which field is decided after, per request, by the schema.
import DataLoader from "dataloader";
import type { Db } from "../../db/db.ts";

/** At most this many ids in one shared statement: one request's ids never wait behind thousands. */
const MAX_SHARED_IDS = 64;

/**
 * `read` for the ids every request asks in the same turn of the event loop, as one call per
 * database: the batch is sent once the loop has read every request that arrived (setImmediate runs
 * after its poll phase), not at the end of one request's microtasks. Answers one row or null per
 * id, in order. Nothing is cached: each turn reads anew, so a request never sees a row older than
 * the moment it asked.
 */
export function sharedBatches<R>(read: (db: Db, ids: string[]) => Promise<R[]>, idOf: (row: R) => string) {
  const loaders = new WeakMap<Db, DataLoader<string, R | null>>();
  return (db: Db, ids: readonly string[]): Promise<(R | null | Error)[]> => {
    let loader = loaders.get(db);
    if (!loader) {
      loader = new DataLoader<string, R | null>(
        async (keys) => {
          const rows = new Map((await read(db, [...new Set(keys)])).map((row) => [idOf(row), row]));
          return keys.map((key) => rows.get(key) ?? null);
        },
        { cache: false, maxBatchSize: MAX_SHARED_IDS, batchScheduleFn: (send) => setImmediate(send) },
      );
      loaders.set(db, loader);
    }
    return loader.loadMany(ids);
  };
}

/** The rows a shared batch found, or its error (the statement failed: so does each request's batch). */
export function found<R>(answers: (R | null | Error)[]): R[] {
  const rows: R[] = [];
  for (const answer of answers) {
    if (answer instanceof Error) throw answer;
    if (answer) rows.push(answer);
  }
  return rows;
}
