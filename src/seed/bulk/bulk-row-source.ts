// The main thread's side of the row worker (bulk-row-worker.ts): batches of a catalogue's rows,
// asked for AHEAD at a time so the worker generates the next while the database writes this one.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { CopyRows, CoverBytes, FlatRows } from "./bulk-rows.ts";
import type { Size } from "../dataset.ts";
import type { PatternRow } from "../opening-patterns.ts";

/** How the worker encodes each table: flat statement values (SQLite) or COPY text (PostgreSQL). */
export type RowFormat = "sqlite" | "copy";
/** A table's rows as each format encodes them. */
export type Encoded = { sqlite: FlatRows; copy: CopyRows };
export type RowWorkerData = {
  size: Size;
  badgeIds: string[];
  coverBytes: CoverBytes;
  patterns: PatternRow[];
  format: RowFormat;
};
export type RowJob = { catalogue: "restaurants" | "groceries"; from: number; to: number };
/** A batch's tables, and the opening patterns its restaurants named first. */
export type RowBatch<T> = { tables: T[]; patterns: PatternRow[] };

/** Batches generated before the one being written is done: enough to keep the worker busy. */
const AHEAD = 2;
/** The worker runs the TypeScript sources as the seed does, through tsx (under vitest too). */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

export class BulkRowWorker<F extends RowFormat> {
  private readonly worker: Worker;
  private readonly waiting: { resolve: (batch: RowBatch<Encoded[F]>) => void; reject: (error: Error) => void }[] = [];
  private failure: Error | undefined;

  constructor(data: RowWorkerData & { format: F }) {
    this.worker = new Worker(new URL("./bulk-row-worker.ts", import.meta.url), {
      workerData: data,
      execArgv: ["--import", TSX],
    });
    this.worker.on("message", (batch: RowBatch<Encoded[F]>) => this.waiting.shift()?.resolve(batch));
    this.worker.on("error", (error) => this.fail(error));
    this.worker.on("exit", (code) => this.fail(new Error(`the seed's row worker stopped (exit code ${code})`)));
  }

  private fail(error: Error) {
    this.failure ??= error;
    for (const { reject } of this.waiting.splice(0)) reject(this.failure);
  }

  private ask(job: RowJob): Promise<RowBatch<Encoded[F]>> {
    if (this.failure) return Promise.reject(this.failure);
    const batch = new Promise<RowBatch<Encoded[F]>>((resolve, reject) => this.waiting.push({ resolve, reject }));
    batch.catch(() => {}); // awaited in turn by batches(); a failure before then is not unhandled
    this.worker.postMessage(job);
    return batch;
  }

  /** The catalogue's items 1..total in batches of `batchSize`, in order, with how many items each holds. */
  async *batches(
    catalogue: RowJob["catalogue"],
    total: number,
    batchSize: number,
  ): AsyncGenerator<RowBatch<Encoded[F]> & { items: number }> {
    const jobs: RowJob[] = [];
    for (let from = 1; from <= total; from += batchSize)
      jobs.push({ catalogue, from, to: Math.min(from + batchSize - 1, total) });
    const asked: Promise<RowBatch<Encoded[F]>>[] = [];
    let next = 0;
    const askNext = () => {
      if (next < jobs.length) asked.push(this.ask(jobs[next++]!));
    };
    for (let i = 0; i < AHEAD; i++) askNext();
    for (const { from, to } of jobs) {
      const batch = await asked.shift()!;
      askNext();
      yield { ...batch, items: to - from + 1 };
    }
  }

  async close() {
    this.worker.removeAllListeners("exit");
    await this.worker.terminate();
  }
}
