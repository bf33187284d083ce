// `admin copy-data --to <DATABASE_URL>`: copies every table of the model from the database
// DATABASE_URL names into another one, SQLite -> PostgreSQL (the move) or PostgreSQL -> SQLite
// (development), with ids, timestamps, token hashes, rating sums, tags and positions as they are;
// covers too with --uploads-to. The target is migrated first (so its own indexes, triggers and
// search tables are built by its migrations as rows arrive), then filled parent tables first.
//
// Resumable: each batch of rows commits together with the key it ended at, in a progress table
// of the target (`_gateway_copy_progress`), so after a kill -9 the next run goes on from the last
// committed batch: nothing is copied twice (primary keys would refuse it anyway), nothing skipped.
// The source is read in one snapshot per run. It ends with the verification report: row counts
// and checksums per table on both sides (and the covers); any difference exits non-zero.
// The target is looked at first, read-only: one holding rows of the gateway's tables, or another
// program's objects (connection/ownership.ts), is refused unless --overwrite, which empties the gateway's
// tables and leaves the other objects as they are; --uploads-to a folder holding other files under
// the covers' names, likewise. Covers a running source removes meanwhile are kept for the copy (a
// hold, as a backup makes: files/covers.ts).
import { setTimeout } from "node:timers/promises";
import { dialectOf } from "../db/dialect.ts";
import { migrate } from "../db/migrate.ts";
import { readMigrations } from "../db/migrations.ts";
import { coverStoreAt, type CoverListing, type CoverLocation } from "../storage/cover-store.ts";
import { refuseStrangers } from "./bucket-checks.ts";
import { fingerprint } from "./checksums.ts";
import {
  quoteName,
  type Canonical,
  type DataConnection,
  type DbObject,
  type TableSpec,
} from "./connection/data-connection.ts";
import { dataDialectOf, openConnection } from "./connection/open.ts";
import { checkCovers, copySnapshotCovers, sortReferenced } from "./files/covers.ts";
import { failedWith } from "./failures.ts";
import { checkpoint } from "./interruption.ts";
import { listObjects, refuseOthers } from "./connection/ownership.ts";
import type { Progress } from "./progress.ts";
import { countRows, readBatches } from "./connection/rows.ts";
import { appliedMigrations, refuseNewerSchema } from "./connection/schema-version.ts";
import { describeTables, SchemaMismatch, tablesWithRows, TargetNotEmpty } from "./connection/tables.ts";
import { compare, differences, VerificationFailed, type CoverCheck, type Verification } from "./verification.ts";

export type CopyOptions = {
  sourceUrl: string;
  targetUrl: string;
  /** The source's covers: UPLOAD_DIR, or the bucket (UPLOAD_STORE=s3). */
  uploads: CoverLocation;
  /** Where the target's covers go; without it they stay where they are (the new instances share UPLOAD_DIR). */
  uploadsTo?: CoverLocation;
  batchRows: number;
  /** Milliseconds to wait after each committed batch: a source that serves meanwhile keeps its I/O. */
  pauseMs: number;
  /** Empties a target that holds an unfinished or failed copy, and copies again. */
  restart: boolean;
  /** Fills a target holding data or another program's objects: the gateway's tables emptied first, the rest left alone. */
  overwrite: boolean;
  progress: Progress;
};

export type CopyResult = {
  verification: Verification;
  rows: number;
  resumed: boolean;
  coversCopied: number;
  /** Another program's objects in the target, left as they were. */
  kept: string[];
  seconds: number;
};

const PROGRESS_TABLE = quoteName("_gateway_copy_progress");
/** The progress table's row that names the source (the others are per table). */
const SOURCE_ROW = "";

/** Refused: source and target are the same database (exit code 1). */
export class SameDatabase extends Error {}

export async function copyData(options: CopyOptions): Promise<CopyResult> {
  const started = performance.now();
  const { sourceUrl, targetUrl, progress } = options;
  if (sameDatabase(sourceUrl, targetUrl))
    throw new SameDatabase("--to names the database DATABASE_URL names: copy-data needs another database");
  // Read-only: a source or a target that turns out not to be usable is left exactly as it was.
  const source = await openConnection(sourceUrl, { mustExist: true, readonly: true });
  let target: DataConnection | undefined;
  try {
    await refuseUnmigratedSource(source);
    const claim = await claimTarget(source, options);
    await refuseCoverConflicts(options);
    target = await openConnection(targetUrl);
    let copied: Omit<CopyResult, "resumed" | "seconds" | "kept">;
    try {
      copied = await fill(source, target, claim.emptyFirst, options);
    } catch (error) {
      if (error instanceof VerificationFailed) throw error;
      throw failedWith(error, "the target keeps the batches copied so far: run copy-data again to go on from there");
    }
    return {
      ...copied,
      resumed: claim.resumed,
      kept: claim.kept.map((o) => listObjects([o])),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    progress.end();
    await source.close();
    await target?.close();
  }
}

/**
 * Migrates the target (emptying the gateway's tables first when told), copies what is left,
 * verifies, and removes the progress once verified.
 */
async function fill(
  source: DataConnection,
  target: DataConnection,
  emptyFirst: boolean,
  options: CopyOptions,
): Promise<Omit<CopyResult, "resumed" | "seconds" | "kept">> {
  const { progress } = options;
  await migrate({
    dialect: target.dialect,
    url: options.targetUrl,
    poolSize: 1,
    poolIdleTimeoutMs: 0,
    sqliteSynchronous: "NORMAL",
  });
  if (emptyFirst) await emptyModelTables(target);
  await startProgress(target, source.label);
  const specs = await describeTables(source);
  refuseDifferentTables(specs, await describeTables(target));

  const covers = await coverStoreAt(options.uploads);
  const hold = await covers.hold(); // before the snapshot: covers the source removes from now on are kept
  try {
    await source.beginSnapshot();
    const rows = await copyTables(source, target, specs, options, progress);
    await target.endBulkLoad();
    const { tables: expected, covers: referenced } = await fingerprint(source, specs, progress);
    const { tables: actual } = await fingerprint(target, specs, progress);
    await source.endSnapshot();
    const present = await covers.list(); // every cover there at the snapshot is listed
    const coverCheck = await copyCovers([...referenced].sort(), present, options, progress);
    await hold.release();
    const verification = compare(expected, actual, coverCheck.check, await target.foreignKeyViolations());
    progress.end();
    if (!verification.ok) {
      throw new VerificationFailed(
        `the target differs from the source: ${differences(verification)}. Rows or covers changed in the source while copying? Stop the writers, then run copy-data again with --restart`,
        verification,
      );
    }
    await target.run(`DROP TABLE ${PROGRESS_TABLE}`);
    return { verification, rows, coversCopied: coverCheck.copied };
  } finally {
    hold.releaseNow();
  }
}

const sameDatabase = (a: string, b: string) => dialectOf(a) === dialectOf(b) && dataDialectOf(a).sameDatabase(a, b);

/** The source must be at this version's schema: the target is migrated to it, and both must agree. */
async function refuseUnmigratedSource(source: DataConnection) {
  const applied = await appliedMigrations(source);
  refuseNewerSchema(source, applied);
  const pending = readMigrations(source.dialect).filter((m) => !applied.includes(m.name));
  if (pending.length) {
    throw new SchemaMismatch(
      `${source.label} lacks migration ${pending[0]!.name} of this version: run the service (or npm run db:migrate) of this version on it first`,
    );
  }
}

/**
 * Looks at the target (read-only) and says whether this run resumes an unfinished copy, and
 * whether the gateway's tables are to be emptied first. Refused: another program's objects
 * (unless --overwrite; named like the gateway's, always), rows in the gateway's tables and no
 * progress table (unless --overwrite), a progress table naming another source.
 */
async function claimTarget(
  source: DataConnection,
  { targetUrl, restart, overwrite }: CopyOptions,
): Promise<{ resumed: boolean; emptyFirst: boolean; kept: DbObject[] }> {
  const restartRefused = () =>
    new TargetNotEmpty("--restart empties a target that holds an unfinished copy; this target holds none");
  if (dataDialectOf(targetUrl).isNew(targetUrl)) {
    if (restart) throw restartRefused();
    return { resumed: false, emptyFirst: false, kept: [] }; // a new file
  }
  const target = await openConnection(targetUrl, { readonly: true });
  try {
    const owned = await refuseOthers(target, "copy-data", overwrite);
    const kept = owned.foreign;
    const state = await readProgress(target);
    if (restart) {
      if (!state) throw restartRefused();
      return { resumed: false, emptyFirst: true, kept };
    }
    if (!state) {
      const filled = owned.isGateway ? await tablesWithRows(target) : [];
      if (filled.length && !overwrite) {
        throw new TargetNotEmpty(
          `the target database is not empty (${filled.join(", ")} hold rows): copy-data fills an empty database, or add --overwrite to replace its data`,
        );
      }
      const applied = owned.isGateway ? await appliedMigrations(target) : [];
      refuseNewerSchema(target, applied);
      return { resumed: false, emptyFirst: filled.length > 0, kept };
    }
    const from = state.get(SOURCE_ROW)?.lastKey;
    if (from !== source.label) {
      throw new TargetNotEmpty(
        `the target holds an unfinished copy from ${from}: finish it from there, or start again with --restart`,
      );
    }
    return { resumed: true, emptyFirst: false, kept };
  } finally {
    await target.close();
  }
}

/**
 * --uploads-to a folder or bucket that holds, under a cover's name, a file with other content:
 * refused unless --overwrite (a previous run's copies have the same content and stay). A bucket
 * that cannot be used, or holds what is not the source's, is refused too (bucket-checks.ts).
 */
async function refuseCoverConflicts({ uploads, uploadsTo, overwrite }: CopyOptions) {
  if (!uploadsTo) return;
  const source = await coverStoreAt(uploads);
  const target = await coverStoreAt(uploadsTo); // a bucket that cannot be used is refused here
  const sourceCovers = await source.list();
  await refuseStrangers(target, new Set([...sourceCovers.live, ...sourceCovers.removed]), overwrite);
  if (overwrite) return;
  const there = (await target.list()).live;
  for (const name of [...there].sort()) {
    checkpoint();
    const theirs = await target.read(name);
    const ours = await source.read(name, { orRemoved: true });
    if (ours && theirs && ours.sha256 !== theirs.sha256)
      throw new TargetNotEmpty(
        `${target.label} holds ${name} with other content than the source's cover of that name: add --overwrite to replace such files`,
      );
  }
}

type TableProgress = { lastKey: string | null; rows: number; done: boolean };

async function readProgress(target: DataConnection): Promise<Map<string, TableProgress> | undefined> {
  let rows: unknown[][];
  try {
    rows = await target.rows(`SELECT table_name, last_key, rows_copied, done FROM ${PROGRESS_TABLE}`);
  } catch {
    return undefined; // no such table: no copy was started here
  }
  return new Map(
    rows.map(([table, lastKey, copied, done]) => [
      String(table),
      {
        lastKey: lastKey == null ? null : String(lastKey),
        rows: Number(copied),
        done: done === true || Number(done) === 1,
      },
    ]),
  );
}

async function startProgress(target: DataConnection, sourceLabel: string) {
  await target.run(
    `CREATE TABLE IF NOT EXISTS ${PROGRESS_TABLE} (table_name TEXT PRIMARY KEY, last_key TEXT, rows_copied BIGINT NOT NULL DEFAULT 0, done BOOLEAN NOT NULL DEFAULT FALSE)`,
  );
  const p = (i: number) => target.placeholder(i);
  await target.run(
    `INSERT INTO ${PROGRESS_TABLE} (table_name, last_key) VALUES (${p(0)}, ${p(1)}) ON CONFLICT (table_name) DO NOTHING`,
    [SOURCE_ROW, sourceLabel],
  );
}

/**
 * Deletes every row of the model's tables, children first, and an earlier copy's progress. Without
 * CASCADE: another program's rows referring to them make the database refuse, and nothing goes.
 */
async function emptyModelTables(target: DataConnection) {
  const specs = await describeTables(target);
  await target.transaction(async () => {
    for (const spec of [...specs].reverse()) await target.run(`DELETE FROM ${quoteName(spec.name)}`);
    await target.run(`DROP TABLE IF EXISTS ${PROGRESS_TABLE}`);
  });
}

function refuseDifferentTables(source: TableSpec[], target: TableSpec[]) {
  const shape = (t: TableSpec) =>
    `${t.name}(${t.columns.map((c) => `${c.name} ${c.type}`).join(", ")}) key(${t.primaryKey.join(", ")})`;
  for (const s of source) {
    const t = target.find((x) => x.name === s.name);
    if (!t || shape(s) !== shape(t)) {
      throw new SchemaMismatch(
        `table ${s.name} differs between source and target (${shape(s)} against ${t ? shape(t) : "none"})`,
      );
    }
  }
}

/**
 * Copies what is left of each table, in the order the target takes them (`beginBulkLoad`);
 * returns the rows now in the target's tables.
 */
async function copyTables(
  source: DataConnection,
  target: DataConnection,
  specs: TableSpec[],
  { batchRows, pauseMs }: Pick<CopyOptions, "batchRows" | "pauseMs">,
  progress: Progress,
): Promise<number> {
  const state = (await readProgress(target))!;
  const totals: number[] = [];
  for (const spec of specs) totals.push(await countRows(source, spec.name));
  progress.phase(
    "copying rows",
    totals.reduce((a, b) => a + b, 0),
    "rows",
  );
  let copied = 0;
  for (const spec of await target.beginBulkLoad(specs)) {
    const table = state.get(spec.name) ?? { lastKey: null, rows: 0, done: false };
    progress.advance(table.rows);
    copied += table.rows;
    if (table.done) continue;
    const insert = await target.inserter(spec);
    const after = table.lastKey ? (JSON.parse(table.lastKey) as Canonical[]) : null;
    const p = (i: number) => target.placeholder(i);
    for await (const batch of readBatches(source, spec, batchRows, after)) {
      checkpoint();
      await target.transaction(async () => {
        await insert(batch.rows);
        await target.run(
          `INSERT INTO ${PROGRESS_TABLE} (table_name, last_key, rows_copied) VALUES (${p(0)}, ${p(1)}, ${p(2)})
           ON CONFLICT (table_name) DO UPDATE SET last_key = excluded.last_key, rows_copied = ${PROGRESS_TABLE}.rows_copied + excluded.rows_copied`,
          [spec.name, JSON.stringify(batch.lastKey), batch.rows.length],
        );
      });
      copied += batch.rows.length;
      progress.advance(batch.rows.length);
      if (pauseMs) await setTimeout(pauseMs);
    }
    await target.run(
      `INSERT INTO ${PROGRESS_TABLE} (table_name, done) VALUES (${p(0)}, TRUE) ON CONFLICT (table_name) DO UPDATE SET done = TRUE`,
      [spec.name],
    );
  }
  return copied;
}

/**
 * With --uploads-to: copies each cover the source's rows name into that folder or bucket (one already there
 * with the same content is kept) and reads each copy back against the original's SHA-256.
 * Without: the target's instances share UPLOAD_DIR, so a cover there only as removed (the running
 * source replaced it after the snapshot) is missing for them. `present`: the source's covers
 * listed after the snapshot, under the hold; a name it lacks is the source's own dangling
 * reference: counted apart, not as a difference.
 */
async function copyCovers(
  referenced: string[],
  present: CoverListing,
  options: CopyOptions,
  progress: Progress,
): Promise<{ check: CoverCheck; copied: number }> {
  if (!options.uploadsTo) {
    const { there, dangling } = sortReferenced(referenced, present);
    const missing = there.filter((name) => !present.live.has(name));
    progress.phase("covers", referenced.length, "files");
    progress.advance(referenced.length);
    return {
      check: {
        expected: there.length,
        present: there.length - missing.length,
        missing,
        differing: [],
        dangling: dangling.length,
      },
      copied: 0,
    };
  }
  const target = await coverStoreAt(options.uploadsTo);
  await target.prepare();
  const source = await coverStoreAt(options.uploads);
  const { files, dangling, copied } = await copySnapshotCovers(source, target, referenced, present, progress);
  const originals = new Map([...files].map(([name, file]) => [name, file.sha256]));
  const check = await checkCovers(target, originals);
  return { check: { expected: originals.size, ...check, dangling: dangling.length }, copied };
}
