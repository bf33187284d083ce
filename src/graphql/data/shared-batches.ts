// Rows by id that the requests of the same moment read in one statement. A request's loaders
// batch its own look-ups (context.ts); under load, many requests ask for a restaurant at once, each
// with its own statement, and each statement costs the server and the database more than its row
// (docs/performance.md, "One statement for the requests of a moment"). Only reads whose SQL no
// viewer changes come here: who may see which field is decided after, per request, by the schema.
import type { Db } from "../../db/db.ts";

/**
 * At most this many ids in one shared statement, unless one request asks more alone. The answers
 * of one statement are written in the same turn of the event loop, so a larger batch holds the
 * loop longer for every request in it.
 */
const MAX_SHARED_IDS = 16;

/**
 * Statements of one read in flight at once. While they run, the ids asked meanwhile wait here and
 * go in the next one, so the busier the database, the larger the batches (rather than many small
 * statements queued for the pool's connections).
 */
const MAX_IN_FLIGHT = 2;

/** One request's batch of ids, answered with the rows found or the statement's error. */
type Waiting<R> = { ids: readonly string[]; answer: (rows: Map<string, R> | Error) => void };

/**
 * `read` for the ids the requests ask, sent when the event loop has read every request that
 * arrived (setImmediate runs after its poll phase), one batch per database. Answers the rows found
 * (unknown ids absent), or the statement's error. Nothing is cached: a request never sees a row
 * older than the moment it asked.
 */
export function sharedBatches<R>(read: (db: Db, ids: string[]) => Promise<R[]>, idOf: (row: R) => string) {
  const batches = new WeakMap<Db, (ids: readonly string[]) => Promise<Map<string, R>>>();
  return async (db: Db, ids: readonly string[]): Promise<R[]> => {
    let batch = batches.get(db);
    if (!batch) batches.set(db, (batch = batchOf((some) => read(db, some), idOf)));
    const found = await batch(ids);
    return ids.flatMap((id) => found.get(id) ?? []);
  };
}

function batchOf<R>(read: (ids: string[]) => Promise<R[]>, idOf: (row: R) => string) {
  const waiting: Waiting<R>[] = [];
  let inFlight = 0;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || inFlight >= MAX_IN_FLIGHT || waiting.length === 0) return;
    scheduled = true;
    setImmediate(send);
  };

  const send = () => {
    scheduled = false;
    // The first request's ids whole, however many (one request's look-ups stay one statement),
    // then the next requests' while they fit under the cap.
    const ids = new Set(waiting[0]!.ids);
    let taken = 1;
    while (taken < waiting.length && ids.size + waiting[taken]!.ids.length <= MAX_SHARED_IDS)
      for (const id of waiting[taken++]!.ids) ids.add(id);
    const some = waiting.splice(0, taken);
    inFlight++;
    Promise.resolve()
      .then(() => read([...ids]))
      .then(
        (rows) => new Map(rows.map((row) => [idOf(row), row])),
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      )
      .then((answer) => {
        for (const request of some) request.answer(answer);
        inFlight--;
        schedule();
      });
    schedule();
  };

  return (ids: readonly string[]) =>
    new Promise<Map<string, R>>((resolve, reject) => {
      waiting.push({ ids, answer: (answer) => (answer instanceof Error ? reject(answer) : resolve(answer)) });
      schedule();
    });
}
