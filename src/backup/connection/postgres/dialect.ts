// PostgreSQL for the data commands, with its own tools (tools.ts): backup is pg_dump's archive of
// the snapshot the connection reads; restore runs pg_restore's script of the gateway's entries
// (archive.ts) through psql in one transaction.
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Progress } from "../../progress.ts";
import { quoteName, type DataConnection, type DataDialect, type DbObject } from "../data-connection.ts";
import { TargetNotEmpty } from "../tables.ts";
import { dependentsOnGateway, dropGatewayObjects, gatewayEntries } from "./archive.ts";
import { openPostgres, redactPostgresUrl } from "./connection.ts";
import { findPgTool, libpqConnection, serverMajor, startPgTool } from "./tools.ts";

const DEFAULT_PORT = "5432";

export const postgresData: DataDialect = {
  name: "postgres",
  open: (url) => openPostgres(url),
  isNew: () => false,
  sameDatabase: (a, b) => {
    const [x, y] = [new URL(a), new URL(b)];
    return (
      x.hostname === y.hostname && (x.port || DEFAULT_PORT) === (y.port || DEFAULT_PORT) && x.pathname === y.pathname
    );
  },
  redact: redactPostgresUrl,
  parses: (url) => URL.canParse(url),
  restoreElsewhere: (dir) =>
    `${dir} is a PostgreSQL backup: restore it into PostgreSQL, then move it with copy-data --to file:...`,

  prepareBackup: async (source) => {
    const tool = findPgTool("pg_dump", await serverMajor(source));
    return { write: (request, read) => dump(source, tool, request, read) };
  },

  prepareRestore: async (url, { conn, gateway }) => {
    const dependents = await dependentsOnGateway(conn!, gateway);
    if (dependents.length)
      throw new TargetNotEmpty(
        `another program's ${dependents.join(", ")} depends on the gateway's tables, which restore replaces: drop it first, or restore into a database of its own`,
      );
    const major = await serverMajor(conn!);
    const tools = { restore: findPgTool("pg_restore", major), psql: findPgTool("psql", major) };
    return {
      async write(archive, schema, progress) {
        progress.phase("database (pg_restore | psql)", 0, "");
        return restore(archive, url, tools, schema ?? "public", gateway);
      },
      undo() {}, // one transaction: nothing was written
    };
  },
};

/** A pg_dump pattern naming exactly `name` (no wildcard). */
const exactly = (...parts: string[]) => parts.map(quoteName).join(".");

/**
 * pg_dump reads the snapshot this connection exports, while the connection reads the same
 * snapshot for `read`: the archive and the manifest describe the same data. Another program's
 * tables, views and sequences, and the schemas other than the gateway's, are left out of the
 * archive (its functions pg_dump cannot leave out; restore leaves them out).
 */
async function dump<T>(
  source: DataConnection,
  tool: string,
  { url, file, foreign, progress }: { url: string; file: string; foreign: DbObject[]; progress: Progress },
  read: (snapshot: DataConnection) => Promise<T>,
) {
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
    const running = startPgTool(
      tool,
      [
        "--format=custom",
        `--snapshot=${snapshotId}`,
        "--no-owner",
        "--no-acl",
        ...leaveOut,
        `--file=${file}`,
        `--dbname=${uri}`,
      ],
      env,
    );
    const [, found] = await Promise.all([
      running.done,
      read(source).catch((error) => {
        running.child.kill();
        throw error;
      }),
    ]);
    return { snapshotAt, format: "pg_dump custom", tool: await toolVersion(tool), schema, read: found };
  } catch (error) {
    rmSync(file, { force: true });
    throw error;
  } finally {
    await source.endSnapshot().catch(() => {});
  }
}

const toolVersion = (tool: string): Promise<string> =>
  new Promise((resolve) =>
    execFile(tool, ["--version"], (error, stdout) => resolve(error ? path.basename(tool) : stdout.trim())),
  );

/**
 * pg_restore writes the archive's gateway entries as an SQL script; psql runs it, after statements
 * that drop the target's gateway objects, all in one transaction (--single-transaction,
 * ON_ERROR_STOP). Returns the archive's entries that were left out.
 */
async function restore(
  archive: string,
  url: string,
  tools: { restore: string; psql: string },
  schema: string,
  replaced: DbObject[],
): Promise<string[]> {
  const { uri, env } = libpqConnection(url);
  const listing = startPgTool(tools.restore, ["--list", archive], env, { stdout: "pipe" });
  let text = "";
  listing.child.stdout!.on("data", (chunk: Buffer) => (text += chunk.toString()));
  await listing.done;
  const { list, leftOut } = gatewayEntries(text, schema);
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
  const conn = await openPostgres(url);
  try {
    await conn.endBulkLoad(); // pg_restore leaves no planner statistics
  } finally {
    await conn.close();
  }
  return leftOut;
}
