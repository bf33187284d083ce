// `admin restore <dir>`: puts a backup back into the database DATABASE_URL names and its covers
// into UPLOAD_DIR, then checks every table against the manifest. Everything that can be checked
// beforehand is, before anything changes: the folder is a backup, of a schema this version knows,
// undamaged (checksums), for this kind of database, and the target is empty (or --overwrite).
// The database is written in one transaction (SQLite's backup API; on PostgreSQL, pg_restore's
// script run by psql with --single-transaction, after dropping what the target held), so a
// failure halfway leaves it as it was. Afterwards pending migrations bring it up to this version.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import { dialectOf, type Dialect } from "../db/dialect.ts";
import { migrate } from "../db/migrate.ts";
import { sqliteFilePath } from "../db/sqlite/file.ts";
import { fingerprint } from "./checksums.ts";
import { failedWith } from "./failures.ts";
import { foreignKeyViolations } from "./foreign-keys.ts";
import { analyze, openConnection, type Connection } from "./connection.ts";
import { checkCovers, parseChecksumLines, placeCovers } from "./covers.ts";
import { sha256OfFile } from "./files.ts";
import { NotRestorable, readManifest, UPLOADS_CHECKSUMS, UPLOADS_FOLDER, type Manifest } from "./manifest.ts";
import { findPgTool, libpqConnection, serverMajor, startPgTool } from "./postgres-tools.ts";
import type { Progress } from "./progress.ts";
import { restoreSqliteFile } from "./sqlite-snapshot.ts";
import { tablesWithRows, TargetNotEmpty } from "./tables.ts";
import { compare, differences, VerificationFailed, type Verification } from "./verification.ts";

export type RestoreOptions = { dir: string; url: string; uploadDir: string; overwrite: boolean; progress: Progress };
export type RestoreResult = {
  manifest: Manifest;
  verification: Verification;
  coversAdded: number;
  migrated: string[];
  seconds: number;
};

export async function restore({ dir, url, uploadDir, overwrite, progress }: RestoreOptions): Promise<RestoreResult> {
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
  const target = await openTarget(url, provider);
  let tools: { restore: string; psql: string } | undefined;
  try {
    const filled = target ? await tablesWithRows(target) : [];
    if (filled.length && !overwrite) {
      throw new TargetNotEmpty(
        `the target database is not empty (${filled.join(", ")} hold rows): restore into an empty database, or add --overwrite to replace its data`,
      );
    }
    if (provider === "postgres") {
      const major = await serverMajor(target!);
      tools = { restore: findPgTool("pg_restore", major), psql: findPgTool("psql", major) };
    }
  } finally {
    await target?.close();
  }

  // From here on, things change. A target that did not exist is removed again on any failure.
  const targetFile = provider === "sqlite" ? sqliteTargetFile(url) : undefined;
  const targetExisted = targetFile ? existsSync(targetFile) : true;
  let coversAdded: string[] = [];
  let written = false;
  let verification: Verification;
  try {
    coversAdded = await placeCovers(path.join(dir, UPLOADS_FOLDER), uploadDir, covers, progress);
    if (provider === "sqlite") {
      progress.phase("database", 0, "pages");
      await restoreSqliteFile(databaseFile, targetFile!, (done, total) => {
        progress.phase("database", total, "pages");
        progress.advance(done);
      });
    } else {
      progress.phase("database (pg_restore | psql)", 0, "");
      await restorePostgres(databaseFile, url, tools!);
    }
    written = true;
    verification = await verifyRestored(url, manifest, uploadDir, covers, progress);
  } catch (error) {
    const undone = !written || !targetExisted;
    if (undone) for (const name of coversAdded) rmSync(path.join(uploadDir, name), { force: true });
    if (!targetExisted)
      for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(targetFile + suffix, { force: true });
    throw failedWith(
      error,
      undone
        ? "nothing was restored: the database is as it was and the covers added were removed"
        : "the data was restored but could not be checked: run restore again with --overwrite",
    );
  }
  progress.end();
  if (!verification.ok)
    throw new VerificationFailed(
      `the restored data differs from the backup: ${differences(verification)}`,
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
    coversAdded: coversAdded.length,
    migrated,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The database file and the covers' list match their checksums; returns the covers expected. */
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
  const missing = [...covers.keys()].filter((name) => !existsSync(path.join(dir, UPLOADS_FOLDER, name)));
  if (missing.length)
    throw new NotRestorable(
      `${dir} is damaged: ${missing.length} covers are missing from ${UPLOADS_FOLDER}/ (e.g. ${missing[0]})`,
    );
  return covers;
}

const sqliteTargetFile = (url: string) => path.resolve(sqliteFilePath(url));

/** The target, when there is one to look into (a SQLite file that does not exist yet is empty). */
async function openTarget(url: string, provider: Dialect): Promise<Connection | undefined> {
  if (provider === "sqlite" && !existsSync(sqliteTargetFile(url))) return undefined;
  return openConnection(url);
}

/**
 * pg_restore writes the archive as an SQL script; psql runs it, after statements that drop what
 * the target's schema holds, all in one transaction (--single-transaction, ON_ERROR_STOP).
 */
async function restorePostgres(archive: string, url: string, tools: { restore: string; psql: string }): Promise<void> {
  const target = await openConnection(url);
  let drop: string;
  try {
    drop = await dropEverything(target);
  } finally {
    await target.close();
  }
  const { uri, env } = libpqConnection(url);
  const script = startPgTool(tools.restore, ["--no-owner", "--no-acl", "--file=-", archive], env, { stdout: "pipe" });
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
  await analyze(url);
}

/** Statements dropping the tables, views, sequences, types and routines of the target's schema (not extensions'). */
async function dropEverything(conn: Connection): Promise<string> {
  const rows = await conn.rows(`
    WITH schema AS (SELECT oid FROM pg_namespace WHERE nspname = current_schema()),
    own AS (SELECT objid FROM pg_depend WHERE deptype = 'e')
    SELECT format('DROP %s IF EXISTS %s CASCADE;', CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, c.oid::regclass)
      FROM pg_class c WHERE c.relnamespace = (SELECT oid FROM schema) AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND c.oid NOT IN (SELECT objid FROM own)
    UNION ALL
    SELECT format('DROP TYPE IF EXISTS %s CASCADE;', t.oid::regtype)
      FROM pg_type t WHERE t.typnamespace = (SELECT oid FROM schema) AND t.typtype IN ('e', 'd') AND t.oid NOT IN (SELECT objid FROM own)
    UNION ALL
    SELECT format('DROP ROUTINE IF EXISTS %s CASCADE;', p.oid::regprocedure)
      FROM pg_proc p WHERE p.pronamespace = (SELECT oid FROM schema) AND p.oid NOT IN (SELECT objid FROM own)`);
  return rows.map(([statement]) => String(statement)).join("\n");
}

/** Reads the restored tables as the manifest describes them and compares. */
async function verifyRestored(
  url: string,
  manifest: Manifest,
  uploadDir: string,
  covers: Map<string, string>,
  progress: Progress,
): Promise<Verification> {
  const target = await openConnection(url, { mustExist: true });
  try {
    const { tables } = await fingerprint(target, manifest.tables, progress);
    const coverCheck = { expected: covers.size, ...(await checkCovers(uploadDir, covers)) };
    return compare(manifest.tables, tables, coverCheck, await foreignKeyViolations(target));
  } finally {
    await target.close();
  }
}
