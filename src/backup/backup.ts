// `admin backup <dir>`: a consistent snapshot of the running service's data into a new folder:
//   database.sqlite   SQLite's online backup of the database file (sqlite-snapshot.ts), or
//   database.pgdump   pg_dump's custom-format archive (restorable with pg_restore by hand too),
//   uploads/          the cover files the snapshot's rows name, no more, no fewer (covers.ts),
//   uploads.sha256    their checksums (`cd uploads && sha256sum -c ../uploads.sha256`),
//   manifest.json     written last: schema migrations, row count and checksum per table, when.
// The service keeps serving and writing throughout: the database is read in one snapshot.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { dialectOf } from "../db/dialect.ts";
import { fingerprint } from "./checksums.ts";
import { failedWith } from "./failures.ts";
import { openConnection, redactUrl, type Connection } from "./connection.ts";
import { checksumLines, settleCovers, stageCovers, totalBytes } from "./covers.ts";
import { sha256OfFile, syncFilesystem, writeFileDurably } from "./files.ts";
import {
  ABSENT_LISTED,
  DATABASE_FILES,
  MANIFEST_FILE,
  newManifest,
  UPLOADS_CHECKSUMS,
  UPLOADS_FOLDER,
  type Manifest,
} from "./manifest.ts";
import { claimEmptyFolder } from "./output-folder.ts";
import { findPgTool, libpqConnection, serverMajor, startPgTool } from "./postgres-tools.ts";
import type { Progress } from "./progress.ts";
import { appliedMigrations, refuseNewerSchema } from "./schema-version.ts";
import { copySqliteSnapshot } from "./sqlite-snapshot.ts";
import { describeTables } from "./tables.ts";

export type BackupOptions = { url: string; uploadDir: string; dir: string; progress: Progress };
export type BackupResult = { dir: string; manifest: Manifest; seconds: number };

export async function backup({ url, uploadDir, dir, progress }: BackupOptions): Promise<BackupResult> {
  const started = performance.now();
  const provider = dialectOf(url)!;
  // Checked before the folder is touched: a database this version can read, the tools it needs.
  const source = await openConnection(url, { mustExist: true });
  try {
    refuseNewerSchema(source, await appliedMigrations(source));
    await describeTables(source);
    const tool = provider === "postgres" ? findPgTool("pg_dump", await serverMajor(source)) : "";
    return await writeBackup(source, { url, uploadDir, dir, progress }, tool, started);
  } finally {
    progress.end();
    await source.close();
  }
}

/** Fills the new folder; on any failure removes what it wrote. */
async function writeBackup(
  source: Connection,
  { url, uploadDir, dir, progress }: BackupOptions,
  tool: string,
  started: number,
): Promise<BackupResult> {
  const provider = source.provider;
  const output = claimEmptyFolder(dir);
  try {
    const uploads = path.join(output.dir, UPLOADS_FOLDER);
    mkdirSync(uploads);
    const staged = await stageCovers(uploadDir, uploads, progress);
    const databaseFile = path.join(output.dir, DATABASE_FILES[provider]);
    const taken =
      provider === "sqlite"
        ? await snapshotSqlite(source, databaseFile, progress)
        : await snapshotPostgres(source, url, tool, databaseFile, progress);
    progress.phase("covers", taken.covers.size, "files");
    const covers = await settleCovers(uploadDir, uploads, staged, taken.covers);
    progress.advance(taken.covers.size);
    const checksums = checksumLines(covers.files);
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
      },
      tables: taken.tables,
      uploads: {
        files: covers.files.size,
        bytes: totalBytes(covers.files),
        absentCount: covers.absent.length,
        absent: covers.absent.slice(0, ABSENT_LISTED),
        checksumsSha256: createHash("sha256").update(checksums).digest("hex"),
      },
    });
    await writeFileDurably(path.join(output.dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    output.keep();
    return { dir: output.dir, manifest, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    output.discard();
    throw failedWith(error, "the partial backup was removed");
  }
}

type Snapshot = Pick<Manifest, "migrations" | "tables"> & {
  snapshotAt: Date;
  covers: Set<string>;
  format: string;
  tool: string;
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
  const copy = await openConnection(`file:${databaseFile}`, { mustExist: true, readonly: true });
  try {
    const migrations = await appliedMigrations(copy);
    const { tables, covers } = await fingerprint(copy, await describeTables(copy), progress);
    return { snapshotAt, migrations, tables, covers, format: "sqlite", tool: `SQLite online backup API` };
  } finally {
    await copy.close();
  }
}

/**
 * pg_dump reads the snapshot this connection exports, while the connection reads the same
 * snapshot for the checksums and the covers: the archive and the manifest describe the same data.
 */
async function snapshotPostgres(
  source: Connection,
  url: string,
  tool: string,
  databaseFile: string,
  progress: Progress,
): Promise<Snapshot> {
  progress.phase("database (pg_dump)", 0, "");
  const snapshotAt = new Date();
  await source.beginSnapshot();
  try {
    const [[snapshotId]] = (await source.rows("SELECT pg_export_snapshot()")) as [[string]];
    const { uri, env } = libpqConnection(url);
    const dump = startPgTool(
      tool,
      [
        "--format=custom",
        `--snapshot=${snapshotId}`,
        "--no-owner",
        "--no-acl",
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
    return { snapshotAt, ...taken, format: "pg_dump custom", tool: version };
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
