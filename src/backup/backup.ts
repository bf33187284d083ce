// `admin backup <dir>`: a consistent snapshot of the running service's data into a new folder:
//   database.sqlite   SQLite's online backup of the database file (connection/sqlite/snapshot.ts), or
//   database.pgdump   pg_dump's custom-format archive (restorable with pg_restore by hand too),
//   uploads/          the cover files the snapshot's rows name, no more, no fewer (files/covers.ts),
//                     from UPLOAD_DIR or from the bucket (UPLOAD_STORE=s3),
//   uploads.sha256    their checksums (`cd uploads && sha256sum -c ../uploads.sha256`),
//   manifest.json     schema migrations, row count and checksum per table, when,
//   manifest.sha256   written last: the manifest's own checksum.
// The service keeps serving and writing throughout: the database is read in one snapshot, and
// the covers the service removes meanwhile are kept for the backup (a hold, made before it).
// Another program's objects in the same database are left out (connection/ownership.ts).
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { coverStoreAt, type CoverHold, type CoverLocation } from "../storage/cover-store.ts";
import { sha256OfFile } from "../storage/file-copies.ts";
import { refuseMissingFromBucket } from "./bucket-checks.ts";
import { fingerprint } from "./checksums.ts";
import { failedWith } from "./failures.ts";
import type { DatabaseBackup, DataConnection, DbObject } from "./connection/data-connection.ts";
import { dataDialectOf, redactUrl } from "./connection/open.ts";
import { checksumLines, copySnapshotCovers, totalBytes } from "./files/covers.ts";
import { syncFilesystem, writeFileDurably } from "./files/durable-files.ts";
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
} from "./files/manifest.ts";
import { claimEmptyFolder } from "./files/output-folder.ts";
import { listObjects, ownership } from "./connection/ownership.ts";
import type { Progress } from "./progress.ts";
import { appliedMigrations, refuseNewerSchema } from "./connection/schema-version.ts";
import { describeTables } from "./connection/tables.ts";

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
  const dialect = dataDialectOf(url);
  // Checked before the folder is touched: a database this version can read, the tools it needs.
  // Read-only: a database that turns out not to be the gateway's is left exactly as it was.
  const source = await dialect.open(url, { mustExist: true, readonly: true });
  try {
    refuseNewerSchema(source, await appliedMigrations(source));
    await describeTables(source);
    const { foreign } = await ownership(source);
    const database = await dialect.prepareBackup(source);
    return await writeBackup(source, database, foreign, { url, uploads, dir, allowMissingCovers, progress }, started);
  } finally {
    progress.end();
    await source.close();
  }
}

/** Fills the new folder; on any failure removes what it wrote. */
async function writeBackup(
  source: DataConnection,
  database: DatabaseBackup,
  foreign: DbObject[],
  { url, uploads: coversAt, dir, allowMissingCovers = false, progress }: BackupOptions,
  started: number,
): Promise<BackupResult> {
  const dialect = source.dialect;
  const covers = await coverStoreAt(coversAt); // a bucket that cannot be used: refused before the folder is made
  const output = claimEmptyFolder(dir);
  let hold: CoverHold | undefined;
  try {
    const uploads = path.join(output.dir, UPLOADS_FOLDER);
    mkdirSync(uploads);
    hold = await covers.hold(); // before the snapshot: what the service removes from now on is kept
    const databaseFile = path.join(output.dir, DATABASE_FILES[dialect]);
    const taken = await database.write({ url, file: databaseFile, foreign, progress }, async (snapshot) => ({
      migrations: await appliedMigrations(snapshot),
      ...(await fingerprint(snapshot, await describeTables(snapshot), progress)),
    }));
    const leftOut = taken.leftOut ?? foreign;
    const present = await covers.list(); // after it: every cover there at the snapshot is listed
    const copied = await copySnapshotCovers(covers, uploads, taken.read.covers, present, progress);
    refuseMissingFromBucket(covers, copied.dangling, allowMissingCovers);
    await hold.release();
    hold = undefined;
    const checksums = checksumLines(copied.files);
    await writeFileDurably(path.join(output.dir, UPLOADS_CHECKSUMS), checksums);
    const written = await sha256OfFile(databaseFile);
    await syncFilesystem(output.dir);
    const manifest = newManifest({
      provider: dialect,
      snapshotAt: taken.snapshotAt.toISOString(),
      finishedAt: new Date().toISOString(),
      source: redactUrl(url),
      migrations: taken.read.migrations,
      database: {
        file: DATABASE_FILES[dialect],
        format: taken.format,
        bytes: written.bytes,
        sha256: written.sha256,
        tool: taken.tool,
        ...(taken.schema ? { schema: taken.schema } : {}),
      },
      tables: taken.read.tables,
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
