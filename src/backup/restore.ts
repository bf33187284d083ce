// `admin restore <dir>`: puts a backup back into the database DATABASE_URL names and its covers
// into UPLOAD_DIR (or the bucket, UPLOAD_STORE=s3), then checks every table and cover against the manifest. Before anything is written:
// - the whole backup is checked: the folder exists and is a backup (manifest.json, matching its
//   checksum), of a format and schema this version knows, for this kind of database, and every
//   file matches its checksum (the database file, the covers' list, each cover);
// - the target is looked at, read-only: it holds no rows in the gateway's tables and nothing of
//   another program's (ownership.ts), and UPLOAD_DIR no other file under a cover's name, unless
//   --overwrite, which then replaces only what is the gateway's and leaves the rest untouched.
// The database is written in one transaction (SQLite's backup API; on PostgreSQL, pg_restore's
// script of the gateway's entries run by psql with --single-transaction, after dropping the
// target's gateway objects), so a failure halfway leaves it as it was, and the covers are put
// back as they were. Afterwards pending migrations bring it up to this version.
import { copyFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { migrate } from "../db/migrate.ts";
import { sqliteFilePath } from "../db/sqlite/file.ts";
import { createFolders, FolderRefused, removeFolders, sha256OfFile } from "../storage/file-copies.ts";
import { coverStoreAt, type CoverLocation, type CoverStore } from "../storage/cover-store.ts";
import { fingerprint } from "./checksums.ts";
import { dialectOf, type Dialect } from "../db/dialect.ts";
import { analyze, openConnection } from "./connection.ts";
import { checkCovers, parseChecksumLines } from "./covers.ts";
import { failedWith } from "./failures.ts";
import { foreignKeyViolations } from "./foreign-keys.ts";
import { checkpoint } from "./interruption.ts";
import { NotRestorable, readManifest, UPLOADS_CHECKSUMS, UPLOADS_FOLDER, type Manifest } from "./manifest.ts";
import { listObjects, othersInFile, refuseOthers, type DbObject } from "./ownership.ts";
import { dependentsOnGateway, dropGatewayObjects, gatewayEntries } from "./postgres-archive.ts";
import { findPgTool, libpqConnection, serverMajor, startPgTool } from "./postgres-tools.ts";
import type { Progress } from "./progress.ts";
import { coverPlacement, planCovers, type PlacedCovers } from "./restore-covers.ts";
import { carryOver, dropObjects, restoreSqliteFile } from "./sqlite-snapshot.ts";
import { tablesWithRows, TargetNotEmpty } from "./tables.ts";
import { compare, differences, VerificationFailed, type Verification } from "./verification.ts";

export type RestoreOptions = {
  dir: string;
  url: string;
  /** UPLOAD_DIR, or the bucket (UPLOAD_STORE=s3). */
  uploads: CoverLocation;
  overwrite: boolean;
  progress: Progress;
};
export type RestoreResult = {
  manifest: Manifest;
  verification: Verification;
  coversAdded: number;
  coversReplaced: number;
  /** Another program's objects in the target, left as they were. */
  kept: string[];
  /** Entries of the archive that were not the gateway's, not restored (PostgreSQL). */
  leftOut: string[];
  migrated: string[];
  seconds: number;
};

export async function restore({ dir, url, uploads, overwrite, progress }: RestoreOptions): Promise<RestoreResult> {
  const started = performance.now();
  const manifest = readManifest(dir);
  const provider = dialectOf(url)!;
  if (manifest.provider !== provider) {
    throw new NotRestorable(
      manifest.provider === "sqlite"
        ? `${dir} is a SQLite backup: restore it into SQLite (DATABASE_URL=file:...), then move it with copy-data --to postgresql://...`
        : `${dir} is a PostgreSQL backup: restore it into PostgreSQL, then move it with copy-data --to file:...`,
    );
  }
  const databaseFile = path.join(dir, manifest.database.file);
  const covers = await checkBackupFiles(dir, manifest, databaseFile, progress);
  const target = await inspectTarget(url, provider, overwrite);
  const store = await coverStoreAt(uploads);
  const plan = await planCovers(store, covers, overwrite);
  const tools = provider === "postgres" ? target.tools! : undefined;

  // From here on, things change; on any failure (an interruption too) they are put back.
  progress.phase("writing", 0, "");
  const targetFile = provider === "sqlite" ? sqliteTargetFile(url) : undefined;
  let createdFolders: string[] = [];
  const placed: PlacedCovers = coverPlacement(path.join(dir, UPLOADS_FOLDER), store, plan, covers, progress);
  let written = false;
  let leftOut: string[] = [];
  let verification: Verification;
  try {
    await placed.run();
    if (targetFile) {
      createdFolders = makeFolders(path.dirname(targetFile));
      progress.phase("database", 0, "pages");
      await restoreSqlite(databaseFile, targetFile, target.foreign, progress);
    } else {
      progress.phase("database (pg_restore | psql)", 0, "");
      leftOut = await restorePostgres(databaseFile, url, tools!, manifest, target.gateway);
    }
    written = true;
    checkpoint();
    verification = await verifyRestored(url, manifest, store, covers, progress);
  } catch (error) {
    if (written) throw failedWith(error, "the data was restored but not checked: run restore again with --overwrite");
    let aftermath = "nothing was restored: the database and the upload folder are as they were";
    await placed.undo().catch((undoing: Error) => {
      aftermath = `nothing was restored: the database is as it was, but ${undoing.message}`;
    });
    if (targetFile && !target.existed)
      for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(targetFile + suffix, { force: true });
    removeFolders(createdFolders);
    throw failedWith(error, aftermath);
  }
  await placed.done();
  progress.end();
  if (!verification.ok)
    throw new VerificationFailed(
      `the restored data differs from the backup: ${differences(verification)}; the restored data stays as it is: restore again with --overwrite, or from another backup`,
      verification,
    );
  const migrated = await migrate({
    dialect: provider,
    url,
    poolSize: 1,
    poolIdleTimeoutMs: 0,
    sqliteSynchronous: "FULL",
  });
  return {
    manifest,
    verification,
    coversAdded: placed.added(),
    coversReplaced: placed.replaced(),
    kept: target.foreign.map((o) => listObjects([o])),
    leftOut,
    migrated,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Every file of the backup matches its checksum: the database file, the covers' list and each
 * cover (read whole, before anything is written). Returns the covers expected: name -> SHA-256.
 */
async function checkBackupFiles(
  dir: string,
  manifest: Manifest,
  databaseFile: string,
  progress: Progress,
): Promise<Map<string, string>> {
  progress.phase("checking the backup", 0, "");
  const database = await sha256OfFile(databaseFile).catch(() => null);
  if (!database) throw new NotRestorable(`${dir} is damaged: ${manifest.database.file} is missing`);
  if (database.sha256 !== manifest.database.sha256)
    throw new NotRestorable(`${dir} is damaged: ${manifest.database.file} does not match its checksum`);
  let list: string;
  try {
    list = readFileSync(path.join(dir, UPLOADS_CHECKSUMS), "utf8");
  } catch {
    throw new NotRestorable(`${dir} is damaged: ${UPLOADS_CHECKSUMS} is missing`);
  }
  if (createHash("sha256").update(list).digest("hex") !== manifest.uploads.checksumsSha256) {
    throw new NotRestorable(`${dir} is damaged: ${UPLOADS_CHECKSUMS} does not match its checksum`);
  }
  const covers = parseChecksumLines(list);
  progress.phase("checking the backup's covers", covers.size, "files");
  const missing: string[] = [];
  const differing: string[] = [];
  for (const [name, sha256] of covers) {
    checkpoint();
    const found = await sha256OfFile(path.join(dir, UPLOADS_FOLDER, name)).catch(() => null);
    if (!found) missing.push(name);
    else if (found.sha256 !== sha256) differing.push(name);
    progress.advance(1);
  }
  if (missing.length)
    throw new NotRestorable(
      `${dir} is damaged: ${missing.length} covers are missing from ${UPLOADS_FOLDER}/ (e.g. ${missing[0]})`,
    );
  if (differing.length)
    throw new NotRestorable(
      `${dir} is damaged: ${differing.length} covers in ${UPLOADS_FOLDER}/ do not match their checksums (e.g. ${differing[0]})`,
    );
  return covers;
}

const sqliteTargetFile = (url: string) => path.resolve(sqliteFilePath(url));

type Target = {
  existed: boolean;
  /** The target's own gateway objects (replaced) and another program's (left alone). */
  gateway: DbObject[];
  foreign: DbObject[];
  tools?: { restore: string; psql: string };
};

/** Looks at the target (read-only) and refuses one restore may not write into. */
async function inspectTarget(url: string, provider: Dialect, overwrite: boolean): Promise<Target> {
  if (provider === "sqlite" && !existsSync(sqliteTargetFile(url))) return { existed: false, gateway: [], foreign: [] };
  const conn = await openConnection(url, { readonly: true });
  try {
    const owned = await refuseOthers(conn, "restore", overwrite);
    const virtual = owned.foreign.filter((o) => o.kind === "virtual table");
    if (virtual.length)
      throw new TargetNotEmpty(
        `the target database holds another program's ${listObjects(virtual)}, which restore cannot keep as it is: restore into a database of its own`,
      );
    const filled = owned.isGateway ? await tablesWithRows(conn) : [];
    if (filled.length && !overwrite)
      throw new TargetNotEmpty(
        `the target database is not empty (${filled.join(", ")} hold rows): restore into an empty database, or add --overwrite to replace its data`,
      );
    const dependents = provider === "postgres" ? await dependentsOnGateway(conn, owned.gateway) : [];
    if (dependents.length)
      throw new TargetNotEmpty(
        `another program's ${dependents.join(", ")} depends on the gateway's tables, which restore replaces: drop it first, or restore into a database of its own`,
      );
    const tools =
      provider === "postgres"
        ? await serverMajor(conn).then((major) => ({
            restore: findPgTool("pg_restore", major),
            psql: findPgTool("psql", major),
          }))
        : undefined;
    return { existed: true, gateway: owned.gateway, foreign: owned.foreign, tools };
  } finally {
    await conn.close();
  }
}

function makeFolders(dir: string): string[] {
  try {
    return createFolders(dir);
  } catch (error) {
    if (error instanceof FolderRefused) throw new NotRestorable(error.message);
    throw error;
  }
}

/**
 * Writes the backup's database onto the target in one transaction. The new database is built
 * first in a file beside the target: the backup's file without anything of another program's (a
 * backup made before backups left such objects out may hold some), plus the target's own objects
 * of other programs, as they are. That file is what is written.
 */
async function restoreSqlite(backupFile: string, targetFile: string, keep: DbObject[], progress: Progress) {
  const built = `${targetFile}.restoring-${process.pid}`;
  try {
    copyFileSync(backupFile, built);
    dropObjects(built, await othersInFile(built));
    if (keep.length) carryOver(targetFile, built, keep);
    checkpoint();
    await restoreSqliteFile(built, targetFile, (done, total) => {
      progress.phase("database", total, "pages");
      progress.advance(done);
    });
  } finally {
    for (const suffix of ["", "-journal", "-wal", "-shm"]) rmSync(built + suffix, { force: true });
  }
}

/**
 * pg_restore writes the archive's gateway entries as an SQL script; psql runs it, after statements
 * that drop the target's gateway objects, all in one transaction (--single-transaction,
 * ON_ERROR_STOP). Returns the archive's entries that were left out.
 */
async function restorePostgres(
  archive: string,
  url: string,
  tools: { restore: string; psql: string },
  manifest: Manifest,
  replaced: DbObject[],
): Promise<string[]> {
  const { uri, env } = libpqConnection(url);
  const listing = startPgTool(tools.restore, ["--list", archive], env, { stdout: "pipe" });
  let text = "";
  listing.child.stdout!.on("data", (chunk: Buffer) => (text += chunk.toString()));
  await listing.done;
  const { list, leftOut } = gatewayEntries(text, manifest.database.schema ?? "public");
  const scratch = await mkdtemp(path.join(tmpdir(), "gw-restore-list-"));
  try {
    const listFile = path.join(scratch, "entries.list");
    await writeFile(listFile, list);
    const drop = dropGatewayObjects(replaced);
    const script = startPgTool(
      tools.restore,
      ["--no-owner", "--no-acl", `--use-list=${listFile}`, "--file=-", archive],
      env,
      { stdout: "pipe" },
    );
    const apply = startPgTool(
      tools.psql,
      [
        "--no-psqlrc",
        "--quiet",
        "--single-transaction",
        "--set=ON_ERROR_STOP=1",
        ...(drop ? [`--command=${drop}`] : []),
        "--file=-",
        `--dbname=${uri}`,
      ],
      env,
      { stdin: "pipe" },
    );
    script.child.stdout!.pipe(apply.child.stdin!);
    apply.child.stdin!.on("error", () => {}); // psql stopped reading: its own error says why
    const [scripted, applied] = await Promise.allSettled([script.done, apply.done]);
    if (applied.status === "rejected") throw applied.reason;
    if (scripted.status === "rejected") throw scripted.reason;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  await analyze(url);
  return leftOut;
}

/** Reads the restored tables as the manifest describes them and compares. */
async function verifyRestored(
  url: string,
  manifest: Manifest,
  store: CoverStore,
  covers: Map<string, string>,
  progress: Progress,
): Promise<Verification> {
  const target = await openConnection(url, { mustExist: true });
  try {
    const { tables } = await fingerprint(target, manifest.tables, progress);
    const coverCheck = { expected: covers.size, ...(await checkCovers(store, covers)) };
    return compare(manifest.tables, tables, coverCheck, await foreignKeyViolations(target));
  } finally {
    await target.close();
  }
}
