// `npm run bench:live-attacks [-- options]`: the attacks of issue 29 on the live-update surface
// (graphql-ws and graphql-sse), each against a fresh server process (`src/main.ts`, production
// mode, on a fresh copy of a small seeded SQLite database) while a separate process samples the
// server's RSS and /healthz latency. Prints a table (medians and ranges over --runs) and, with
// --json, writes every figure to a file. Rerun it unchanged after a fix: refusals, close codes
// and ended streams are reported as outcomes, never as failures of the harness.
import "../src/node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createDb } from "../src/db/client.ts";
import { restaurantId, SIZES, users } from "../src/seed/dataset.ts";
import { DEFAULT_SEED_PASSWORD } from "../src/seed/seed.ts";
import { cleanupsOnExit } from "./cleanups.ts";
import { seededDatabase } from "./databases.ts";
import { ATTACKS, LONG_BODY, type Attack, type AttackContext, type Figures } from "./live-attacks/attacks.ts";
import { request, sleep, withTimeout } from "./live-attacks/clients.ts";
import { startSampler } from "./live-attacks/sampler.ts";
import { formatTable, summarize, type RunRecord, type SampleSummary } from "./live-attacks/summary.ts";
import { ROOT, rssMbOf, startService, type Service } from "./processes.ts";

const HELP = `Usage: npm run bench:live-attacks [-- options]

  --only LIST          attacks to run, by number (comma-separated; default 1,2,3,4,5,6):
                       1 graphql-ws ping flood before connection_init, socket not read
                       2 SSE streams never read (heavy selection), comments, then SIGTERM
                       3 subscribe/complete/subscribe bursts on one id, then leave
                       4 anonymous subscribe messages that are slow to validate
                       5 100 heavy subscriptions of one token, one comment (LIVE_ATTACK_HEAVY_SUBSCRIPTIONS=200: 200)
                       6 idle anonymous sockets holding connection slots (MAX_CONNECTIONS=150)
  --runs N             run each attack N times, each on a fresh server (default 1); the
                       table shows medians and ranges
  --json FILE          write every figure of every run to FILE
  --healthz-timeout MS /healthz requests unanswered after this count as this long (default 30000)
  --report FILES       run nothing: print the table of the runs saved in these --json files
                       (comma-separated; their runs are pooled), e.g. before and after a fix

Each attack starts its own server (NODE_ENV=production, LOG_LEVEL=warn, default limits unless the
attack says otherwise) on a copy of a small seed with one restaurant holding 100 comments of
10,000 characters. Server settings in the environment (WS_*, MAX_CONNECTIONS_PER_ADDRESS, ...)
pass through to every server. Figures from a machine shared with other work are noisy: use --runs 3.`;

const PASSWORD = DEFAULT_SEED_PASSWORD;
const RESTAURANT = restaurantId(1);
/** Sampled before each attack's start: the baseline. */
const BASELINE_MS = 2_000;
/** Sampled after each attack's end: "and for a few seconds after". */
const AFTER_MS = 3_000;
/** An attack still running after this is abandoned (its server is stopped). */
const ATTACK_CAP_MS = 6 * 60_000;

const startedAt = Date.now();
const log = (text: string) =>
  process.stderr.write(`${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)}s ${text.trimStart()}\n`);

function options() {
  const { values } = parseArgs({
    options: {
      only: { type: "string" },
      runs: { type: "string", default: "1" },
      json: { type: "string" },
      "healthz-timeout": { type: "string", default: "30000" },
      report: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const only = values.only ? values.only.split(",").filter(Boolean).map(Number) : ATTACKS.map((a) => a.n);
  for (const n of only)
    if (!ATTACKS.some((a) => a.n === n)) throw new Error(`--only: no attack ${n} (1 to ${ATTACKS.length})`);
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs must be a whole number of at least 1");
  const healthzTimeoutMs = Number(values["healthz-timeout"]);
  if (!Number.isFinite(healthzTimeoutMs) || healthzTimeoutMs < 100)
    throw new Error("--healthz-timeout must be at least 100 (ms)");
  const report = values.report?.split(",").filter(Boolean);
  return { attacks: ATTACKS.filter((a) => only.includes(a.n)), runs, json: values.json, healthzTimeoutMs, report };
}

type Options = ReturnType<typeof options>;

/** Everything to undo if the run stops half-way (servers, database folders). */
const { cleanups, cleanUp } = cleanupsOnExit(log, "stopping the servers and removing the databases");

/**
 * The database every attack starts from (copied per attack): the small seed, and restaurant 1
 * with 100 more comments of 10,000 characters (its 100 latest), whose rating totals are kept right.
 */
async function prepareTemplate(): Promise<string> {
  const { database, settings } = await seededDatabase("sqlite", { size: "small", password: PASSWORD }, cleanups);
  const db = createDb(settings);
  try {
    const authors = users(SIZES.small)
      .slice(2)
      .map((u) => u.id);
    await db.prisma.comment.createMany({
      data: Array.from({ length: 100 }, (_, i) => ({
        restaurantId: RESTAURANT,
        authorId: authors[i % authors.length]!,
        title: `Long review ${i + 1}`,
        body: LONG_BODY,
        rating: 1 + (i % 5),
      })),
    });
    const totals = await db.prisma.comment.aggregate({
      where: { restaurantId: RESTAURANT },
      _sum: { rating: true },
      _count: true,
    });
    const sum = totals._sum.rating ?? 0;
    await db.prisma.restaurant.update({
      where: { id: RESTAURANT },
      data: { ratingSum: sum, ratingCount: totals._count, ratingAvg: totals._count ? sum / totals._count : 0 },
    });
    await db.prisma.$queryRawUnsafe("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    await db.close();
  }
  return path.dirname(database.url.replace(/^file:/, ""));
}

/** A fresh copy of the template (database and uploads) for one server; removed by `drop`. */
function copyOf(template: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gw-live-attack-"));
  cpSync(template, dir, { recursive: true });
  const drop = async () => rmSync(dir, { recursive: true, force: true });
  return { url: `file:${path.join(dir, "bench.db")}`, uploadDir: path.join(dir, "uploads"), drop };
}

/** The server's settings as it sees them: this process's environment (passed through), then the harness's and the attack's. */
function effectiveEnv(serverEnv: Record<string, string>): Record<string, string> {
  const inherited = Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return { ...Object.fromEntries(inherited), ...serverEnv };
}

async function runAttack(attack: Attack, run: number, template: string, opts: Options): Promise<RunRecord> {
  const database = copyOf(template);
  cleanups.push(database.drop);
  const serverEnv = {
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    METRICS_ENABLED: "true",
    METRICS_TOKEN: "",
    DATABASE_URL: database.url,
    UPLOAD_DIR: database.uploadDir,
    ...attack.env,
  };
  const record: RunRecord = {
    attack: attack.n,
    title: attack.title,
    run,
    startedAt: new Date().toISOString(),
    serverEnv: attack.env,
    figures: {},
    problem: null,
    serverOutput: "",
  };
  let service: Service | null = null;
  // The harness's own requests (sign-ins, comments, /metrics) share one keep-alive connection.
  const control = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    service = await startService("src/main.ts", serverEnv);
    cleanups.push(service.stop);
    const url = service.url;
    const sampler = startSampler(url, service.pid, opts.healthzTimeoutMs);
    let start: number | null = null;
    let finished: Promise<SampleSummary> | null = null;
    const ctx: AttackContext = {
      service,
      wsUrl: `${url.replace(/^http/, "ws")}/graphql`,
      env: effectiveEnv(serverEnv),
      restaurantId: RESTAURANT,
      async login(n) {
        const username = users(SIZES.small)[2 + n]!.username;
        const answer = await request(`${url}/auth/token`, {
          method: "POST",
          agent: control,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ username, password: PASSWORD }),
        });
        const token = (JSON.parse(answer.status === 200 ? answer.body : "{}") as { access_token?: string })
          .access_token;
        if (!token) throw new Error(`sign-in of ${username} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
        return token;
      },
      async metrics() {
        const answer = await request(`${url}/metrics`, { agent: control, timeoutMs: 30_000 });
        return answer.status === 200 ? answer.body : "";
      },
      async comment(token, title, body) {
        const answer = await request(`${url}/restaurants/${RESTAURANT}/comments`, {
          method: "PUT",
          agent: control,
          timeoutMs: 60_000,
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({ title, body, rating: 4 }),
        });
        return answer.status;
      },
      async begin() {
        await sleep(BASELINE_MS);
        start = Date.now();
      },
      finish() {
        finished ??= (async () => {
          const end = Date.now();
          start ??= end;
          await sleep(AFTER_MS);
          return summarize(await sampler.stop(), start - BASELINE_MS, start, end + AFTER_MS);
        })();
        return finished;
      },
      rssMb: () => rssMbOf(service!.pid),
      log,
    };
    let figures: Figures = {};
    try {
      const outcome = await withTimeout(attack.run(ctx), ATTACK_CAP_MS, null);
      if (outcome) figures = outcome;
      else record.problem = `did not finish within ${ATTACK_CAP_MS / 60_000} min`;
    } catch (error) {
      record.problem =
        error instanceof Error ? (error.stack ?? error.message).split("\n").slice(0, 4).join(" ") : String(error);
    }
    const summary = await ctx.finish().catch((error: Error) => {
      record.problem ??= `sampling failed: ${error.message}`;
      return {} as SampleSummary;
    });
    record.figures = { ...summary, ...figures };
    if (record.problem)
      log(`attack ${attack.n}: ${record.problem}\n  the server's last output: ${service.output().slice(-1500)}`);
  } catch (error) {
    record.problem = `could not run: ${error instanceof Error ? error.message : error}`;
  } finally {
    control.destroy();
    if (service) {
      await service.stop();
      record.serverOutput = service.output().slice(-4000);
      cleanups.splice(cleanups.indexOf(service.stop), 1);
    }
    cleanups.splice(cleanups.indexOf(database.drop), 1);
    await database.drop();
  }
  return record;
}

const brief = (f: Figures) =>
  `RSS ${f.baselineRssMb ?? "?"} -> peak ${f.peakRssMb ?? "?"} MB, /healthz p50 ${f.healthzP50Ms ?? "?"} / p99 ${f.healthzP99Ms ?? "?"} / max ${f.healthzMaxMs ?? "?"} ms`;

function gitCommit(): string | null {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return null;
  }
}

/** The table of runs saved by --json, pooled (each file's commit and date named). */
function reportOf(files: string[], attacks: Attack[]) {
  const records: RunRecord[] = [];
  for (const file of files) {
    const saved = JSON.parse(readFileSync(file, "utf8")) as {
      date: string;
      commit: string | null;
      node: string;
      records: RunRecord[];
    };
    console.log(
      `${file}: ${saved.records.length} runs of ${saved.date}, commit ${saved.commit?.slice(0, 7) ?? "?"}, Node ${saved.node}`,
    );
    records.push(...saved.records);
  }
  console.log(`\n${formatTable(attacks, records).join("\n")}`);
}

async function main() {
  const opts = options();
  if (opts.report) return reportOf(opts.report, opts.attacks);
  const loadStart = os.loadavg();
  log(`preparing the database (small seed + 100 comments of 10,000 characters on ${RESTAURANT})`);
  const template = await prepareTemplate();
  const records: RunRecord[] = [];
  // Runs interleave (1..6, 1..6, ...) so that other load on the machine spreads over every attack.
  for (let run = 1; run <= opts.runs; run++) {
    for (const attack of opts.attacks) {
      log(`attack ${attack.n}, run ${run} of ${opts.runs}: ${attack.title}`);
      const record = await runAttack(attack, run, template, opts);
      log(`  ${brief(record.figures)}${record.problem ? ` (PROBLEM: ${record.problem})` : ""}`);
      records.push(record);
    }
  }
  const loadEnd = os.loadavg();
  const table = formatTable(opts.attacks, records);
  console.log(`\n${table.join("\n")}`);
  console.log(
    `\nLoad average (1, 5, 15 min) at the start ${loadStart.map((l) => l.toFixed(2)).join(", ")}, at the end ${loadEnd.map((l) => l.toFixed(2)).join(", ")}; ${((Date.now() - startedAt) / 1000).toFixed(0)} s in all.`,
  );
  if (opts.json) {
    mkdirSync(path.dirname(path.resolve(opts.json)), { recursive: true });
    const report = {
      date: new Date().toISOString(),
      commit: gitCommit(),
      node: process.version,
      machine: {
        cpus: os.cpus().length,
        memoryGb: Math.round(os.totalmem() / 2 ** 30),
        loadAverage: { start: loadStart, end: loadEnd },
      },
      settings: {
        runs: opts.runs,
        healthzTimeoutMs: opts.healthzTimeoutMs,
        baselineMs: BASELINE_MS,
        afterMs: AFTER_MS,
      },
      records,
      table,
    };
    writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`Written to ${opts.json}.`);
  }
  if (records.some((r) => r.problem)) process.exitCode = 1;
}

try {
  await main();
} catch (error) {
  log(`live attacks failed: ${error instanceof Error ? error.stack : error}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
