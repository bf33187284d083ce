// `admin restore <dir>`: puts a backup back into the database DATABASE_URL names and its covers
// into UPLOAD_DIR (or the bucket, UPLOAD_STORE=s3), then checks every table and cover against the manifest. Before anything is written:
// - the whole backup is checked: the folder exists and is a backup (manifest.json, matching its
//   checksum), of a format and schema this version knows, for this kind of database, and every
//   file matches its checksum (the database file, the covers' list, each cover);
// - the target is looked at, read-only: it holds no rows in the gateway's tables and nothing of
//   another program's (connection/ownership.ts), and UPLOAD_DIR no other file under a cover's name, unless
//   --overwrite, which then replaces only what is the gateway's and leaves the rest untouched.
// The database is written in one transaction (each database's own way: connection/<dialect>/
// dialect.ts), so a failure halfway leaves it as it was, and the covers are put back as they
// were. Afterwards pending migrations bring it up to this version.
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import { migrate } from "../db/migrate.ts";
import { sha256OfFile } from "../storage/file-copies.ts";
import { coverStoreAt, type CoverLocation, type CoverStore } from "../storage/cover-store.ts";
import { fingerprint } from "./checksums.ts";
import type { DatabaseRestore, DataDialect, DbObject } from "./connection/data-connection.ts";
import { dataDialectOf, openConnection, restoreElsewhere } from "./connection/open.ts";
import { checkCovers, parseChecksumLines } from "./files/covers.ts";
import { failedWith } from "./failures.ts";
import { checkpoint } from "./interruption.ts";
import { NotRestorable, readManifest, UPLOADS_CHECKSUMS, UPLOADS_FOLDER, type Manifest } from "./files/manifest.ts";
import { listObjects, refuseOthers } from "./connection/ownership.ts";
import type { Progress } from "./progress.ts";
import { coverPlacement, planCovers, type PlacedCovers } from "./files/restore-covers.ts";
import { tablesWithRows, TargetNotEmpty } from "./connection/tables.ts";
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
  const dialect = dataDialectOf(url);
  if (manifest.provider !== dialect.name) throw new NotRestorable(restoreElsewhere(manifest.provider, dir));
  const databaseFile = path.join(dir, manifest.database.file);
  const covers = await checkBackupFiles(dir, manifest, databaseFile, progress);
  const target = await inspectTarget(url, dialect, overwrite);
  const store = await coverStoreAt(uploads);
  const plan = await planCovers(store, covers, overwrite);

  // From here on, things change; on any failure (an interruption too) they are put back.
  progress.phase("writing", 0, "");
  const placed: PlacedCovers = coverPlacement(path.join(dir, UPLOADS_FOLDER), store, plan, covers, progress);
  let written = false;
  let leftOut: string[] = [];
  let verification: Verification;
  try {
    await placed.run();
    leftOut = await target.database.write(databaseFile, manifest.database.schema, progress);
    written = true;
    checkpoint();
    verification = await verifyRestored(url, manifest, store, covers, progress);
  } catch (error) {
    if (written) throw failedWith(error, "the data was restored but not checked: run restore again with --overwrite");
    let aftermath = "nothing was restored: the database and the upload folder are as they were";
    await placed.undo().catch((undoing: Error) => {
      aftermath = `nothing was restored: the database is as it was, but ${undoing.message}`;
    });
    target.database.undo();
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
    dialect: dialect.name,
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

type Target = {
  /** The target's own gateway objects (replaced) and another program's (left alone). */
  gateway: DbObject[];
  foreign: DbObject[];
  database: DatabaseRestore;
};

/** Looks at the target (read-only) and refuses one restore may not write into. */
async function inspectTarget(url: string, dialect: DataDialect, overwrite: boolean): Promise<Target> {
  if (dialect.isNew(url)) {
    const nothing = { gateway: [], foreign: [] };
    return { ...nothing, database: await dialect.prepareRestore(url, nothing) };
  }
  const conn = await dialect.open(url, { readonly: true });
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
    const database = await dialect.prepareRestore(url, { conn, gateway: owned.gateway, foreign: owned.foreign });
    return { gateway: owned.gateway, foreign: owned.foreign, database };
  } finally {
    await conn.close();
  }
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
    return compare(manifest.tables, tables, coverCheck, await target.foreignKeyViolations());
  } finally {
    await target.close();
  }
}
