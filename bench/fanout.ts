// The fan-out scenarios (issues 15 and 33): many subscribers of one restaurant's commentAdded,
// each on its own connection (as real apps connect): WebSocket (graphql-transport-ws, key
// live.fanout) and Server-Sent Events (graphql-sse, key live.fanout.sse), while comments stream in
// through REST at a fixed rate. The subscribers live in child processes (fanout-clients.ts,
// CLIENTS_PER_PROCESS each), so that reading 200,000 messages a second does not delay the writes
// this process sends on schedule. Measures how long each event took from the write's
// acknowledgement (the 201 the bench received) to its arrival at each subscriber, the server's
// memory per subscriber (RSS with the subscribers open minus RSS before, divided by their number)
// and its CPU per event delivered.
import { fork, type ChildProcess } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { fanoutFloor, type FanoutFloor } from "./baselines/fanout-floor.ts";
import type { ClientJob, FromClients, ToClients } from "./fanout-clients.ts";
import { cpuSecondsOf, pinToCpu } from "./processes.ts";
import { readCounters } from "./prometheus.ts";

export const FANOUT_KEY = "live.fanout";
export const FANOUT_SSE_KEY = "live.fanout.sse";

export type FanoutSettings = {
  /** WebSocket subscribers (live.fanout). */
  subscribers: number;
  /** Server-Sent Events streams (live.fanout.sse). */
  streams: number;
  /** Comments written per second while the subscribers listen. */
  ratePerSec: number;
  durationSec: number;
};

export type FanoutTransport = "ws" | "sse";

/** Server settings the scenarios need: every subscriber is a connection from 127.0.0.1, all of one account. */
export function fanoutServerEnv(settings: FanoutSettings): Record<string, string> {
  const most = Math.max(settings.subscribers, settings.streams);
  return {
    MAX_CONNECTIONS: String(most + 200),
    MAX_CONNECTIONS_PER_ADDRESS: String(most + 100),
    LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: String(most),
    LIVE_MAX_CONNECTIONS_PER_CLIENT: String(most + 10),
    LIVE_MAX_COST_PER_CLIENT: String(most * 100),
  };
}

export type FanoutResult = {
  database: string;
  transport?: FanoutTransport;
  settings: FanoutSettings;
  /** Subscribers of this run (settings.subscribers over WebSocket, settings.streams over SSE). */
  connections?: number;
  /** The server settings it ran with (see fanoutServerEnv). */
  serverEnv: Record<string, string>;
  comments: number;
  /** Events expected (comments x subscribers) and received within the wait after the last write. */
  expected: number;
  received: number;
  /** Milliseconds from the write's 201 to receipt (0 when the event came before the 201 was read). */
  latency: { p50: number; p99: number; max: number } | null;
  rssBeforeMb: number;
  rssWithSubscribersMb: number;
  rssAfterStreamMb: number;
  /** (RSS with subscribers - RSS before) / subscribers, in KiB. */
  kibPerSubscriber: number;
  /** The server's CPU time over the stream (writes included) per event delivered, in microseconds. */
  serverCpuUsPerEvent?: number | null;
  /** Seconds to open every connection and see each subscription listen (a probe comment reached all). */
  setupSec: number;
  /** The same number of raw loopback sockets written one frame each per round, just before (baselines/fanout-floor.ts). */
  floor?: FanoutFloor | null;
  problem: string | null;
};

/** Rounds of the raw floor measured before each fan-out. */
const FLOOR_ROUNDS = 20;
/** Subscribers per client process. */
const CLIENTS_PER_PROCESS = 2_500;
/** How long to wait for the last events after the last write. */
const DRAIN_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The writes go through a few keep-alive connections (queued beyond them, as a client app's
 * would be): when the server falls behind, fetch would open one connection per write in flight
 * and meet MAX_CONNECTIONS_PER_ADDRESS.
 */
const writeAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export function putComment(url: string, token: string, title: string): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify({ title, body: "fan-out bench", rating: 4 });
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "PUT",
        agent: writeAgent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** graphql_subscriptions_active from /metrics (counted when the server admits a subscription, just before it listens). */
export async function activeSubscriptions(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^graphql_subscriptions_active (\S+)$/m.exec(text)?.[1] ?? 0);
}

/** A client process and a way to ask it something (one answer of the type asked); `onCpu`: pinned to that core (taskset). */
export function clientProcess(job: ClientJob, onCpu?: number) {
  const child: ChildProcess = fork(fileURLToPath(new URL("./fanout-clients.ts", import.meta.url)), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  if (onCpu !== undefined && child.pid) pinToCpu(child.pid, onCpu);
  const waiting = new Map<string, (message: FromClients) => void>();
  child.on("message", (message: FromClients) => {
    const answer = waiting.get(message.type);
    waiting.delete(message.type);
    answer?.(message);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ask = <T extends FromClients["type"]>(message: ToClients, answer: T) =>
    new Promise<Extract<FromClients, { type: T }>>((resolve, reject) => {
      const gone = () => reject(new Error(`a fan-out client process exited before answering ${answer}`));
      child.once("exit", gone);
      waiting.set(answer, (message: FromClients) => {
        child.off("exit", gone); // asked every 200 ms while draining: one listener each would pile up
        resolve(message as Extract<FromClients, { type: T }>);
      });
      child.send(message);
    });
  return { ask, stop: () => (child.connected ? exited : (child.kill(), exited)), kill: () => child.kill() };
}

/** The client processes' results as one: deliveries, the latency histogram's p50/p99/max, misses, problems. */
export function mergeClientResults(results: Extract<FromClients, { type: "result" }>[]) {
  const histogram = new Map<number, number>();
  const merged = { received: 0, max: 0, missed: 0, subscribersMissing: 0, extra: 0, problems: [] as string[] };
  for (const r of results) {
    merged.problems.push(...r.problems);
    merged.received += r.received;
    merged.max = Math.max(merged.max, r.max);
    merged.missed += r.missed;
    merged.subscribersMissing += r.subscribersMissing;
    merged.extra += r.extra;
    for (const [ms, n] of r.latencies) histogram.set(ms, (histogram.get(ms) ?? 0) + n);
  }
  const sorted = [...histogram].sort((a, b) => a[0] - b[0]);
  const percentile = (p: number) => {
    const rank = Math.ceil((p / 100) * merged.received);
    let seen = 0;
    for (const [ms, n] of sorted) if ((seen += n) >= rank) return ms;
    return merged.max;
  };
  const latency = merged.received ? { p50: percentile(50), p99: percentile(99), max: merged.max } : null;
  return { ...merged, latency };
}

export async function runFanout(
  url: string,
  serverPid: number,
  database: string,
  transport: FanoutTransport,
  tokens: string[],
  restaurantId: string,
  settings: FanoutSettings,
  log: (text: string) => void,
): Promise<FanoutResult> {
  const key = transport === "ws" ? FANOUT_KEY : FANOUT_SSE_KEY;
  const connections = transport === "ws" ? settings.subscribers : settings.streams;
  const floor = await fanoutFloor(connections, FLOOR_ROUNDS).catch(() => null);
  if (floor)
    log(
      `  ${key}: floor: a raw frame to ${connections} loopback sockets costs ${floor.cpuUsPerSend.toFixed(1)} µs CPU per send, ${floor.wallMsPerRound.toFixed(0)} ms per round`,
    );
  const serverEnv = fanoutServerEnv(settings);
  const problems: string[] = [];
  const before = await readCounters(url);
  const activeBefore = await activeSubscriptions(url);
  const setupStarted = Date.now();
  const processes: ReturnType<typeof clientProcess>[] = [];
  const sum = async <T extends "probes" | "count">(type: T, pick: (m: Extract<FromClients, { type: T }>) => number) =>
    (await Promise.all(processes.map((p) => p.ask({ type } as ToClients, type)))).reduce(
      (n, m) => n + pick(m as Extract<FromClients, { type: T }>),
      0,
    );

  try {
    const connecting: Promise<Extract<FromClients, { type: "connected" }>>[] = [];
    for (let first = 0; first < connections; first += CLIENTS_PER_PROCESS) {
      const job: ClientJob = {
        transport,
        url,
        tokens,
        restaurantIds: [restaurantId],
        count: Math.min(CLIENTS_PER_PROCESS, connections - first),
        first,
      };
      const p = clientProcess(job);
      processes.push(p);
      connecting.push(p.ask({ type: "start", job }, "connected"));
    }
    for (const connected of await Promise.all(connecting)) problems.push(...connected.problems);
    if (problems.length) throw new Error(problems.slice(0, 3).join("; "));

    // A subscription is answered only by events: a probe comment shows which ones listen.
    // Probes repeat (a few at most) until every subscriber has seen one.
    const write = (title: string, token: string) =>
      putComment(`${url}/restaurants/${encodeURIComponent(restaurantId)}/comments`, token, title);
    const activeDeadline = Date.now() + 120_000;
    while ((await activeSubscriptions(url)) - activeBefore < connections && Date.now() < activeDeadline)
      await sleep(200);
    let listening = 0;
    for (let probe = 1; listening < connections; probe++) {
      if (probe > 10)
        throw new Error(`only ${listening} of ${connections} subscribers listening after ${probe - 1} probes`);
      const res = await write(`probe ${probe}`, tokens[0]!);
      if (res.status !== 201) throw new Error(`probe comment answered ${res.status}: ${res.body}`);
      const deadline = Date.now() + 10_000;
      while ((listening = await sum("probes", (m) => m.listening)) < connections && Date.now() < deadline)
        await sleep(100);
    }
    const setupSec = (Date.now() - setupStarted) / 1000;
    await sleep(1000); // let the probes' garbage settle before reading memory
    const withSubscribers = await readCounters(url);
    log(
      `  ${key}: ${connections} subscribers listening after ${setupSec.toFixed(1)} s; streaming ${settings.ratePerSec} comments/s for ${settings.durationSec} s`,
    );

    // The stream: one write every 1/rate seconds on a fixed schedule (a slow answer does not delay the next).
    const acknowledged: Record<string, number> = {};
    const total = Math.round(settings.ratePerSec * settings.durationSec);
    const cpuBefore = cpuSecondsOf(serverPid);
    const started = Date.now();
    const writes: Promise<void>[] = [];
    for (let n = 0; n < total; n++) {
      const due = started + (n * 1000) / settings.ratePerSec;
      if (due > Date.now()) await sleep(due - Date.now());
      const title = `stream ${n}`;
      writes.push(
        write(title, tokens[n % tokens.length]!).then((res) => {
          if (res.status === 201) acknowledged[title] = Date.now();
          else problems.push(`comment ${n} answered ${res.status}: ${res.body.slice(0, 200)}`);
        }),
      );
    }
    await Promise.all(writes);
    const expected = Object.keys(acknowledged).length * connections;
    const drainUntil = Date.now() + DRAIN_MS;
    while ((await sum("count", (m) => m.received)) < expected && Date.now() < drainUntil) await sleep(200);
    const cpuAfter = cpuSecondsOf(serverPid);
    const after = await readCounters(url);

    const results = await Promise.all(processes.map((p) => p.ask({ type: "finish", acks: acknowledged }, "result")));
    const merged = mergeClientResults(results);
    problems.push(...merged.problems);
    const got = merged.received;
    if (got < expected)
      problems.push(
        `${expected - got} of ${expected} events had not arrived ${DRAIN_MS / 1000} s after the last write`,
      );
    const mb = (bytes: number) => bytes / 2 ** 20;
    return {
      database,
      transport,
      settings,
      connections,
      serverEnv,
      comments: Object.keys(acknowledged).length,
      expected,
      received: got,
      latency: merged.latency,
      rssBeforeMb: mb(before.rssBytes),
      rssWithSubscribersMb: mb(withSubscribers.rssBytes),
      rssAfterStreamMb: mb(after.rssBytes),
      kibPerSubscriber: (withSubscribers.rssBytes - before.rssBytes) / 1024 / connections,
      serverCpuUsPerEvent:
        cpuBefore !== null && cpuAfter !== null && got > 0 ? ((cpuAfter - cpuBefore) * 1e6) / got : null,
      setupSec,
      floor,
      problem: problems.length ? problems.slice(0, 3).join("; ") : null,
    };
  } finally {
    await Promise.all(processes.map((p) => Promise.race([p.stop(), sleep(5_000).then(() => p.kill())])));
  }
}

/** The result of a fan-out that could not run to its end (no figures). */
export function failedFanout(
  database: string,
  transport: FanoutTransport,
  settings: FanoutSettings,
  problem: string,
): FanoutResult {
  return {
    database,
    transport,
    settings,
    serverEnv: fanoutServerEnv(settings),
    comments: 0,
    expected: 0,
    received: 0,
    latency: null,
    rssBeforeMb: 0,
    rssWithSubscribersMb: 0,
    rssAfterStreamMb: 0,
    kibPerSubscriber: 0,
    setupSec: 0,
    problem,
  };
}

export function formatFanout(results: FanoutResult[]): string[] {
  if (!results.length) return [];
  const out = [
    "",
    "Fan-out (GraphQL subscriptions, one connection per subscriber, clients in processes of their own; target: every event, p99 < 250 ms):",
  ];
  for (const r of results) {
    const s = r.settings;
    const latency = r.latency
      ? `delivery latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms`
      : "no events measured";
    const met = r.latency && r.received === r.expected && r.expected > 0 && r.latency.p99 < 250 ? "met" : "NOT MET";
    const transport = r.transport === "sse" ? "Server-Sent Events streams" : "WebSocket subscribers";
    out.push(
      `  ${r.database}: ${r.connections ?? s.subscribers} ${transport} of one restaurant's commentAdded, ${r.comments} comments through REST at ${s.ratePerSec}/s for ${s.durationSec} s: ` +
        `${r.received} of ${r.expected} events received; ${latency} (from the write's 201 to receipt): ${met}`,
      `    server RSS ${r.rssBeforeMb.toFixed(0)} MB before the subscribers, ${r.rssWithSubscribersMb.toFixed(0)} MB with them ` +
        `(${r.kibPerSubscriber.toFixed(1)} KiB per subscriber), ${r.rssAfterStreamMb.toFixed(0)} MB after the stream; set up in ${r.setupSec.toFixed(1)} s` +
        (r.serverCpuUsPerEvent != null
          ? `; server CPU ${r.serverCpuUsPerEvent.toFixed(1)} µs per event delivered`
          : ""),
      ...(r.floor
        ? [
            `    floor (baselines/fanout-floor.ts, just before): a raw frame written to ${r.floor.connections} loopback sockets from one process costs ${r.floor.cpuUsPerSend.toFixed(1)} µs CPU per send, ` +
              `${r.floor.wallMsPerRound.toFixed(0)} ms per round of ${r.floor.connections} (at ${s.ratePerSec} events/s a round has ${(1000 / s.ratePerSec).toFixed(0)} ms)`,
          ]
        : []),
      `    server settings: ${Object.entries(r.serverEnv)
        .map(([k, v]) => `${k}=${v}`)
        .join(" ")}`,
    );
    if (r.problem) out.push(`    PROBLEM: ${r.problem}`);
  }
  return out;
}
