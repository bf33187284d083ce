// Ten thousand listeners (issue 48): many mostly idle WebSocket subscribers (a restaurant page open
// on a phone), each on its own connection, following commentAdded of one of a few hundred
// restaurants, signed in with one of a few hundred tokens, while a comment a second is written.
// Held by one instance (SQLite, PostgreSQL), then split over two instances sharing events through
// Redis (PostgreSQL). Reports every miss, delivery latency from the write's acknowledgement, the
// server's RSS per idle subscriber and its CPU per delivered event. The server(s) run on core 0
// and the subscriber processes (fanout-clients.ts) and this process on core 1 (taskset), so on a
// 2-core machine the figures are the server's own.
import "../src/node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { cleanupsOnExit } from "./cleanups.ts";
import { isPostgresUrl, postgresServerPid, seededDatabase, signIn } from "./databases.ts";
import { activeSubscriptions, clientProcess, mergeClientResults, putComment } from "./fanout.ts";
import type { ClientJob, FromClients } from "./fanout-clients.ts";
import {
  cpuSecondsBetween,
  cpuSecondsOf,
  cpuSecondsOfTree,
  pinToCpu,
  rssMbOf,
  ROOT,
  startService,
  type Service,
} from "./processes.ts";
import { readCounters } from "./prometheus.ts";
import { restaurantId, users, SIZES, type SizeName } from "../src/seed/dataset.ts";
import { DEFAULT_SEED_PASSWORD } from "../src/seed/seed.ts";

const USAGE = `npm run bench:listeners -- [options]
  --subscribers N   WebSocket subscribers in all (default 10000)
  --restaurants N   restaurants they follow, spread evenly (default 300)
  --tokens N        access tokens they use, one per seeded user, spread evenly (default 300)
  --rate N          comments written per second (default 1)
  --duration S      seconds of comments (default 60)
  --size NAME       seed (default large: 2,000 restaurants, 400 users)
  --databases LIST  sqlite,postgres (default: both; postgres needs DATABASE_URL)
  --shapes LIST     one,two (default: both; two = two instances sharing events through Redis, PostgreSQL only)
  --redis URL       Redis for the two instances (default: REDIS_URL; the one-instance runs never use it)
  --settle S        seconds idle before each memory reading (default 5)
  --json FILE       results (default bench/results/listeners.json)`;

const SERVER_CPU = 0;
const CLIENT_CPU = 1;
const CLIENTS_PER_PROCESS = 2_500;
const DRAIN_MS = 30_000;
const DELIVERY_TARGET_MS = 250;
const KIB_TARGET = 20;

const log = (text: string) => process.stderr.write(`${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Options = {
  subscribers: number;
  restaurants: number;
  tokens: number;
  rate: number;
  duration: number;
  size: SizeName;
  databases: ("sqlite" | "postgres")[];
  shapes: ("one" | "two")[];
  settleSec: number;
  redisUrl: string | undefined;
  json: string;
};

function options(): Options {
  const { values } = parseArgs({
    options: {
      subscribers: { type: "string", default: "10000" },
      restaurants: { type: "string", default: "300" },
      tokens: { type: "string", default: "300" },
      rate: { type: "string", default: "1" },
      duration: { type: "string", default: "60" },
      size: { type: "string", default: "large" },
      databases: { type: "string" },
      shapes: { type: "string", default: "one,two" },
      settle: { type: "string", default: "5" },
      redis: { type: "string" },
      json: { type: "string", default: path.join(ROOT, "bench/results/listeners.json") },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    log(USAGE);
    process.exit(0);
  }
  const positive = (name: string, text: string) => {
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, not ${text}`);
    return n;
  };
  if (!(values.size in SIZES)) throw new Error(`--size must be one of ${Object.keys(SIZES).join(", ")}`);
  const size = values.size as SizeName;
  const opts: Options = {
    subscribers: Math.round(positive("subscribers", values.subscribers)),
    restaurants: Math.round(positive("restaurants", values.restaurants)),
    tokens: Math.round(positive("tokens", values.tokens)),
    rate: positive("rate", values.rate),
    duration: positive("duration", values.duration),
    size,
    databases: (values.databases ?? (isPostgresUrl(process.env.DATABASE_URL) ? "sqlite,postgres" : "sqlite"))
      .split(",")
      .map((d) => d.trim()) as Options["databases"],
    shapes: values.shapes.split(",").map((s) => s.trim()) as Options["shapes"],
    settleSec: positive("settle", values.settle),
    redisUrl: values.redis ?? process.env.REDIS_URL,
    json: values.json,
  };
  if (opts.restaurants > SIZES[size].restaurants) throw new Error(`--restaurants: the ${size} seed has fewer`);
  if (opts.tokens > SIZES[size].users) throw new Error(`--tokens: one per user, the ${size} seed has fewer users`);
  if (opts.databases.includes("postgres") && !isPostgresUrl(process.env.DATABASE_URL))
    throw new Error("postgres needs DATABASE_URL=postgresql://... (a server where the bench may create a database)");
  return opts;
}

/**
 * What the subscribers need of a server: they all connect from 127.0.0.1, so its per-address and
 * per-client bounds are raised to them (printed with the figures). Per account (one token each),
 * the default bounds hold as long as subscribers / tokens stays under them.
 */
function listenerServerEnv(perInstance: number, tokens: number): Record<string, string> {
  const perAccount = Math.ceil(perInstance / tokens);
  return {
    MAX_CONNECTIONS: String(perInstance + 200),
    MAX_CONNECTIONS_PER_ADDRESS: String(perInstance + 100),
    // Before connection_init a socket counts against its address (all of them: 127.0.0.1).
    LIVE_MAX_CONNECTIONS_PER_CLIENT: String(perInstance + 10),
    LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: String(Math.max(200, perAccount)),
  };
}

type InstanceFigures = {
  url: string;
  subscribers: number;
  rssBeforeMb: number;
  rssWithMb: number;
  heapBeforeMb: number;
  heapWithMb: number;
  kibPerSubscriber: number;
  heapKibPerSubscriber: number;
};

type ShapeResult = {
  database: string;
  shape: "one instance" | "two instances (Redis)";
  subscribers: number;
  restaurants: number;
  tokens: number;
  serverEnv: Record<string, string>;
  instances: InstanceFigures[];
  setupSec: number;
  comments: number;
  expected: number;
  received: number;
  missed: number;
  subscribersMissing: number;
  extra: number;
  latency: { p50: number; p99: number; max: number } | null;
  idleServerCpuMsPerSec: number | null;
  serverCpuUsPerEvent: number | null;
  serverCpuUsPerEventBeyondIdle: number | null;
  databaseCpuUsPerEvent: number | null;
  problems: string[];
};

const mb = (bytes: number) => bytes / 2 ** 20;

async function memoryOf(server: Service) {
  const counters = await readCounters(server.url);
  return { rssMb: rssMbOf(server.pid) ?? mb(counters.rssBytes), heapMb: mb(counters.heapBytes) };
}

const serversCpu = (servers: Service[]) => servers.reduce((sum, s) => sum + (cpuSecondsOf(s.pid) ?? NaN), 0);

async function runShape(
  servers: Service[],
  database: string,
  databasePid: number | null,
  shape: ShapeResult["shape"],
  opts: Options,
  serverEnv: Record<string, string>,
): Promise<ShapeResult> {
  const problems: string[] = [];
  const n = opts.subscribers;
  const restaurants = Array.from({ length: opts.restaurants }, (_, i) => restaurantId(i + 1));
  const usernames = users(SIZES[opts.size])
    .slice(2, 2 + opts.tokens)
    .map((u) => u.username);
  log(`  signing in ${usernames.length} users (one token each)`);
  const tokens: string[] = [];
  for (let at = 0; at < usernames.length; at += 20)
    tokens.push(
      ...(await Promise.all(
        usernames.slice(at, at + 20).map((u) => signIn(servers[0]!.url, u, DEFAULT_SEED_PASSWORD)),
      )),
    );
  const writeTo = (k: number) => servers[k % servers.length]!.url;
  const write = (k: number, restaurant: string, title: string) =>
    putComment(
      `${writeTo(k)}/restaurants/${encodeURIComponent(restaurant)}/comments`,
      tokens[k % tokens.length]!,
      title,
    );
  // A warm-up write on each instance (its first statements, plans and code paths), then idle.
  for (let k = 0; k < servers.length; k++) {
    const res = await write(k, restaurants[0]!, `warm-up ${k}`);
    if (res.status !== 201) throw new Error(`warm-up comment answered ${res.status}: ${res.body.slice(0, 200)}`);
  }
  log(`  idle ${opts.settleSec} s before the subscribers connect (memory before)`);
  await sleep(opts.settleSec * 1000);
  const before = await Promise.all(servers.map(memoryOf));

  // Processes of up to 2,500 subscribers, alternating between the instances; subscriber k follows restaurant k % R.
  const processes: ReturnType<typeof clientProcess>[] = [];
  const perInstance = servers.map(() => 0);
  const started = Date.now();
  try {
    const connecting: Promise<Extract<FromClients, { type: "connected" }>>[] = [];
    // Each instance gets its share in processes of its own (each server's bounds are set for its share).
    const perProcess = Math.min(CLIENTS_PER_PROCESS, Math.ceil(n / servers.length));
    for (let first = 0, p = 0; first < n; first += perProcess, p++) {
      const instance = p % servers.length;
      const job: ClientJob = {
        transport: "ws",
        url: servers[instance]!.url,
        tokens,
        restaurantIds: restaurants,
        count: Math.min(perProcess, n - first),
        first,
      };
      perInstance[instance]! += job.count;
      const client = clientProcess(job, CLIENT_CPU);
      processes.push(client);
      connecting.push(client.ask({ type: "start", job }, "connected"));
    }
    for (const connected of await Promise.all(connecting)) problems.push(...connected.problems);
    if (problems.length) throw new Error(problems.slice(0, 3).join("; "));
    const sum = async (type: "probes" | "count") =>
      (await Promise.all(processes.map((p) => p.ask({ type }, type)))).reduce(
        (total, m) => total + ("listening" in m ? m.listening : "received" in m ? m.received : 0),
        0,
      );
    const active = async () =>
      (await Promise.all(servers.map((s) => activeSubscriptions(s.url)))).reduce((a, b) => a + b);
    const activeDeadline = Date.now() + 180_000;
    while ((await active()) < n && Date.now() < activeDeadline) await sleep(250);
    // A subscription is answered only by events: a probe comment on every restaurant shows who listens.
    let listening = 0;
    for (let round = 1; listening < n; round++) {
      if (round > 5) throw new Error(`only ${listening} of ${n} subscribers listening after ${round - 1} probe rounds`);
      for (let at = 0; at < restaurants.length; at += 8)
        await Promise.all(
          restaurants.slice(at, at + 8).map(async (restaurant, j) => {
            const res = await write(at + j, restaurant, `probe ${round}`);
            if (res.status !== 201) throw new Error(`probe comment answered ${res.status}: ${res.body.slice(0, 200)}`);
          }),
        );
      const deadline = Date.now() + 15_000;
      while ((listening = await sum("probes")) < n && Date.now() < deadline) await sleep(200);
    }
    const setupSec = (Date.now() - started) / 1000;
    log(`  ${n} subscribers listening after ${setupSec.toFixed(1)} s; idle ${opts.settleSec} s before reading memory`);
    const idleCpuBefore = serversCpu(servers);
    const idleStarted = Date.now();
    await sleep(opts.settleSec * 1000);
    const idleCpuMsPerSec = ((serversCpu(servers) - idleCpuBefore) * 1000) / ((Date.now() - idleStarted) / 1000);
    const withSubscribers = await Promise.all(servers.map(memoryOf));
    const instances: InstanceFigures[] = servers.map((s, i) => ({
      url: s.url,
      subscribers: perInstance[i]!,
      rssBeforeMb: before[i]!.rssMb,
      rssWithMb: withSubscribers[i]!.rssMb,
      heapBeforeMb: before[i]!.heapMb,
      heapWithMb: withSubscribers[i]!.heapMb,
      kibPerSubscriber: ((withSubscribers[i]!.rssMb - before[i]!.rssMb) * 1024) / perInstance[i]!,
      heapKibPerSubscriber: ((withSubscribers[i]!.heapMb - before[i]!.heapMb) * 1024) / perInstance[i]!,
    }));
    for (const figures of instances)
      log(
        `  ${figures.url}: ${figures.subscribers} subscribers, RSS ${figures.rssBeforeMb.toFixed(0)} -> ${figures.rssWithMb.toFixed(0)} MB (${figures.kibPerSubscriber.toFixed(1)} KiB each), heap ${figures.heapBeforeMb.toFixed(0)} -> ${figures.heapWithMb.toFixed(0)} MB`,
      );

    // The stream: comment k on restaurant k % R (through instance k % instances), on a fixed schedule.
    const total = Math.round(opts.rate * opts.duration);
    log(`  streaming ${opts.rate} comment(s)/s for ${opts.duration} s (${total} comments)`);
    const acks: Record<string, number> = {};
    const restaurantOf: Record<string, string> = {};
    const cpuBefore = serversCpu(servers);
    const dbBefore = databasePid === null ? null : cpuSecondsOfTree(databasePid);
    const streamStarted = Date.now();
    const writes: Promise<void>[] = [];
    for (let k = 0; k < total; k++) {
      const due = streamStarted + (k * 1000) / opts.rate;
      if (due > Date.now()) await sleep(due - Date.now());
      const title = `stream ${k}`;
      const restaurant = restaurants[k % restaurants.length]!;
      writes.push(
        write(k, restaurant, title).then((res) => {
          if (res.status === 201) {
            acks[title] = Date.now();
            restaurantOf[title] = restaurant;
          } else problems.push(`comment ${k} answered ${res.status}: ${res.body.slice(0, 200)}`);
        }),
      );
    }
    await Promise.all(writes);
    const followers = (restaurant: string) => {
      const r = restaurants.indexOf(restaurant);
      return Math.floor(n / restaurants.length) + (r < n % restaurants.length ? 1 : 0);
    };
    const expected = Object.values(restaurantOf).reduce((sum, r) => sum + followers(r), 0);
    const drainUntil = Date.now() + DRAIN_MS;
    while ((await sum("count")) < expected && Date.now() < drainUntil) await sleep(200);
    const streamSec = (Date.now() - streamStarted) / 1000;
    const cpu = serversCpu(servers) - cpuBefore;
    const dbAfter = databasePid === null ? null : cpuSecondsOfTree(databasePid);

    const results = await Promise.all(
      processes.map((p) => p.ask({ type: "finish", acks, restaurants: restaurantOf }, "result")),
    );
    const merged = mergeClientResults(results);
    problems.push(...merged.problems);
    const { received, missed, subscribersMissing, extra, latency } = merged;
    if (missed > 0)
      problems.push(
        `${missed} events MISSED by ${subscribersMissing} subscribers (${DRAIN_MS / 1000} s after the last write)`,
      );
    if (extra > 0) problems.push(`${extra} events delivered more than once`);
    const perEvent = (seconds: number) => (received > 0 ? (seconds * 1e6) / received : null);
    return {
      database,
      shape,
      subscribers: n,
      restaurants: opts.restaurants,
      tokens: tokens.length,
      serverEnv,
      instances,
      setupSec,
      comments: Object.keys(acks).length,
      expected,
      received,
      missed,
      subscribersMissing,
      extra,
      latency,
      idleServerCpuMsPerSec: idleCpuMsPerSec,
      serverCpuUsPerEvent: perEvent(cpu),
      serverCpuUsPerEventBeyondIdle: perEvent(cpu - (idleCpuMsPerSec / 1000) * streamSec),
      databaseCpuUsPerEvent: dbBefore && dbAfter ? perEvent(cpuSecondsBetween(dbBefore, dbAfter)) : null,
      problems,
    };
  } finally {
    await Promise.all(processes.map((p) => Promise.race([p.stop(), sleep(5_000).then(() => p.kill())])));
  }
}

function format(r: ShapeResult): string[] {
  const l = r.latency;
  const everyEvent = r.missed === 0 && r.received >= r.expected && r.expected > 0;
  const met = everyEvent && l !== null && l.p99 < DELIVERY_TARGET_MS;
  const us = (v: number | null) => (v === null ? "n/a" : `${v.toFixed(0)} µs`);
  return [
    `${r.database}, ${r.shape}: ${r.subscribers} WebSocket subscribers of ${r.restaurants} restaurants' commentAdded, ${r.tokens} tokens; set up in ${r.setupSec.toFixed(1)} s`,
    `  ${r.comments} comments: ${r.received} of ${r.expected} deliveries` +
      (r.missed > 0 ? `; !!! ${r.missed} MISSED by ${r.subscribersMissing} subscribers !!!` : ", none missed") +
      (l ? `; latency from the write's 201: p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms` : "") +
      ` (target: every event, p99 < ${DELIVERY_TARGET_MS} ms: ${met ? "met" : "NOT MET"})`,
    ...r.instances.map(
      (i) =>
        `  instance ${i.url}: ${i.subscribers} idle subscribers, RSS ${i.rssBeforeMb.toFixed(0)} -> ${i.rssWithMb.toFixed(0)} MB = ` +
        `${i.kibPerSubscriber.toFixed(1)} KiB per subscriber (goal <= ${KIB_TARGET}: ${i.kibPerSubscriber <= KIB_TARGET ? "met" : "NOT MET"}); ` +
        `JS heap ${i.heapBeforeMb.toFixed(0)} -> ${i.heapWithMb.toFixed(0)} MB = ${i.heapKibPerSubscriber.toFixed(1)} KiB each`,
    ),
    `  server CPU: ${r.idleServerCpuMsPerSec?.toFixed(1) ?? "n/a"} ms/s holding them idle; ${us(r.serverCpuUsPerEvent)} per delivered event ` +
      `(${us(r.serverCpuUsPerEventBeyondIdle)} beyond the idle cost)` +
      (r.databaseCpuUsPerEvent !== null ? `; PostgreSQL ${us(r.databaseCpuUsPerEvent)} per delivered event` : ""),
    `  server settings: ${Object.entries(r.serverEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
    ...r.problems.slice(0, 5).map((p) => `  PROBLEM: ${p}`),
  ];
}

/** What else bounds this machine's run: descriptors, ephemeral ports, cores. */
function machineLimits(opts: Options): string[] {
  const ports = (() => {
    try {
      return readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    } catch {
      return null;
    }
  })();
  const hardFiles = (() => {
    try {
      return /^Max open files\s+\S+\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1] ?? "?";
    } catch {
      return "?";
    }
  })();
  return [
    `Pinned: server(s) on core ${SERVER_CPU}; the subscriber processes (up to ${CLIENTS_PER_PROCESS} subscribers each) and the writer on core ${CLIENT_CPU} (taskset); PostgreSQL and Redis not pinned. ${os.cpus().length} cores.`,
    `Limits: open files hard limit ${hardFiles} per process (Node raises its soft limit to it; a server holds one per subscriber, a client process ${CLIENTS_PER_PROCESS});` +
      (ports
        ? ` ephemeral ports ${ports[0]}-${ports[1]} (${ports[1]! - ports[0]! + 1} connections from 127.0.0.1 to one server port).`
        : ""),
  ];
}

async function main() {
  const opts = options();
  // The servers inherit this environment: only the two-instance runs get Redis.
  delete process.env.REDIS_URL;
  const { cleanups, cleanUp } = cleanupsOnExit(log, "stopping servers and dropping databases");
  const results: ShapeResult[] = [];
  if (!pinToCpu(process.pid, CLIENT_CPU)) log("taskset unavailable: nothing pinned, the figures share the cores");
  try {
    for (const database of opts.databases) {
      log(`\n[${database}] fresh database, seeding ${opts.size}...`);
      const { database: db } = await seededDatabase(
        database,
        { size: opts.size, serverUrl: process.env.DATABASE_URL, password: DEFAULT_SEED_PASSWORD },
        cleanups,
      );
      const databasePid = database === "postgres" ? await postgresServerPid(db.url) : null;
      const shapes = opts.shapes.filter((s) => s === "one" || database === "postgres");
      for (const shape of shapes) {
        if (shape === "two" && !opts.redisUrl) {
          log(`[${database}] two instances skipped: give --redis redis://... (or REDIS_URL)`);
          continue;
        }
        const count = shape === "one" ? 1 : 2;
        const serverEnv = listenerServerEnv(
          Math.ceil(opts.subscribers / count),
          Math.min(opts.tokens, opts.subscribers),
        );
        const env = {
          NODE_ENV: "production",
          LOG_LEVEL: "warn",
          RATE_LIMIT_MAX: "0",
          DATABASE_URL: db.url,
          UPLOAD_DIR: db.uploadDir,
          METRICS_ENABLED: "true",
          METRICS_TOKEN: "",
          ...serverEnv,
          ...(shape === "two" ? { REDIS_URL: opts.redisUrl! } : {}),
        };
        const servers: Service[] = [];
        try {
          for (let i = 0; i < count; i++) {
            const server = await startService("src/main.ts", env);
            cleanups.push(server.stop);
            servers.push(server);
            pinToCpu(server.pid, SERVER_CPU);
          }
          const name = shape === "one" ? "one instance" : "two instances (Redis)";
          log(`[${database}] ${name}: ${servers.map((s) => `${s.url} (pid ${s.pid})`).join(", ")}`);
          const result = await runShape(servers, database, databasePid, name, opts, serverEnv);
          results.push(result);
        } catch (error) {
          log(`[${database}] ${shape}: FAILED: ${(error as Error).message}`);
          for (const server of servers) log(`  server ${server.url}'s last output:\n${server.output().slice(-2000)}`);
          process.exitCode = 1;
        } finally {
          for (const server of servers) {
            cleanups.splice(cleanups.indexOf(server.stop), 1);
            await server.stop();
          }
        }
      }
    }
  } finally {
    await cleanUp();
  }
  const lines = [
    "",
    `Ten thousand listeners: ${opts.subscribers} subscribers, ${opts.rate} comment(s)/s for ${opts.duration} s, seed ${opts.size}`,
    ...machineLimits(opts),
    ...results.flatMap(format),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  mkdirSync(path.dirname(opts.json), { recursive: true });
  writeFileSync(opts.json, JSON.stringify({ options: opts, results }, null, 2));
  if (results.some((r) => r.missed > 0 || r.received < r.expected || r.problems.length > 0)) process.exitCode = 1;
}

await main();
