// PostgreSQL's own tools, pg_dump, pg_restore and psql, run as child processes: a PostgreSQL
// backup is a pg_dump archive any operator can also restore by hand. The tools must be at least
// the server's major version; Debian keeps each version in /usr/lib/postgresql/<major>/bin
// (postgresql-client-<major>), which is looked at first, then PATH.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { DataConnection } from "../data-connection.ts";
import { stopOnInterrupt } from "../../interruption.ts";

export type PgTool = "pg_dump" | "pg_restore" | "psql";

/** Refused: a tool the command needs is not installed (exit code 1, nothing changed). */
export class ToolMissing extends Error {}

export async function serverMajor(conn: DataConnection): Promise<number> {
  const [[version]] = (await conn.rows("SHOW server_version_num")) as [[string]];
  return Math.floor(Number(version) / 10000);
}

/** Where `tool` of the server's major version (or a later one) is installed. */
export function findPgTool(tool: PgTool, major: number): string {
  for (let m = major; m <= major + 3; m++) {
    for (const dir of [`/usr/lib/postgresql/${m}/bin`, `/usr/pgsql-${m}/bin`]) {
      if (existsSync(path.join(dir, tool))) return path.join(dir, tool);
    }
  }
  const onPath = (process.env.PATH ?? "").split(path.delimiter).find((dir) => dir && existsSync(path.join(dir, tool)));
  if (onPath) return path.join(onPath, tool);
  throw new ToolMissing(
    `${tool} was not found (looked in /usr/lib/postgresql/${major}/bin and PATH): install PostgreSQL ${major}'s client tools (Debian: apt-get install postgresql-client-${major})`,
  );
}

/** Query parameters of Prisma or pg that libpq refuses in a connection URI. */
const NOT_LIBPQ = [
  "schema",
  "connection_limit",
  "pool_timeout",
  "pgbouncer",
  "statement_cache_size",
  "socket_timeout",
  "sslaccept",
];

/** The URL for libpq (password left out) and the environment that carries the password. */
export function libpqConnection(url: string): { uri: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  for (const name of NOT_LIBPQ) parsed.searchParams.delete(name);
  // libpq's connect timeout, 10 s unless the environment gives one.
  const env: NodeJS.ProcessEnv = { PGCONNECT_TIMEOUT: "10", ...process.env };
  if (password) env.PGPASSWORD = password;
  return { uri: parsed.toString(), env };
}

export type Running = { child: ChildProcess; done: Promise<void> };

/**
 * Starts a tool; `done` rejects with the tool's last error line when it exits with a failure.
 * `stdin`/`stdout`: "pipe" to connect it to another process.
 */
export function startPgTool(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  stdio: { stdin?: "pipe"; stdout?: "pipe" } = {},
): Running {
  const child = spawn(file, args, { env, stdio: [stdio.stdin ?? "ignore", stdio.stdout ?? "ignore", "pipe"] });
  stopOnInterrupt(child);
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-8192);
  });
  const done = new Promise<void>((resolve, reject) => {
    child.on("error", (error) => reject(new Error(`${path.basename(file)} could not start: ${error.message}`)));
    child.on("close", (code, signal) => {
      if (code === 0) return resolve();
      const lines = errors
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean);
      const at = lines.findIndex((l) => /error|fatal/i.test(l));
      const detail = at >= 0 && lines[at + 1]?.startsWith("DETAIL:") ? ` (${lines[at + 1]!.slice(8).trim()})` : "";
      const reason = at >= 0 ? `${lines[at]}${detail}` : (lines.at(-1) ?? `exit code ${code ?? signal}`);
      reject(new Error(`${path.basename(file)} failed: ${reason.replace(/^(pg_dump|pg_restore|psql):\s*/, "")}`));
    });
  });
  return { child, done };
}
