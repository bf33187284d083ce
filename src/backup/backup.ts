// `admin backup <dir>`: a consistent snapshot of the running service's data into a new folder:
//   database.sqlite   SQLite's online backup of the database file (sqlite-snapshot.ts), or
//   database.pgdump   pg_dump's custom-format archive (restorable with pg_restore by hand too),
//   uploads/          the cover files the snapshot's rows name, no more, no fewer (covers.ts),
//                     from UPLOAD_DIR or from the bucket (UPLOAD_STORE=s3),
//   uploads.sha256    their checksums (`cd uploads && sha256sum -c ../uploads.sha256`),
//   manifest.json     schema migrations, row count and checksum per table, when,
//   manifest.sha256   written last: the manifest's own checksum.
// The service keeps serving and writing throughout: the database is read in one snapshot, and
// the covers the service removes meanwhile are kept for the backup (a hold, made before it).
// Another program's objects in the same database are left out (ownership.ts).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { coverStoreAt, type CoverHold, type CoverLocation } from "../storage/cover-store.ts";
import { sha256OfFile } from "../storage/file-copies.ts";
import { refuseMissingFromBucket } from "./bucket-checks.ts";
import { fingerprint } from "./checksums.ts";
import { failedWith } from "./failures.ts";
import { dialectOf } from "../db/dialect.ts";
import { openConnection, quoteName, redactUrl, type Connection } from "./connection.ts";
import { checksumLines, copySnapshotCovers, totalBytes } from "./covers.ts";
import { syncFilesystem, writeFileDurably } from "./files.ts";
import {
  DANGLING_LISTED,
  DATABASE_FILES,
  MANIFEST_CHECKSUM,
  MANIFEST_FILE,
  manifestChecksum,
  newManifest,
  UPLOADS_CHECKSUMS,
  UPLOADS_FOLDER,
  type Manifest,
} from "./manifest.ts";
import { claimEmptyFolder } from "./output-folder.ts";
import { listObjects, othersInFile, ownership, type DbObject } from "./ownership.ts";
import { findPgTool, libpqConnection, serverMajor, startPgTool } from "./postgres-tools.ts";
import type { Progress } from "./progress.ts";
import { appliedMigrations, refuseNewerSchema } from "./schema-version.ts";
import { copySqliteSnapshot, dropObjects } from "./sqlite-snapshot.ts";
import { describeTables } from "./tables.ts";

export type BackupOptions = {
  url: string;
  /** UPLOAD_DIR, or the bucket (UPLOAD_STORE=s3). */
  uploads: CoverLocation;
  dir: string;
  /** A bucket lacking covers the snapshot names is no failure (bucket-checks.ts). */
  allowMissingCovers?: boolean;
  progress: Progress;
};
export type BackupResult = { dir: string; manifest: Manifest; seconds: number };

export async function backup({
  url,
  uploads,
  dir,
  allowMissingCovers,
  progress,
}: BackupOptions): Promise<BackupResult> {
  const started = performance.now();
  const provider = dialectOf(url)!;
  // Checked before the folder is touched: a database this version can read, the tools it needs.
  // Read-only: a database that turns out not to be the gateway's is left exactly as it was.
  const source = await openConnection(url, { mustExist: true, readonly: true });
  try {
    refuseNewerSchema(source, await appliedMigrations(source));
    await describeTables(source);
    const { foreign } = await ownership(source);
    const tool = provider === "postgres" ? findPgTool("pg_dump", await serverMajor(source)) : "";
    return await writeBackup(source, foreign, { url, uploads, dir, allowMissingCovers, progress }, tool, started);
  } finally {
    progress.end();
    await source.close();
  }
}

/** Fills the new folder; on any failure removes what it wrote. */
async function writeBackup(
  source: Connection,
  foreign: DbObject[],
  { url, uploads: coversAt, dir, allowMissingCovers = false, progress }: BackupOptions,
  tool: string,
  started: number,
): Promise<BackupResult> {
  const provider = source.provider;
  const covers = await coverStoreAt(coversAt); // a bucket that cannot be used: refused before the folder is made
  const output = claimEmptyFolder(dir);
  let hold: CoverHold | undefined;
  try {
    const uploads = path.join(output.dir, UPLOADS_FOLDER);
    mkdirSync(uploads);
    hold = await covers.hold(); // before the snapshot: what the service removes from now on is kept
    const databaseFile = path.join(output.dir, DATABASE_FILES[provider]);
    const taken =
      provider === "sqlite"
        ? await snapshotSqlite(source, databaseFile, progress)
        : await snapshotPostgres(source, url, tool, databaseFile, foreign, progress);
    const leftOut = taken.leftOut ?? foreign;
    const present = await covers.list(); // after it: every cover there at the snapshot is listed
    const copied = await copySnapshotCovers(covers, uploads, taken.covers, present, progress);
    refuseMissingFromBucket(covers, copied.dangling, allowMissingCovers);
    await hold.release();
    hold = undefined;
    const checksums = checksumLines(copied.files);
    await writeFileDurably(path.join(output.dir, UPLOADS_CHECKSUMS), checksums);
    const database = await sha256OfFile(databaseFile);
    await syncFilesystem(output.dir);
    const manifest = newManifest({
      provider,
      snapshotAt: taken.snapshotAt.toISOString(),
      finishedAt: new Date().toISOString(),
      source: redactUrl(url),
      migrations: taken.migrations,
      database: {
        file: DATABASE_FILES[provider],
        format: taken.format,
        bytes: database.bytes,
        sha256: database.sha256,
        tool: taken.tool,
        ...(taken.schema ? { schema: taken.schema } : {}),
      },
      tables: taken.tables,
      uploads: {
        files: copied.files.size,
        bytes: totalBytes(copied.files),
        danglingCount: copied.dangling.length,
        dangling: copied.dangling.slice(0, DANGLING_LISTED),
        checksumsSha256: createHash("sha256").update(checksums).digest("hex"),
      },
      ...(leftOut.length ? { leftOut: leftOut.map((o) => listObjects([o])) } : {}),
    });
    const text = `${JSON.stringify(manifest, null, 2)}\n`;
    await writeFileDurably(path.join(output.dir, MANIFEST_FILE), text);
    await writeFileDurably(path.join(output.dir, MANIFEST_CHECKSUM), manifestChecksum(text));
    return { dir: output.dir, manifest, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    hold?.releaseNow();
    output.discard();
    throw failedWith(error, "the partial backup was removed");
  }
}

type Snapshot = Pick<Manifest, "migrations" | "tables"> & {
  snapshotAt: Date;
  covers: Set<string>;
  format: string;
  tool: string;
  schema?: string;
  /** Another program's objects, left out (SQLite: dropped from the copy). */
  leftOut?: DbObject[];
};

/** Copies the file in one read snapshot, then reads the copy (what was written is what is checked). */
async function snapshotSqlite(source: Connection, databaseFile: string, progress: Progress): Promise<Snapshot> {
  progress.phase("database", 0, "pages");
  let copied = 0;
  const snapshotAt = await copySqliteSnapshot(source.file!, databaseFile, (done, total) => {
    if (copied === 0) progress.phase("database", total, "pages");
    progress.advance(done - copied);
    copied = done;
  });
  const leftOut = await othersInFile(databaseFile);
  dropObjects(databaseFile, leftOut);
  const copy = await openConnection(`file:${databaseFile}`, { mustExist: true, readonly: true });
  try {
    const migrations = await appliedMigrations(copy);
    const { tables, covers } = await fingerprint(copy, await describeTables(copy), progress);
    return { snapshotAt, migrations, tables, covers, leftOut, format: "sqlite", tool: `SQLite online backup API` };
  } finally {
    await copy.close();
  }
}

/** A pg_dump pattern naming exactly `name` (no wildcard). */
const exactly = (...parts: string[]) => parts.map(quoteName).join(".");

/**
 * pg_dump reads the snapshot this connection exports, while the connection reads the same
 * snapshot for the checksums and the covers: the archive and the manifest describe the same data.
 * Another program's tables, views and sequences, and the schemas other than the gateway's, are
 * left out of the archive (its functions pg_dump cannot leave out; restore leaves them out).
 */
async function snapshotPostgres(
  source: Connection,
  url: string,
  tool: string,
  databaseFile: string,
  foreign: DbObject[],
  progress: Progress,
): Promise<Snapshot> {
  progress.phase("database (pg_dump)", 0, "");
  const snapshotAt = new Date();
  await source.beginSnapshot();
  try {
    const [[snapshotId, schema]] = (await source.rows("SELECT pg_export_snapshot(), current_schema()")) as [
      [string, string],
    ];
    const { uri, env } = libpqConnection(url);
    const leaveOut = [
      ...new Set(
        foreign.filter((o) => o.schema && o.schema !== schema).map((o) => `--exclude-schema=${exactly(o.schema!)}`),
      ),
      ...foreign
        .filter((o) => o.schema === schema && /table|view|sequence/.test(o.kind))
        .map((o) => `--exclude-table=${exactly(schema, o.bare!)}`),
    ];
    const dump = startPgTool(
      tool,
      [
        "--format=custom",
        `--snapshot=${snapshotId}`,
        "--no-owner",
        "--no-acl",
        ...leaveOut,
        `--file=${databaseFile}`,
        `--dbname=${uri}`,
      ],
      env,
    );
    const [, taken] = await Promise.all([
      dump.done,
      (async () => {
        const migrations = await appliedMigrations(source);
        return { migrations, ...(await fingerprint(source, await describeTables(source), progress)) };
      })().catch((error) => {
        dump.child.kill();
        throw error;
      }),
    ]);
    const version = await toolVersion(tool);
    return { snapshotAt, ...taken, format: "pg_dump custom", tool: version, schema };
  } catch (error) {
    rmSync(databaseFile, { force: true });
    throw error;
  } finally {
    await source.endSnapshot().catch(() => {});
  }
}

const toolVersion = (tool: string): Promise<string> =>
  new Promise((resolve) =>
    execFile(tool, ["--version"], (error, stdout) => resolve(error ? path.basename(tool) : stdout.trim())),
  );
