// The commands that move data: backup, restore and copy-data (src/backup/ does the work). On a
// terminal they draw progress and end with a readable report; otherwise they print one JSON line.
// The work itself (src/backup/) is imported when a command runs, so the other admin commands do
// not load it.
import { dataDialectOf, redactUrl } from "../../backup/connection/open.ts";
import { dialectOf } from "../../db/dialect.ts";
import { silentProgress, terminalProgress, type Progress } from "../../backup/progress.ts";
import { reportJson, reportLines, VerificationFailed, type Verification } from "../../backup/verification.ts";
import { BUCKET_NAME, KEY_PREFIX, type Config } from "../../config.ts";
import type { CoverLocation } from "../../storage/cover-store.ts";
import { UsageError, wholeNumber, type Command, type DataContext } from "./command.ts";

/** Where the service's covers are: UPLOAD_DIR, or the bucket of UPLOAD_STORE=s3. */
const coversOf = (config: Config): CoverLocation =>
  config.uploadStore.kind === "s3" ? config.uploadStore : config.uploadDir;

/** --uploads-to: a folder, or s3://bucket[/prefix/] reached with the S3_* settings. */
function uploadsTarget(value: string, config: Config): CoverLocation {
  if (!value.startsWith("s3://")) return value;
  const [bucket = "", ...folders] = value.slice("s3://".length).split("/");
  const prefix = folders.filter(Boolean).length ? `${folders.filter(Boolean).join("/")}/` : "";
  if (!BUCKET_NAME.test(bucket))
    throw new UsageError(`--uploads-to ${value}: "${bucket}" is not a bucket name (3 to 63 of a-z, 0-9, . and -)`);
  if (prefix && !KEY_PREFIX.test(prefix))
    throw new UsageError(`--uploads-to ${value}: the prefix must be folder names of A-Z, a-z, 0-9, _ and -`);
  return { ...config.s3, bucket, prefix };
}

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const seconds = (s: number) => `${s.toFixed(1)} s`;
const count = (n: number) => n.toLocaleString("en");

/**
 * Runs `work` with a progress display, whose line is ended before anything else is printed, and
 * with Ctrl-C and SIGTERM turned into an error that undoes what was written (interruption.ts).
 */
async function withProgress<T>(ctx: DataContext, work: (progress: Progress) => Promise<T>): Promise<T> {
  const progress = ctx.interactive ? terminalProgress(process.stderr) : silentProgress;
  const { interruptible } = await import("../../backup/interruption.ts");
  try {
    return await interruptible(() => work(progress));
  } finally {
    progress.end();
  }
}

/** Prints the verification (a table, or as part of the JSON line) and fails when it found differences. */
function printVerified(
  ctx: DataContext,
  v: Verification,
  labels: { expected: string; actual: string },
  json: Record<string, unknown>,
  done: string[],
) {
  if (ctx.interactive) {
    for (const line of [...reportLines(v, labels), ...done]) ctx.print(line);
  } else {
    ctx.print(JSON.stringify({ ...json, verification: reportJson(v) }));
  }
}

export const dataCommands: Command[] = [
  {
    name: "backup",
    args: ["dir"],
    data: true,
    options: {
      "allow-missing-covers": {
        help: "with covers in a bucket: back up even when covers the rows name are not in it (counted as dangling)",
      },
    },
    summary: "a consistent copy of the database and its covers into a new folder, while the service runs",
    details: `Writes into <dir> (new or empty): the database (SQLite: the online backup API, read in one
snapshot; PostgreSQL: pg_dump's custom format, which pg_restore also reads by hand), the covers
its rows name, from UPLOAD_DIR or the bucket (uploads/, with uploads.sha256; those the service
replaces meanwhile are kept for it; with a bucket, one missing fails the backup unless
--allow-missing-covers), manifest.json (schema migration, rows and checksum per table, when) and manifest.sha256,
written last. Writes acknowledged before the snapshot are in it; another program's objects in the
database are not. On failure or interruption (e.g. a full disk, Ctrl-C) the partial folder is removed.`,
    async run(ctx, input) {
      const { backup } = await import("../../backup/backup.ts");
      const result = await withProgress(ctx, (progress) =>
        backup({
          url: ctx.config.database.url,
          uploads: coversOf(ctx.config),
          dir: input.args.dir!,
          allowMissingCovers: input.options["allow-missing-covers"] === true,
          progress,
        }),
      );
      const m = result.manifest;
      const rows = m.tables.reduce((sum, t) => sum + t.rows, 0);
      if (ctx.interactive) {
        ctx.print(`backup written to ${result.dir} in ${seconds(result.seconds)} (snapshot at ${m.snapshotAt})`);
        ctx.print(`  ${m.database.file}  ${megabytes(m.database.bytes)}  schema ${m.migrations.at(-1)}`);
        ctx.print(`  ${count(rows)} rows in ${m.tables.length} tables (counts and checksums in manifest.json)`);
        ctx.print(`  ${count(m.uploads.files)} covers, ${megabytes(m.uploads.bytes)}`);
        if (m.uploads.danglingCount)
          ctx.print(
            `  ${count(m.uploads.danglingCount)} dangling references: covers rows named that were missing from the store already at the snapshot (the first listed in manifest.json)`,
          );
        if (m.leftOut) ctx.print(`  left out, not the gateway's: ${m.leftOut.join(", ")}`);
      } else {
        ctx.print(
          JSON.stringify({
            command: "backup",
            ok: true,
            dir: result.dir,
            seconds: Number(result.seconds.toFixed(3)),
            snapshotAt: m.snapshotAt,
            provider: m.provider,
            schema: m.migrations.at(-1),
            database: { file: m.database.file, bytes: m.database.bytes, sha256: m.database.sha256 },
            rows,
            tables: Object.fromEntries(m.tables.map((t) => [t.name, t.rows])),
            covers: { files: m.uploads.files, bytes: m.uploads.bytes, dangling: m.uploads.danglingCount },
            ...(m.leftOut ? { leftOut: m.leftOut } : {}),
          }),
        );
      }
    },
  },
  {
    name: "restore",
    args: ["dir"],
    data: true,
    options: {
      overwrite: {
        help: "replace the gateway's data in a database that holds some, or beside another program's objects (left as they are); stop the service first",
      },
    },
    summary:
      "puts a backup back into the database DATABASE_URL names (empty) and its covers into UPLOAD_DIR or the bucket",
    details: `Checks first, changing nothing if any check fails: <dir> is a backup (manifest.json and its
checksum), of a schema this version knows, undamaged (every file's checksum), of this kind of
database; the target holds no rows and nothing of another program's, and UPLOAD_DIR (or the
bucket, UPLOAD_STORE=s3) no other file under a cover's name (or --overwrite); a bucket holds
nothing but the backup's covers under S3_PREFIX (other covers: --overwrite). Then writes the covers and the database (in one
transaction), compares every table with the manifest (exit 1 on a difference) and applies newer
migrations. A failure or an interruption leaves the database and the covers as they were.`,
    async run(ctx, input) {
      const overwrite = input.options.overwrite === true;
      const { restore } = await import("../../backup/restore.ts");
      const result = await withProgress(ctx, (progress) =>
        restore({
          dir: input.args.dir!,
          url: ctx.config.database.url,
          uploads: coversOf(ctx.config),
          overwrite,
          progress,
        }),
      ).catch((error) => reportFailure(ctx, "restore", error, { expected: "backup", actual: "restored" }));
      const m = result.manifest;
      printVerified(
        ctx,
        result.verification,
        { expected: "backup", actual: "restored" },
        {
          command: "restore",
          ok: true,
          seconds: Number(result.seconds.toFixed(3)),
          snapshotAt: m.snapshotAt,
          coversAdded: result.coversAdded,
          coversReplaced: result.coversReplaced,
          migrated: result.migrated,
          ...(result.kept.length ? { kept: result.kept } : {}),
          ...(result.leftOut.length ? { leftOut: result.leftOut } : {}),
        },
        [
          `restored the backup of ${m.snapshotAt} into ${redactUrl(ctx.config.database.url)} in ${seconds(result.seconds)}; ${count(result.coversAdded)} covers added${result.coversReplaced ? `, ${count(result.coversReplaced)} replaced` : ""}`,
          ...(result.kept.length ? [`left as they were, not the gateway's: ${result.kept.join(", ")}`] : []),
          ...(result.leftOut.length ? [`not restored, not the gateway's: ${result.leftOut.join(", ")}`] : []),
          ...(result.migrated.length ? [`then migrated: ${result.migrated.join(", ")}`] : []),
        ],
      );
    },
  },
  {
    name: "copy-data",
    args: [],
    data: true,
    options: {
      to: {
        value: "DATABASE_URL",
        required: true,
        help: "the database to fill: postgresql://... or file:... (it must be empty)",
      },
      "uploads-to": {
        value: "DIR|s3://BUCKET[/PREFIX]",
        help: "copy the covers into this folder or bucket too (the bucket reached with the S3_* settings; default: leave them where they are, shared by the new instances)",
      },
      "batch-rows": { value: "N", help: "rows per committed batch (1 to 10000, default 2000)" },
      "pause-ms": {
        value: "MS",
        help: "pause after each batch, sparing a source that serves meanwhile (0 to 60000, default 0)",
      },
      restart: { help: "empty a target holding an unfinished or differing copy, and copy again" },
      overwrite: {
        help: "fill a target that holds the gateway's data (emptied first) or another program's objects (left as they are), and replace files of other content under the covers' names in --uploads-to",
      },
    },
    summary:
      "copies every table (and covers) from the database DATABASE_URL names into another one, e.g. SQLite -> PostgreSQL",
    details: `Migrates the target first, then copies each table in batches, parents first: ids, timestamps,
token hashes (signed-in users stay signed in), rating sums, tags and positions as they are.
Resumable: after an interruption (even kill -9), run the same command again; it goes on from the
last committed batch. Ends with a verification report (rows and checksum per table on both sides,
covers); exit 1 if they differ. Stop writes to the source for an exact copy. A target holding data
or another program's objects is refused unless --overwrite.`,
    async run(ctx, input) {
      const to = String(input.options.to);
      if (!dialectOf(to))
        throw new UsageError(
          `--to must be a database URL: postgresql://user:password@host:5432/db or file:path/to.db (got "${redactUrl(to)}")`,
        );
      if (!dataDialectOf(to).parses(to)) throw new UsageError(`--to is not a valid URL: "${redactUrl(to)}"`);
      const uploadsTo =
        typeof input.options["uploads-to"] === "string"
          ? uploadsTarget(input.options["uploads-to"], ctx.config)
          : undefined;
      const batchRows = wholeNumber(input, "batch-rows", 2000, 1, 10_000);
      const pauseMs = wholeNumber(input, "pause-ms", 0, 0, 60_000);
      const restart = input.options.restart === true;
      const overwrite = input.options.overwrite === true;
      const { copyData } = await import("../../backup/copy-data.ts");
      const result = await withProgress(ctx, (progress) =>
        copyData({
          sourceUrl: ctx.config.database.url,
          targetUrl: to,
          uploads: coversOf(ctx.config),
          uploadsTo,
          batchRows,
          pauseMs,
          restart,
          overwrite,
          progress,
        }),
      ).catch((error) => reportFailure(ctx, "copy-data", error, { expected: "source", actual: "target" }));
      printVerified(
        ctx,
        result.verification,
        { expected: "source", actual: "target" },
        {
          command: "copy-data",
          ok: true,
          seconds: Number(result.seconds.toFixed(3)),
          rows: result.rows,
          resumed: result.resumed,
          coversCopied: result.coversCopied,
          ...(result.kept.length ? { kept: result.kept } : {}),
        },
        [
          `copied ${count(result.rows)} rows${result.resumed ? " (resumed)" : ""} and ${count(result.coversCopied)} cover files into ${redactUrl(to)} in ${seconds(result.seconds)}; source and target agree`,
          ...(result.kept.length ? [`left as they were, not the gateway's: ${result.kept.join(", ")}`] : []),
        ],
      );
    },
  },
];

/** A verification that found differences: the report goes out (stdout), then the one-line error. Other errors pass. */
function reportFailure(
  ctx: DataContext,
  command: string,
  error: unknown,
  labels: { expected: string; actual: string },
): never {
  if (!(error instanceof VerificationFailed)) throw error;
  if (ctx.interactive) for (const line of reportLines(error.verification, labels)) ctx.print(line);
  else ctx.print(JSON.stringify({ command, ok: false, verification: reportJson(error.verification) }));
  throw error;
}
