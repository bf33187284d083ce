// The fan-out scenario (issue 15): many graphql-ws subscribers of one restaurant's commentAdded,
// each on its own WebSocket connection (as real apps connect), while comments stream in through
// REST at a fixed rate. Measures how long each event took from the write's acknowledgement (the
// 201 the bench received) to its arrival at each subscriber, and the server's memory per
// subscriber (RSS with the subscribers open minus RSS before, divided by their number).
import http from "node:http";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { readCounters } from "./prometheus.ts";

export const FANOUT_KEY = "live.fanout";

export type FanoutSettings = {
  subscribers: number;
  /** Comments written per second while the subscribers listen. */
  ratePerSec: number;
  durationSec: number;
};

/** Server settings the scenario needs: every subscriber is a connection from 127.0.0.1, all of one account. */
export function fanoutServerEnv(settings: FanoutSettings): Record<string, string> {
  return {
    MAX_CONNECTIONS: String(settings.subscribers + 200),
    MAX_CONNECTIONS_PER_ADDRESS: String(settings.subscribers + 100),
    LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: String(settings.subscribers),
    LIVE_MAX_CONNECTIONS_PER_CLIENT: String(settings.subscribers + 10),
    LIVE_MAX_COST_PER_CLIENT: String(settings.subscribers * 100),
  };
}

export type FanoutResult = {
  database: string;
  settings: FanoutSettings;
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
  /** Seconds to open every connection and see each subscription listen (a probe comment reached all). */
  setupSec: number;
  problem: string | null;
};

const SUBSCRIPTION = `subscription Fanout($id: ID!) { commentAdded(restaurantId: $id) { id title } }`;
const CONNECT_BATCH = 50;
/** How long to wait for the last events after the last write. */
const DRAIN_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * The writes go through a few keep-alive connections (queued beyond them, as a client app's
 * would be): when the server falls behind, fetch would open one connection per write in flight
 * and meet MAX_CONNECTIONS_PER_ADDRESS.
 */
const writeAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function putComment(url: string, token: string, title: string): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify({ title, body: "fan-out bench", rating: 4 });
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "PUT", agent: writeAgent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), authorization: `Bearer ${token}` } },
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
async function activeSubscriptions(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^graphql_subscriptions_active (\S+)$/m.exec(text)?.[1] ?? 0);
}

export async function runFanout(
  url: string,
  database: string,
  tokens: string[],
  restaurantId: string,
  settings: FanoutSettings,
  log: (text: string) => void,
): Promise<FanoutResult> {
  const wsUrl = `${url.replace(/^http/, "ws")}/graphql`;
  const serverEnv = fanoutServerEnv(settings);
  /** Receipt times by comment title, one entry per subscriber that got it. */
  const arrivals = new Map<string, number[]>();
  const gotProbe = new Set<number>();
  const problems: string[] = [];
  const clients: Client[] = [];
  const before = await readCounters(url);
  const setupStarted = Date.now();

  try {
    for (let first = 0; first < settings.subscribers; first += CONNECT_BATCH) {
      const batch: Promise<void>[] = [];
      for (let i = first; i < Math.min(settings.subscribers, first + CONNECT_BATCH); i++) {
        const client = createClient({
          url: wsUrl,
          webSocketImpl: WebSocket,
          connectionParams: { authorization: `Bearer ${tokens[i % tokens.length]}` },
          lazy: false,
          retryAttempts: 0,
          onNonLazyError: (error) => void problems.push(`subscriber ${i} could not connect: ${String((error as { code?: number }).code ?? error)}`),
        });
        clients.push(client);
        batch.push(
          new Promise<void>((connected) => {
            client.on("connected", () => connected());
            client.on("closed", () => connected());
          }),
        );
        client.subscribe(
          { query: SUBSCRIPTION, variables: { id: restaurantId } },
          {
            next: (result) => {
              const now = Date.now();
              const title = (result.data as { commentAdded?: { title: string } } | null)?.commentAdded?.title;
              if (!title) return void problems.push(`subscriber ${i}: ${JSON.stringify(result.errors ?? result)}`.slice(0, 300));
              if (title.startsWith("probe")) gotProbe.add(i);
              else (arrivals.get(title) ?? arrivals.set(title, []).get(title)!).push(now);
            },
            error: (error) => void problems.push(`subscriber ${i} ended: ${JSON.stringify(error).slice(0, 200)}`),
            complete: () => {},
          },
        );
      }
      await Promise.all(batch);
    }
    if (problems.length) throw new Error(problems.slice(0, 3).join("; "));

    // A subscribe message is answered only by events: a probe comment shows which subscriptions
    // listen. Probes repeat (a few at most) until every subscriber has seen one.
    const write = (title: string, token: string) => putComment(`${url}/restaurants/${encodeURIComponent(restaurantId)}/comments`, token, title);
    const activeDeadline = Date.now() + 60_000;
    while ((await activeSubscriptions(url)) < settings.subscribers && Date.now() < activeDeadline) await sleep(200);
    for (let probe = 1; gotProbe.size < settings.subscribers; probe++) {
      if (probe > 10) throw new Error(`only ${gotProbe.size} of ${settings.subscribers} subscribers listening after ${probe - 1} probes`);
      const res = await write(`probe ${probe}`, tokens[0]!);
      if (res.status !== 201) throw new Error(`probe comment answered ${res.status}: ${res.body}`);
      const deadline = Date.now() + 5_000;
      while (gotProbe.size < settings.subscribers && Date.now() < deadline) await sleep(50);
    }
    const setupSec = (Date.now() - setupStarted) / 1000;
    await sleep(1000); // let the probes' garbage settle before reading memory
    const withSubscribers = await readCounters(url);
    log(`  ${FANOUT_KEY}: ${settings.subscribers} subscribers listening after ${setupSec.toFixed(1)} s; streaming ${settings.ratePerSec} comments/s for ${settings.durationSec} s`);

    // The stream: one write every 1/rate seconds on a fixed schedule (a slow answer does not delay the next).
    const acknowledged = new Map<string, number>();
    const total = Math.round(settings.ratePerSec * settings.durationSec);
    const started = Date.now();
    const writes: Promise<void>[] = [];
    for (let n = 0; n < total; n++) {
      const due = started + (n * 1000) / settings.ratePerSec;
      if (due > Date.now()) await sleep(due - Date.now());
      const title = `stream ${n}`;
      writes.push(
        write(title, tokens[n % tokens.length]!).then((res) => {
          if (res.status === 201) acknowledged.set(title, Date.now());
          else problems.push(`comment ${n} answered ${res.status}: ${res.body.slice(0, 200)}`);
        }),
      );
    }
    await Promise.all(writes);
    const expected = acknowledged.size * settings.subscribers;
    const received = () => [...arrivals.values()].reduce((sum, times) => sum + times.length, 0);
    const drainUntil = Date.now() + DRAIN_MS;
    while (received() < expected && Date.now() < drainUntil) await sleep(100);
    const after = await readCounters(url);

    const latencies: number[] = [];
    for (const [title, times] of arrivals) {
      const ack = acknowledged.get(title);
      if (ack !== undefined) for (const at of times) latencies.push(Math.max(0, at - ack));
    }
    latencies.sort((a, b) => a - b);
    const got = received();
    if (got < expected) problems.push(`${expected - got} of ${expected} events had not arrived ${DRAIN_MS / 1000} s after the last write`);
    const mb = (bytes: number) => bytes / 2 ** 20;
    return {
      database,
      settings,
      serverEnv,
      comments: acknowledged.size,
      expected,
      received: got,
      latency: latencies.length ? { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)! } : null,
      rssBeforeMb: mb(before.rssBytes),
      rssWithSubscribersMb: mb(withSubscribers.rssBytes),
      rssAfterStreamMb: mb(after.rssBytes),
      kibPerSubscriber: (withSubscribers.rssBytes - before.rssBytes) / 1024 / settings.subscribers,
      setupSec,
      problem: problems.length ? problems.slice(0, 3).join("; ") : null,
    };
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
  }
}

/** The result of a fan-out that could not run to its end (no figures). */
export function failedFanout(database: string, settings: FanoutSettings, problem: string): FanoutResult {
  return {
    database, settings, serverEnv: fanoutServerEnv(settings), comments: 0, expected: 0, received: 0, latency: null,
    rssBeforeMb: 0, rssWithSubscribersMb: 0, rssAfterStreamMb: 0, kibPerSubscriber: 0, setupSec: 0, problem,
  };
}

export function formatFanout(results: FanoutResult[]): string[] {
  if (!results.length) return [];
  const out = ["", "Fan-out (GraphQL subscriptions over WebSocket, one connection per subscriber):"];
  for (const r of results) {
    const s = r.settings;
    const latency = r.latency ? `delivery latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms` : "no events measured";
    out.push(
      `  ${r.database}: ${s.subscribers} subscribers of one restaurant's commentAdded, ${r.comments} comments through REST at ${s.ratePerSec}/s for ${s.durationSec} s: ` +
        `${r.received} of ${r.expected} events received; ${latency} (from the write's 201 to receipt)`,
      `    server RSS ${r.rssBeforeMb.toFixed(0)} MB before the subscribers, ${r.rssWithSubscribersMb.toFixed(0)} MB with them ` +
        `(${r.kibPerSubscriber.toFixed(0)} KiB per subscriber), ${r.rssAfterStreamMb.toFixed(0)} MB after the stream; set up in ${r.setupSec.toFixed(1)} s`,
      `    server settings: ${Object.entries(r.serverEnv).map(([k, v]) => `${k}=${v}`).join(" ")}`,
    );
    if (r.problem) out.push(`    PROBLEM: ${r.problem}`);
  }
  return out;
}
