// `npm run bench -- --data-moves`: what backup, restore and copy-data cost on a seeded database,
// and what a backup costs the running service. Per database:
//   1. the real service (src/main.ts) on a freshly seeded database takes a steady stream of
//      writes (GraphQL addComment at --write-rate per second, open loop, bench/paced.ts) for
//      --duration seconds: write latency p50/p99/max with nothing else running;
//   2. the same stream again while `admin backup` runs back to back for the whole window (each
//      run into a new folder): the same figures during backups, and how long a backup took;
//   3. with the service stopped: restore of the last backup into a fresh database, and copy-data
//      to the other kind of database (SQLite -> PostgreSQL, PostgreSQL -> SQLite) and back.
// Each command is the real CLI in its own process; times are wall-clock, sizes from its output.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Request } from "autocannon";
import { restaurantId, SIZES, users, type SizeName } from "../src/seed/dataset.ts";
import { freshPostgres, freshSqlite, seededDatabase, signIn, type BenchDatabase } from "./databases.ts";
import { pacedLatency, type PacedResult } from "./paced.ts";
import { ROOT, startService } from "./processes.ts";

export type DataMoveSettings = {
  size: SizeName;
  serverUrl?: string;
  databases: ("sqlite" | "postgres")[];
  durationSec: number;
  writeRate: number;
  password: string;
  /** A database seeded beforehand (e.g. `npm run seed -- --size 1m`, which takes long) to use instead of a fresh seed; the write load adds comments to it. */
  existing?: { url: string; uploadDir: string };
};

/** A command's wall time, its JSON line, and its peak resident memory (VmHWM, sampled). */
type Timed = { seconds: number; result: any; peakRssMb: number };
export type DataMoveResult = {
  database: "sqlite" | "postgres";
  rows: number;
  writes: {
    idle: PacedResult;
    duringBackup: PacedResult;
    backupsDuringLoad: number;
    backupSecondsUnderLoad: number[];
    healthzDuringBackup: { p99: number; max: number };
  };
  backup: {
    seconds: number;
    databaseBytes: number;
    coverFiles: number;
    coverBytes: number;
    folderBytes: number;
    peakRssMb: number;
  };
  restore: { seconds: number; peakRssMb: number };
  copyThere: { to: string; seconds: number; rows: number; peakRssMb: number } | null;
  copyBack: { to: string; seconds: number; peakRssMb: number } | null;
};

const ADD_COMMENT = `mutation($id: ID!, $input: CommentInput!) { addComment(restaurantId: $id, input: $input) { id } }`;
const CONNECTIONS = 16;

/** Runs `npm run admin -- ...args` with these settings; resolves with its JSON line and wall time. */
function admin(settings: Record<string, string>, ...args: string[]): Promise<Timed> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/admin.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production", ...settings },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  let peakKb = 0;
  const sample = setInterval(() => {
    const status = (() => {
      try {
        return readFileSync(`/proc/${child.pid}/status`, "utf8");
      } catch {
        return "";
      }
    })();
    peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
  }, 200);
  return new Promise((resolve, reject) =>
    child.on("close", (code) => {
      clearInterval(sample);
      if (code !== 0) return reject(new Error(`admin ${args[0]} failed (${code}): ${stderr.trim() || stdout.trim()}`));
      resolve({
        seconds: (performance.now() - started) / 1000,
        result: JSON.parse(stdout.trim().split("\n").at(-1)!),
        peakRssMb: Math.round(peakKb / 1024),
      });
    }),
  );
}

/** GET /healthz every 100 ms until stopped: the p99 and longest answer (ms). */
function watchHealth(url: string) {
  const times: number[] = [];
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const started = performance.now();
      await fetch(`${url}/healthz`).then(
        (r) => r.arrayBuffer(),
        () => undefined,
      );
      times.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await running;
      times.sort((a, b) => a - b);
      const round = (ms: number) => Math.round(ms * 10) / 10;
      return {
        p99: round(times[Math.min(times.length - 1, Math.ceil(0.99 * times.length) - 1)] ?? 0),
        max: round(times.at(-1) ?? 0),
      };
    },
  };
}

const folderBytes = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (sum, e) => sum + (e.isDirectory() ? folderBytes(path.join(dir, e.name)) : statSync(path.join(dir, e.name)).size),
    0,
  );

export async function benchDataMoves(
  settings: DataMoveSettings,
  log: (line: string) => void,
  cleanups: (() => Promise<void>)[],
): Promise<DataMoveResult[]> {
  const results: DataMoveResult[] = [];
  for (const name of settings.existing
    ? [settings.existing.url.startsWith("file:") ? ("sqlite" as const) : ("postgres" as const)]
    : settings.databases) {
    const { database } = settings.existing
      ? { database: { provider: name, ...settings.existing, drop: async () => {} } }
      : (log(`\n[${name}] fresh database, seeding ${settings.size}...`),
        await seededDatabase(
          name,
          { size: settings.size, serverUrl: settings.serverUrl, password: settings.password },
          cleanups,
        ));
    const scratch = mkdtempSync(path.join(tmpdir(), "gw-bench-moves-"));
    cleanups.push(async () => rmSync(scratch, { recursive: true, force: true }));
    const env = { DATABASE_URL: database.url, UPLOAD_DIR: database.uploadDir };

    const service = await startService("src/main.ts", {
      ...env,
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      RATE_LIMIT_MAX: "0",
    });
    let writes: DataMoveResult["writes"];
    let lastBackup = "";
    try {
      const usernames = users(SIZES[settings.size])
        .slice(2, 10)
        .map((u) => u.username);
      const tokens = await Promise.all(usernames.map((u) => signIn(service.url, u, settings.password)));
      const requests: Request[] = Array.from({ length: 256 }, (_, i) => ({
        method: "POST",
        path: "/graphql",
        headers: { "content-type": "application/json", authorization: `Bearer ${tokens[i % tokens.length]}` },
        body: JSON.stringify({
          query: ADD_COMMENT,
          variables: {
            id: restaurantId(1 + ((i * 7919) % SIZES[settings.size].restaurants)),
            input: { title: "During a backup", body: `write ${i}`, rating: 1 + (i % 5) },
          },
        }),
      }));
      log(`[${name}] ${settings.writeRate} writes/s for ${settings.durationSec} s, nothing else running...`);
      const idle = await pacedLatency(
        service.url,
        requests,
        CONNECTIONS,
        settings.durationSec,
        settings.writeRate,
        true,
      );
      log(`[${name}] the same while backups run back to back...`);
      let loadDone = false;
      const backupSeconds: number[] = [];
      const backups = (async () => {
        for (let i = 0; !loadDone; i++) {
          lastBackup = path.join(scratch, `backup-${i}`);
          backupSeconds.push((await admin(env, "backup", lastBackup)).seconds);
          if (!loadDone) rmSync(lastBackup, { recursive: true, force: true });
        }
      })();
      const health = watchHealth(service.url);
      const duringBackup = await pacedLatency(
        service.url,
        requests,
        CONNECTIONS,
        settings.durationSec,
        settings.writeRate,
        true,
      );
      loadDone = true;
      const healthzDuringBackup = await health.stop();
      await backups;
      writes = {
        idle,
        duringBackup,
        backupsDuringLoad: backupSeconds.length,
        backupSecondsUnderLoad: backupSeconds,
        healthzDuringBackup,
      };
    } finally {
      await service.stop();
    }

    log(`[${name}] backup, restore and copy-data with the service stopped...`);
    rmSync(lastBackup, { recursive: true, force: true });
    const quiet = await admin(env, "backup", lastBackup);
    const backup = {
      seconds: quiet.seconds,
      databaseBytes: quiet.result.database.bytes as number,
      coverFiles: quiet.result.covers.files as number,
      coverBytes: quiet.result.covers.bytes as number,
      folderBytes: folderBytes(lastBackup),
      peakRssMb: quiet.peakRssMb,
    };
    const restoredDb: BenchDatabase = name === "sqlite" ? freshSqlite() : await freshPostgres(settings.serverUrl!);
    cleanups.push(restoredDb.drop);
    const restored = await admin(
      { DATABASE_URL: restoredDb.url, UPLOAD_DIR: restoredDb.uploadDir },
      "restore",
      lastBackup,
    );

    let copyThere: DataMoveResult["copyThere"] = null;
    let copyBack: DataMoveResult["copyBack"] = null;
    const other = name === "sqlite" ? (settings.serverUrl ? "postgres" : null) : "sqlite";
    if (other) {
      const there: BenchDatabase = other === "sqlite" ? freshSqlite() : await freshPostgres(settings.serverUrl!);
      cleanups.push(there.drop);
      const copied = await admin(env, "copy-data", "--to", there.url, "--uploads-to", there.uploadDir);
      copyThere = { to: other, seconds: copied.seconds, rows: copied.result.rows, peakRssMb: copied.peakRssMb };
      const back: BenchDatabase = name === "sqlite" ? freshSqlite() : await freshPostgres(settings.serverUrl!);
      cleanups.push(back.drop);
      const returned = await admin(
        { DATABASE_URL: there.url, UPLOAD_DIR: there.uploadDir },
        "copy-data",
        "--to",
        back.url,
        "--uploads-to",
        back.uploadDir,
      );
      copyBack = { to: name, seconds: returned.seconds, peakRssMb: returned.peakRssMb };
    }
    results.push({
      database: name,
      rows: quiet.result.rows,
      writes,
      backup,
      restore: { seconds: restored.seconds, peakRssMb: restored.peakRssMb },
      copyThere,
      copyBack,
    });
  }
  return results;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function formatDataMoves(results: DataMoveResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    const w = r.writes;
    lines.push(`${r.database}: ${r.rows.toLocaleString("en")} seeded rows`);
    lines.push(
      `  writes at ${w.idle.rate}/s     p50 ${w.idle.p50} ms  p99 ${w.idle.p99} ms  max ${w.idle.max} ms  failed ${w.idle.failed}`,
    );
    lines.push(
      `  during backups  p50 ${w.duringBackup.p50} ms  p99 ${w.duringBackup.p99} ms  max ${w.duringBackup.max} ms  failed ${w.duringBackup.failed}  (${w.backupsDuringLoad} backups, ${w.backupSecondsUnderLoad.map((s) => s.toFixed(1)).join(", ")} s)`,
    );
    lines.push(`  /healthz during backups  p99 ${w.healthzDuringBackup.p99} ms  max ${w.healthzDuringBackup.max} ms`);
    lines.push(
      `  backup (idle)   ${r.backup.seconds.toFixed(1)} s, peak RSS ${r.backup.peakRssMb} MB: database ${mb(r.backup.databaseBytes)}, ${r.backup.coverFiles.toLocaleString("en")} covers ${mb(r.backup.coverBytes)}, folder ${mb(r.backup.folderBytes)}`,
    );
    lines.push(`  restore         ${r.restore.seconds.toFixed(1)} s, peak RSS ${r.restore.peakRssMb} MB`);
    if (r.copyThere)
      lines.push(
        `  copy-data -> ${r.copyThere.to.padEnd(8)} ${r.copyThere.seconds.toFixed(1)} s, peak RSS ${r.copyThere.peakRssMb} MB (${r.copyThere.rows.toLocaleString("en")} rows, with covers)`,
      );
    if (r.copyBack)
      lines.push(
        `  copy-data -> ${r.copyBack.to.padEnd(8)} ${r.copyBack.seconds.toFixed(1)} s, peak RSS ${r.copyBack.peakRssMb} MB (back)`,
      );
  }
  return lines.join("\n");
}
