// `npm run bench [-- options]`: seeds a fresh database, starts the real server in production mode
// and drives it with autocannon over the GraphQL and REST scenarios, beside two baselines (Apollo
// with constant resolvers: the ceiling; a bare driver read: the floor) and, on PostgreSQL, a peer
// (PostGraphile 5 on Node 24, same database) in alternating rounds on the two scenarios it is
// compared on. Every read is also driven at half its saturation rate for the p99 latency SLO.
// Last, the fan-out: 1,000 WebSocket subscribers of one restaurant while comments stream in.
// On SQLite always, and on PostgreSQL when DATABASE_URL points at one (in a new database on that
// server, dropped after). Prints a table and writes bench/results/latest.json (the previous one
// becomes previous.json).
import "../src/node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { isSizeName, restaurantId, SIZES, users, type SizeName } from "../src/seed/dataset.ts";
import { DEFAULT_SEED_PASSWORD } from "../src/seed/seed.ts";
import {
  failedFanout,
  FANOUT_KEY,
  FANOUT_SSE_KEY,
  fanoutServerEnv,
  runFanout,
  type FanoutSettings,
  type FanoutTransport,
} from "./fanout.ts";
import { isPostgresUrl, postgresServerPid, seededDatabase, signIn } from "./databases.ts";
import { benchDataMoves, formatDataMoves } from "./data-moves.ts";
import { deepCommentRestaurants, mostCommentedSeedRestaurants } from "./deep-comments.ts";
import { benchReads, formatReadTimings } from "./reads.ts";
import { pacedLatencyApart } from "./paced-apart.ts";
import { latencyAtRate, measure, statementsOf, type LoadSettings, type RateLatency } from "./load.ts";
import { ensurePeerInstalled, nodeRuntime, PEER_DIR, PEER_SCRIPT } from "./peer/postgraphile.ts";
import { cleanupsOnExit } from "./cleanups.ts";
import { cpuSecondsOf, cpuSecondsOfTree, startProcess, startService, ROOT, type Service } from "./processes.ts";
import { readCounters } from "./prometheus.ts";
import {
  computeRatios,
  formatReport,
  P99_TARGET_MS,
  SLO_RATE_SHARE,
  type BenchReport,
  type DatabaseName,
  type PageSizeCheck,
  type ScenarioResult,
} from "./report.ts";
import {
  buildScenarios,
  constantApolloScenario,
  pageSizeRequests,
  peerScenarios,
  preflight,
  rawDriverScenario,
  type Scenario,
  type ScenarioContext,
} from "./scenarios.ts";

const HELP = `Usage: npm run bench [-- options]

  --quick              short runs on a smaller seed (about 1.5 minutes with both databases)
  --size NAME          seed size: small, medium or large (default large; medium with --quick)
  --duration S         measured seconds per scenario (default 10; 2 with --quick)
  --warmup S           warm-up seconds before each (default 3; 1 with --quick)
  --connections N      concurrent keep-alive connections (default 50)
  --databases LIST     sqlite,postgres (default: sqlite, plus postgres when DATABASE_URL is one)
  --only KEYS          only scenarios whose key starts with one of these (comma-separated),
                       e.g. --only gql.restaurant,rest.restaurant; a key ending in $ must
                       match whole (--only 'gql.search$' leaves out gql.search.rest-doc)
  --rounds N           run the server's scenarios N times on the same server (default 1); the
                       table shows the last round, memory is reported after each (RSS growth)
  --peer NAME          postgraphile (default) or none: the peer baseline on PostgreSQL, run in
                       its own process on Node 24 (installed on first use, see bench/peer/)
  --peer-rounds N      alternating rounds of this service and the peer on the compared
                       scenarios (default 2; the best round of each side is compared)
  --slo-duration S     seconds of each fixed-rate run (half the saturation rate) that measures
                       the p99 of every scenario for the SLO (default: half --duration; 0 skips them)
  --slo-rounds N       fixed-rate runs per scenario; the worst p99 of them is reported
                       (default 3)
  --slo-rate R         the fixed rate (req/s) of every scenario's SLO runs instead of half its
                       saturation rate: two versions compared at the same load (a server that
                       batches the requests of a moment reaches a higher saturation rate with
                       50 connections in lockstep than with steady arrivals)
  --sustained          after the SLO runs, look for the highest steady rate each scenario keeps
                       up with under the SLO (all sent, none failed, p99 < 50 ms): five runs of
                       --slo-duration, halving the interval between a rate kept and one missed;
                       the truer capacity of a server that batches (see --slo-rate)
  --slo-settle S       seconds at the fixed rate before the first of those runs, not measured
                       (default 2; 0 for none): the server and the database leave the
                       saturation run's backlog behind before the steady state is measured
  --fanout-subscribers N  WebSocket subscribers of the fan-out scenario (key live.fanout;
                       default 10000, 1000 with --quick; one connection each)
  --fanout-streams N   Server-Sent Events streams of the SSE fan-out (key live.fanout.sse;
                       default 2000, 200 with --quick)
  --fanout-rate N      comments per second written during the fan-out (default 20)
  --fanout-duration S  seconds the comments stream for (default 10; 5 with --quick)
  --cpu-prof           run the server under test with node --cpu-prof (profiles are written
                       to a temp folder named at the end; open them in Chrome DevTools)
  --before DIR         also run every scenario against the server of another checkout (DIR,
                       with its own node_modules; e.g. a worktree at the commit before a
                       change), on the same database, right after this one's each time: the
                       closing table shows before -> after from the one run
  --out FILE           where to write the JSON (default bench/results/latest.json)
  --reads              instead of the HTTP scenarios: each raw-SQL read of src/db against the
                       Prisma call that returns the same rows, in-process, per-call medians
                       (JSON in bench/results/reads.json)
  --calls N            with --reads: timed calls of each side per read (default 2000; 300 with
                       --quick), at most 15 s of them per read
  --data-moves         instead of the HTTP scenarios: write latency of the running service
                       without and during back-to-back backups, then backup, restore and
                       copy-data times and sizes (bench/data-moves.ts; JSON in
                       bench/results/data-moves.json)
  --write-rate N       with --data-moves: writes (addComment) per second (default 100)
  --data-moves-on URL  with --data-moves: use this seeded database (its covers in UPLOAD_DIR)
                       instead of seeding one (the 1m seed takes long); the writes add to it

Environment: DATABASE_URL (a postgres:// server to also bench on); BENCH_DURATION, BENCH_WARMUP,
BENCH_CONNECTIONS, BENCH_ONLY, BENCH_DATABASES, BENCH_PEER, BENCH_PEER_ROUNDS, BENCH_SLO_DURATION,
BENCH_SLO_ROUNDS, BENCH_SLO_SETTLE
stand for the options of the same names (a flag wins); server settings such as
SQLITE_SYNCHRONOUS or DB_POOL_SIZE pass through to the server under test.
Figures are only comparable between runs on a quiet machine.`;

const PASSWORD = DEFAULT_SEED_PASSWORD;
const TOKENS = 8;
const GROCERY_TITLES = ["rice", "milk", "apple", "tomato", "oil", "cheese", "bread", "tea", "chocolate", "beans"];
const PAGE_SIZES = [10, 50, 100];
const PROFILE_DIR = path.join(os.tmpdir(), "gw-bench-profiles");

const startedAt = Date.now();
/** Progress on stderr, stamped with the seconds since the start (the table goes to stdout). */
const log = (text: string) => {
  const [, lead = "", rest = text] = /^(\n*)([\s\S]*)$/.exec(text) ?? [];
  process.stderr.write(`${lead}${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)}s ${rest}\n`);
};

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      size: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string" },
      databases: { type: "string" },
      only: { type: "string" },
      rounds: { type: "string", default: "1" },
      peer: { type: "string" },
      "peer-rounds": { type: "string" },
      "slo-duration": { type: "string" },
      "slo-rounds": { type: "string" },
      "slo-settle": { type: "string" },
      "slo-rate": { type: "string" },
      sustained: { type: "boolean", default: false },
      "cpu-prof": { type: "boolean", default: false },
      "fanout-subscribers": { type: "string" },
      "fanout-streams": { type: "string" },
      "fanout-rate": { type: "string" },
      "fanout-duration": { type: "string" },
      out: { type: "string", default: path.join(ROOT, "bench/results/latest.json") },
      before: { type: "string" },
      reads: { type: "boolean", default: false },
      "data-moves": { type: "boolean", default: false },
      "write-rate": { type: "string" },
      "data-moves-on": { type: "string" },
      calls: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const env = process.env;
  values.duration ??= env.BENCH_DURATION;
  values.warmup ??= env.BENCH_WARMUP;
  values.connections ??= env.BENCH_CONNECTIONS;
  values.only ??= env.BENCH_ONLY;
  values.databases ??= env.BENCH_DATABASES;
  values.peer ??= env.BENCH_PEER ?? "postgraphile";
  values["peer-rounds"] ??= env.BENCH_PEER_ROUNDS;
  values["slo-duration"] ??= env.BENCH_SLO_DURATION;
  values["slo-rounds"] ??= env.BENCH_SLO_ROUNDS;
  values["slo-settle"] ??= env.BENCH_SLO_SETTLE;
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const number = (text: string | undefined, fallback: number, name: string) => {
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number of seconds or a count`);
    return n;
  };
  const size = values.size ?? (values.quick ? "medium" : "large");
  if (!isSizeName(size)) throw new Error(`--size must be one of ${Object.keys(SIZES).join(", ")}`);
  const serverUrl = process.env.DATABASE_URL;
  const databases = (values.databases ?? (isPostgresUrl(serverUrl) ? "sqlite,postgres" : "sqlite")).split(
    ",",
  ) as DatabaseName[];
  for (const d of databases)
    if (d !== "sqlite" && d !== "postgres") throw new Error(`--databases: unknown database "${d}"`);
  if (databases.includes("postgres") && !isPostgresUrl(serverUrl))
    throw new Error("postgres needs DATABASE_URL=postgresql://... (a server to create a database on)");
  const load: LoadSettings = {
    connections: number(values.connections, 50, "connections"),
    durationSec: number(values.duration, values.quick ? 2 : 10, "duration"),
    warmupSec: number(values.warmup, values.quick ? 1 : 3, "warmup"),
  };
  const only = values.only?.split(",").filter(Boolean);
  const rounds = number(values.rounds, 1, "rounds");
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a whole number of at least 1");
  const peerRounds = number(values["peer-rounds"], 2, "peer-rounds");
  if (!Number.isInteger(peerRounds) || peerRounds < 1)
    throw new Error("--peer-rounds must be a whole number of at least 1");
  if (values.peer !== "postgraphile" && values.peer !== "none")
    throw new Error('--peer must be "postgraphile" or "none"');
  const sloDurationSec = number(values["slo-duration"], Math.max(1, load.durationSec / 2), "slo-duration");
  const sloRounds = number(values["slo-rounds"], 3, "slo-rounds");
  if (!Number.isInteger(sloRounds) || sloRounds < 1)
    throw new Error("--slo-rounds must be a whole number of at least 1");
  const sloSettleSec = number(values["slo-settle"], 2, "slo-settle");
  const sloRate = values["slo-rate"] === undefined ? undefined : number(values["slo-rate"], 0, "slo-rate");
  if (sloRate !== undefined && !(sloRate > 0)) throw new Error("--slo-rate must be above 0");
  const fanout: FanoutSettings = {
    subscribers: number(values["fanout-subscribers"], values.quick ? 1000 : 10_000, "fanout-subscribers"),
    streams: number(values["fanout-streams"], values.quick ? 200 : 2000, "fanout-streams"),
    ratePerSec: number(values["fanout-rate"], 20, "fanout-rate"),
    durationSec: number(values["fanout-duration"], values.quick ? 5 : 10, "fanout-duration"),
  };
  if (
    !Number.isInteger(fanout.subscribers) ||
    fanout.subscribers < 1 ||
    !Number.isInteger(fanout.streams) ||
    fanout.streams < 1 ||
    fanout.ratePerSec <= 0
  ) {
    throw new Error(
      "--fanout-subscribers and --fanout-streams must be whole numbers of at least 1 and --fanout-rate above 0",
    );
  }
  return {
    quick: values.quick,
    size: size as SizeName,
    databases,
    serverUrl,
    load,
    only,
    rounds,
    peer: values.peer === "postgraphile",
    peerRounds,
    sloDurationSec,
    sloRounds,
    sloSettleSec,
    sloRate,
    sustained: values.sustained,
    cpuProf: values["cpu-prof"],
    out: values.out,
    fanout,
    before: values.before ? path.resolve(values.before) : null,
    reads: values.reads,
    calls: number(values.calls, values.quick ? 300 : 2000, "calls"),
    dataMoves: values["data-moves"],
    writeRate: number(values["write-rate"], 100, "write-rate"),
    dataMovesOn: values["data-moves-on"],
  };
}

type Options = ReturnType<typeof options>;

/** The PostgreSQL server of the database being benched, when it runs on this machine: its CPU is "DB CPU". */
let postgresPid: number | null = null;

/** Everything to undo if the run stops half-way (services, databases). */
const { cleanups, cleanUp } = cleanupsOnExit(log, "stopping the services and dropping the bench databases");

async function withService<T>(start: () => Promise<Service>, use: (s: Service) => Promise<T>): Promise<T> {
  const service = await start();
  cleanups.push(service.stop);
  try {
    return await use(service);
  } finally {
    cleanups.splice(cleanups.indexOf(service.stop), 1);
    await service.stop();
  }
}

async function runScenario(
  service: Service,
  scenario: Scenario,
  database: DatabaseName | null,
  opts: Options,
): Promise<ScenarioResult> {
  const { url } = service;
  const base = { database, key: scenario.key, label: scenario.label, api: scenario.api, kind: scenario.kind };
  const wrong = await preflight(url, scenario).catch((error: Error) => `request failed: ${error.message}`);
  if (wrong) {
    log(`  ${scenario.key}: wrong answer before the load, skipped: ${wrong}`);
    return { ...base, problem: `first answer wrong: ${wrong}`, measurement: null };
  }
  const m = await measure(url, scenario.requests, opts.load, {
    graphql: scenario.api !== "rest",
    metrics: scenario.target === "server",
    cpuSeconds: () => cpuSecondsOf(service.pid),
    databaseCpu: database === "postgres" && postgresPid !== null ? () => cpuSecondsOfTree(postgresPid!) : undefined,
  });
  const failed = m.errors + m.timeouts + m.non2xx + m.mismatches;
  const problem = failed
    ? `${failed} of ${m.requests} requests failed (errors ${m.errors}, timeouts ${m.timeouts}, non-2xx ${m.non2xx}, GraphQL errors ${m.mismatches}; statuses ${JSON.stringify(m.statusCodes)})`
    : null;
  const cpu =
    (m.cpuMsPerRequest === null ? "" : `, ${m.cpuMsPerRequest.toFixed(2)} CPU ms/req`) +
    (m.databaseCpuMsPerRequest === null ? "" : ` (database ${m.databaseCpuMsPerRequest.toFixed(2)})`);
  log(
    `  ${scenario.key}: ${m.reqPerSec.toFixed(0)} req/s, p50 ${m.latency.p50} ms${cpu}${problem ? ` (${problem})` : ""}`,
  );
  return { ...base, problem, measurement: m };
}

/** One run of --slo-duration seconds at `rate` steady arrivals (`withBursts`: then the same through autocannon). */
const steadyRun = (service: Service, scenario: Scenario, rate: number, opts: Options, withBursts: boolean) =>
  latencyAtRate(
    service.url,
    scenario.requests,
    { ...opts.load, durationSec: opts.sloDurationSec },
    rate,
    scenario.api !== "rest",
    withBursts,
  );

/**
 * The SLO's measure: p99 of a scenario (reads and writes) at a fixed rate of half its saturation
 * rate, in `sloRounds` runs; the worst run's p99 stands (issue 33: not the median).
 */
async function addSlo(
  service: Service,
  scenario: Scenario,
  result: ScenarioResult,
  opts: Options,
): Promise<ScenarioResult> {
  if (opts.sloDurationSec <= 0 || !result.measurement || result.problem) return result;
  const rate = opts.sloRate ?? result.measurement.reqPerSec * SLO_RATE_SHARE;
  const failed = (n: number) => (n ? `, ${n} failed` : "");
  const runs: RateLatency[] = [];
  // Unmeasured, at the same rate: the first round right after the saturation run was the worst in
  // most scenarios, for this service and the peer alike (by id, 510 ms against 183 and 36 in the
  // next rounds; the server's own stall 107 ms then, 13-28 after), which is the saturation run's
  // backlog (a full heap, the database's dirty pages), not the steady state the rounds measure.
  if (opts.sloSettleSec > 0)
    await pacedLatencyApart({
      url: service.url,
      requests: scenario.requests,
      connections: opts.load.connections,
      durationSec: opts.sloSettleSec,
      rate: Math.max(1, Math.round(rate)),
      graphql: scenario.api !== "rest",
    });
  for (let round = 0; round < opts.sloRounds; round++) {
    const slo = await steadyRun(service, scenario, rate, opts, round === 0);
    log(
      `  ${scenario.key} at ${slo.rate} req/s, steady: got ${slo.achieved.toFixed(0)} req/s, p50 ${slo.p50} ms, p99 ${slo.p99} ms, max ${slo.max} ms${failed(slo.failed)}` +
        ` (bench sent late by p99 ${slo.senderLateP99} ms)` +
        (slo.server
          ? `; server: event loop stalled up to ${slo.server.stallMaxMs} ms, GC ${slo.server.gcMs} ms in all`
          : "") +
        (slo.bursts
          ? `; autocannon overallRate: p50 ${slo.bursts.p50} ms, p99 ${slo.bursts.p99} ms${failed(slo.bursts.failed)}`
          : ""),
    );
    runs.push(slo);
  }
  const worst = runs.reduce((a, r) => (r.p99 > a.p99 || (r.p99 === a.p99 && r.failed > a.failed) ? r : a));
  const stallRounds = runs.every((r) => r.server) ? runs.map((r) => r.server!.stallMaxMs) : undefined;
  return {
    ...result,
    slo: {
      ...worst,
      failed: runs.reduce((n, r) => n + r.failed, 0),
      bursts: runs[0]!.bursts,
      p99Rounds: runs.map((r) => r.p99),
      stallRounds,
    },
    sustained: opts.sustained ? await sustainedRate(service, scenario, result.measurement.reqPerSec, opts) : undefined,
  };
}

/** Runs of the search for the highest steady rate kept under the SLO. */
const SUSTAINED_STEPS = 5;
/** A run keeps up when it answered at least this share of the rate (the sender's own jitter aside). */
const KEPT_UP_SHARE = 0.97;

/**
 * The highest steady rate (req/s) at which the scenario answers all it is sent, none failed, with
 * a p99 under the SLO: a bisection between 0 and the saturation rate, from half of it. With
 * batching, 50 connections in lockstep reach a saturation rate that steady arrivals do not
 * sustain, and half of it is not half loaded (docs/performance.md, "One statement for the requests
 * of a moment"). Null when even the lowest rate tried missed.
 */
async function sustainedRate(
  service: Service,
  scenario: Scenario,
  saturation: number,
  opts: Options,
): Promise<{ rate: number; p99: number } | null> {
  let [kept, missed] = [0, saturation];
  let best: { rate: number; p99: number } | null = null;
  for (let step = 0; step < SUSTAINED_STEPS; step++) {
    const rate = Math.max(1, Math.round((kept + missed) / 2));
    const run = await steadyRun(service, scenario, rate, opts, false);
    const keptUp = run.achieved >= rate * KEPT_UP_SHARE && run.failed === 0 && run.p99 < P99_TARGET_MS;
    log(
      `  ${scenario.key} sustained? ${rate} req/s: got ${run.achieved.toFixed(0)}, p99 ${run.p99} ms${run.failed ? `, ${run.failed} failed` : ""}: ${keptUp ? "kept up" : "missed"}`,
    );
    if (keptUp) {
      kept = rate;
      best = { rate, p99: run.p99 };
    } else missed = rate;
  }
  return best;
}

/**
 * The compared scenarios: this service and the peer (when there is one) take turns, one scenario
 * run each, for `peerRounds` rounds, so that whatever else loads the machine hits both alike.
 * Each side's best round stands for it (other load only ever slows a run down); then each gets
 * its SLO run at half that rate.
 */
async function alternate(
  server: Service,
  peer: Service | null,
  compared: Scenario[],
  peers: Scenario[],
  database: DatabaseName,
  opts: Options,
  before: Service | null = null,
) {
  const runs = new Map<string, { service: Service; scenario: Scenario; results: ScenarioResult[]; before: boolean }>();
  const runOne = async (service: Service, scenario: Scenario, isBefore = false) => {
    const key = `${isBefore ? "before:" : ""}${scenario.key}`;
    const entry = runs.get(key) ?? { service, scenario, results: [], before: isBefore };
    runs.set(key, entry);
    if (isBefore) log(`  (before) ${scenario.key}:`);
    entry.results.push(await runScenario(service, scenario, database, opts));
  };
  if (compared.length === 0) return { results: [], before: [] };
  for (let round = 1; round <= opts.peerRounds; round++) {
    log(
      `[${database}] compared scenarios, round ${round} of ${opts.peerRounds}${peer ? " (alternating with the peer)" : ""}${before ? " (and the --before server)" : ""}`,
    );
    for (const ours of compared) {
      await runOne(server, ours);
      if (before) await runOne(before, ours, true);
      const theirs = peers.find((p) => p.peerOf === ours.key);
      if (theirs && peer) await runOne(peer, theirs);
    }
  }
  const combined: ScenarioResult[] = [];
  const beforeResults: ScenarioResult[] = [];
  for (const { service, scenario, results, before: isBefore } of runs.values()) {
    const measured = results.filter((r) => r.measurement);
    const best =
      measured.reduce<ScenarioResult | null>(
        (a, r) => (!a || r.measurement!.reqPerSec > a.measurement!.reqPerSec ? r : a),
        null,
      ) ?? results[0]!;
    const result: ScenarioResult = {
      ...best,
      problem: results.find((r) => r.problem)?.problem ?? null,
      rounds: results.map((r) => r.measurement?.reqPerSec ?? 0),
      ...(scenario.peerOf ? { peerOf: scenario.peerOf } : {}),
    };
    (isBefore ? beforeResults : combined).push(await addSlo(service, scenario, result, opts));
  }
  return { results: combined, before: beforeResults };
}

/** The peer's description for the report, e.g. "PostGraphile 5.1.5 on Node v24.21.0". */
function describePeer(runtime: string): string {
  const version = (
    JSON.parse(readFileSync(path.join(PEER_DIR, "node_modules/postgraphile/package.json"), "utf8")) as {
      version: string;
    }
  ).version;
  const node = execFileSync(path.join(runtime, "bin/node"), ["--version"], { encoding: "utf8" }).trim();
  return `PostGraphile ${version} (Amber preset, no authentication) on Node ${node}`;
}

/** `--only` keys are prefixes; one ending in "$" must match the whole key (`gql.search$`). */
const selectedKey = (opts: Options, key: string) =>
  !opts.only || opts.only.some((k) => (k.endsWith("$") ? key === k.slice(0, -1) : key.startsWith(k)));
const selected = (opts: Options, scenario: Scenario) => selectedKey(opts, scenario.key);

async function benchDatabase(
  name: DatabaseName,
  opts: Options,
  ctxBase: Omit<ScenarioContext, "tokens">,
  report: BenchReport,
  peerRuntime: string | null,
) {
  log(`\n[${name}] fresh database, seeding ${opts.size}...`);
  const { database, seeded } = await seededDatabase(
    name,
    { size: opts.size, serverUrl: opts.serverUrl, password: PASSWORD },
    cleanups,
  );
  try {
    log(`[${name}] seeded`);
    postgresPid = name === "postgres" ? await postgresServerPid(database.url) : null;
    report.settings.seed = {
      restaurants: seeded.inserted.restaurants,
      comments: seeded.inserted.comments,
      groceries: seeded.inserted.groceries,
      users: seeded.inserted.users,
    };

    const env = {
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      RATE_LIMIT_MAX: "0",
      DATABASE_URL: database.url,
      UPLOAD_DIR: database.uploadDir,
      METRICS_ENABLED: "true",
      METRICS_TOKEN: "",
      FEDERATION_SUBGRAPH: "true", // gql.entities
      // The fan-out's subscribers all connect from 127.0.0.1 (printed with its figures).
      ...(selectedKey(opts, FANOUT_KEY) || selectedKey(opts, FANOUT_SSE_KEY) ? fanoutServerEnv(opts.fanout) : {}),
    };
    // One folder per server; node names each thread's profile itself (the tsx loader runs in a
    // worker thread, and a fixed --cpu-prof-name would let its profile overwrite the main one).
    const nodeArgs = opts.cpuProf
      ? ["--cpu-prof", "--cpu-prof-dir", path.join(PROFILE_DIR, `${name}-${Date.now()}`)]
      : [];
    const startBefore = () => (opts.before ? startService("src/main.ts", env, [], opts.before) : Promise.resolve(null));
    await withService(
      () => startService("src/main.ts", env, nodeArgs),
      async (server) => {
        const before = await startBefore();
        if (before) cleanups.push(before.stop);
        try {
          log(
            `[${name}] server at ${server.url} (pid ${server.pid}); signing in ${TOKENS} seeded users` +
              (before ? `; --before server (${opts.before}) at ${before.url} (pid ${before.pid})` : ""),
          );
          // The same accounts as ctxBase.userIds, in the same order.
          const usernames = users(SIZES[opts.size])
            .slice(2, 2 + TOKENS)
            .map((u) => u.username);
          const tokens = await Promise.all(usernames.map((u) => signIn(server.url, u, PASSWORD)));
          const ctx = { ...ctxBase, tokens };
          const start = await readCounters(server.url);

          for (const [label] of Object.entries(pageSizeRequests(tokens[0]!, 1))) {
            // One request first, so the token's look-up (then remembered by the session cache) is not
            // counted against the smallest page.
            await statementsOf(server.url, pageSizeRequests(tokens[0]!, PAGE_SIZES[0]!)[label]!);
            const statements: Record<string, number> = {};
            for (const first of PAGE_SIZES)
              statements[first] = await statementsOf(server.url, pageSizeRequests(tokens[0]!, first)[label]!);
            report.pageSizeChecks.push({ database: name, label, statements } satisfies PageSizeCheck);
          }

          const scenarios = buildScenarios(ctx).filter((s) => selected(opts, s));
          // The scenarios the peer is compared on go first, in alternating rounds (on SQLite, or with
          // --peer none, the same rounds with this service alone).
          const peers = peerScenarios(ctx);
          const compared = scenarios.filter((s) => peers.some((p) => p.peerOf === s.key));
          if (compared.length) {
            const peerStart =
              peerRuntime && name === "postgres"
                ? () =>
                    startProcess(path.join(peerRuntime, "bin/node"), [PEER_SCRIPT], {
                      NODE_ENV: "production",
                      DATABASE_URL: database.url,
                    })
                : null;
            // Reads first, then the writes (they add comments, which the reads would then read).
            const inTurn = async (peer: Service | null) => {
              const reads = await alternate(
                server,
                peer,
                compared.filter((s) => s.kind === "read"),
                peers,
                name,
                opts,
                before,
              );
              const writes = await alternate(
                server,
                peer,
                compared.filter((s) => s.kind === "write"),
                peers,
                name,
                opts,
                before,
              );
              report.before.push(...reads.before, ...writes.before);
              return [...reads.results, ...writes.results];
            };
            const results = peerStart
              ? await withService(peerStart, async (peer) => {
                  log(`[${name}] peer at ${peer.url} (pid ${peer.pid}): ${report.settings.peer}`);
                  return inTurn(peer);
                })
              : await inTurn(null);
            report.results.push(...results);
          }
          const others = scenarios.filter((s) => !compared.includes(s));
          // Reads first: the writes add comments, which would change what the reads read.
          const ordered = [...others.filter((s) => s.kind === "read"), ...others.filter((s) => s.kind === "write")];
          const rssAfterRounds: number[] = [];
          let end = start;
          for (let round = 1; round <= opts.rounds; round++) {
            if (opts.rounds > 1) log(`[${name}] round ${round} of ${opts.rounds}`);
            const results: ScenarioResult[] = [];
            for (const scenario of ordered) {
              const result = await runScenario(server, scenario, name, opts);
              // The SLO runs once, in the last round.
              results.push(round === opts.rounds ? await addSlo(server, scenario, result, opts) : result);
              if (before && round === opts.rounds) {
                log(`  (before) ${scenario.key}:`);
                report.before.push(
                  await addSlo(before, scenario, await runScenario(before, scenario, name, opts), opts),
                );
              }
            }
            end = await readCounters(server.url);
            rssAfterRounds.push(end.rssBytes / 2 ** 20);
            if (round === opts.rounds) report.results.push(...results);
          }
          report.memory.push({
            database: name,
            rssBeforeMb: start.rssBytes / 2 ** 20,
            rssAfterMb: end.rssBytes / 2 ** 20,
            rssAfterRoundsMb: rssAfterRounds,
            heapAfterMb: end.heapBytes / 2 ** 20,
          });

          const fanouts: [string, FanoutTransport, number][] = [
            [FANOUT_KEY, "ws", opts.fanout.subscribers],
            [FANOUT_SSE_KEY, "sse", opts.fanout.streams],
          ];
          for (const [key, transport, connections] of fanouts) {
            if (!selectedKey(opts, key)) continue;
            log(
              `[${name}] fan-out: ${connections} ${transport === "ws" ? "WebSocket subscribers" : "Server-Sent Events streams"}, ${opts.fanout.ratePerSec} comments/s for ${opts.fanout.durationSec} s`,
            );
            const result = await runFanout(
              server.url,
              server.pid,
              name,
              transport,
              tokens,
              ctx.restaurantIds[0]!,
              opts.fanout,
              log,
            ).catch((error: Error) => failedFanout(name, transport, opts.fanout, `fan-out failed: ${error.message}`));
            const l = result.latency;
            log(
              `  ${key}: ${result.received} of ${result.expected} events, p50 ${l?.p50} ms, p99 ${l?.p99} ms, ${result.kibPerSubscriber.toFixed(1)} KiB/subscriber${result.problem ? ` (${result.problem})` : ""}`,
            );
            if (result.problem) log(`  ${key}: the server's last output:\n${server.output().slice(-3000)}`);
            report.fanout.push(result);
          }
        } finally {
          if (before) {
            cleanups.splice(cleanups.indexOf(before.stop), 1);
            await before.stop();
          }
        }
      },
    );

    const raw = rawDriverScenario({ ...ctxBase, tokens: [] });
    if (selected(opts, raw)) {
      await withService(
        () => startService("bench/baselines/raw-driver.ts", { NODE_ENV: "production", DATABASE_URL: database.url }),
        async (baseline) => {
          report.results.push(await runScenario(baseline, raw, name, opts));
        },
      );
    }
  } finally {
    cleanups.splice(cleanups.indexOf(database.drop), 1);
    await database.drop();
  }
}

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

async function readsOnly(opts: Options) {
  const timings = await benchReads(opts, log, cleanups);
  const out = path.join(ROOT, "bench/results/reads.json");
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, commit: gitCommit(), size: opts.size, calls: opts.calls, timings }, null, 2)}\n`,
  );
  console.log(`\n${formatReadTimings(timings)}`);
  console.log(
    `\nPer-call medians. Written to ${path.relative(ROOT, out)} in ${((Date.now() - startedAt) / 1000).toFixed(0)} s.`,
  );
}

async function dataMovesOnly(opts: Options) {
  const existing = opts.dataMovesOn
    ? { url: opts.dataMovesOn, uploadDir: process.env.UPLOAD_DIR ?? "./data/uploads" }
    : undefined;
  const settings = {
    size: opts.size,
    serverUrl: opts.serverUrl,
    databases: opts.databases,
    durationSec: opts.load.durationSec,
    writeRate: opts.writeRate,
    password: PASSWORD,
    existing,
  };
  const results = await benchDataMoves(settings, log, cleanups);
  const out = path.join(ROOT, "bench/results/data-moves.json");
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, commit: gitCommit(), loadAverage: os.loadavg(), settings, results }, null, 2)}\n`,
  );
  console.log(`\n${formatDataMoves(results)}`);
  console.log(`\nWritten to ${path.relative(ROOT, out)} in ${((Date.now() - startedAt) / 1000).toFixed(0)} s.`);
}

async function main() {
  const opts = options();
  if (opts.reads) return readsOnly(opts);
  if (opts.dataMoves) return dataMovesOnly(opts);
  const cpus = os.cpus();
  const report: BenchReport = {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model.trim() ?? "unknown",
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      loadAverage: { start: os.loadavg(), end: [] },
    },
    commit: gitCommit(),
    settings: {
      quick: opts.quick,
      size: opts.size,
      ...opts.load,
      rounds: opts.rounds,
      peerRounds: opts.peerRounds,
      peer: null,
      sloDurationSec: opts.sloDurationSec,
      sloRounds: opts.sloRounds,
      sloSettleSec: opts.sloSettleSec,
      sloRate: opts.sloRate,
      seed: {},
    },
    results: [],
    before: [],
    ratios: [],
    pageSizeChecks: [],
    memory: [],
    fanout: [],
  };
  const count = SIZES[opts.size].restaurants;
  const ctxBase = {
    restaurantIds: Array.from({ length: count }, (_, i) => restaurantId(i + 1)),
    userIds: users(SIZES[opts.size])
      .slice(2, 2 + TOKENS)
      .map((u) => u.id),
    groceryTitles: GROCERY_TITLES,
    deepCommentRestaurants: deepCommentRestaurants(opts.size),
    mostCommentedSeedRestaurants: mostCommentedSeedRestaurants(opts.size, 8),
  };

  // The ceiling uses no database: measured once, compared with each database's figures.
  const constant = constantApolloScenario({ ...ctxBase, tokens: [] });
  if (selected(opts, constant)) {
    log("[baseline] Apollo + Fastify with constant resolvers");
    await withService(
      () => startService("bench/baselines/constant-apollo.ts", { NODE_ENV: "production" }),
      async (service) => {
        report.results.push(await runScenario(service, constant, null, opts));
      },
    );
  }
  // The peer runs on PostgreSQL only, when one of the scenarios it is compared on is selected.
  const scenarioList = buildScenarios({ ...ctxBase, tokens: ["-"] });
  const peerList = peerScenarios({ ...ctxBase, tokens: [] });
  const peerWanted =
    opts.peer &&
    opts.databases.includes("postgres") &&
    peerList.some((p) => scenarioList.some((s) => s.key === p.peerOf && selected(opts, s)));
  let peerRuntime: string | null = null;
  if (peerWanted) {
    peerRuntime = nodeRuntime();
    ensurePeerInstalled(peerRuntime, log);
    report.settings.peer = describePeer(peerRuntime);
  }
  for (const name of opts.databases) await benchDatabase(name, opts, ctxBase, report, peerRuntime);

  report.machine.loadAverage.end = os.loadavg();
  report.ratios = computeRatios(report.results, scenarioList, peerList, opts.databases, opts.sloRate !== undefined);
  mkdirSync(path.dirname(opts.out), { recursive: true });
  const previousFile = path.join(path.dirname(opts.out), "previous.json");
  if (existsSync(opts.out)) renameSync(opts.out, previousFile);
  const previous = existsSync(previousFile) ? (JSON.parse(readFileSync(previousFile, "utf8")) as BenchReport) : null;
  writeFileSync(opts.out, `${JSON.stringify(report, null, 2)}\n`);

  console.log(`\n${formatReport(report, previous)}`);
  console.log(
    `\nWritten to ${path.relative(ROOT, opts.out)} in ${((Date.now() - startedAt) / 1000).toFixed(0)} s.` +
      (previous ? ` "vs prev" compares with ${path.relative(ROOT, previousFile)} (${previous.date}).` : ""),
  );
  if (opts.cpuProf) console.log(`CPU profiles of the server: ${PROFILE_DIR}`);
  if (report.results.some((r) => r.problem) || report.fanout.some((r) => r.problem)) process.exitCode = 1;
}

try {
  await main();
} catch (error) {
  log(`bench failed: ${error instanceof Error ? error.stack : error}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
