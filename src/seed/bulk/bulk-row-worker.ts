// The bulk seed's rows, generated in a worker thread: the writer's thread only writes (SQLite's
// inserts; PostgreSQL's COPY streams, which wait for the event loop), while the next batches are
// generated and encoded on the machine's other core. Jobs are answered in the order they arrive.
// Started by BulkRowWorker (bulk-row-source.ts).
import { parentPort, workerData } from "node:worker_threads";
import { copyForPostgres, flatForSqlite, groceryRows, restaurantRows } from "./bulk-rows.ts";
import type { RowBatch, RowJob, RowWorkerData } from "./bulk-row-source.ts";
import { SeedOpeningPatterns } from "../opening-patterns.ts";

const { size, badgeIds, coverBytes, patterns: existing, format } = workerData as RowWorkerData;
const encode = format === "sqlite" ? flatForSqlite : copyForPostgres;
// One namer for the whole load, so a pattern has one id however many batches use it.
const patterns = new SeedOpeningPatterns(existing);
let patternsSent = 0;

parentPort!.on("message", ({ catalogue, from, to }: RowJob) => {
  const tables =
    catalogue === "restaurants"
      ? restaurantRows(from, to, size, badgeIds, patterns)
      : groceryRows(from, to, size, coverBytes);
  const named = patterns.added().slice(patternsSent);
  patternsSent += named.length;
  const batch: RowBatch<unknown> = { tables: encode(tables), patterns: named };
  parentPort!.postMessage(batch);
});
