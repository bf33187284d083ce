// Drives one scenario with autocannon: a warm-up run (discarded), then the measured run, reading
// the server's counters around it to get SQL statements per request. `latencyAtRate` drives it at
// a fixed request rate instead, for the latency SLO: with steady arrivals (paced.ts, the SLO's
// measure) and with autocannon's overallRate (bursts at each second's start, shown beside it).
import autocannon, { type Request } from "autocannon";
import { readCounters } from "./prometheus.ts";
import { pacedLatencyApart } from "./paced-apart.ts";
import { UNIQUE, withUnique, type PacedResult } from "./paced.ts";
import { cpuSecondsBetween } from "./processes.ts";

export type LoadSettings = { connections: number; durationSec: number; warmupSec: number };

export type Measurement = {
  requests: number;
  reqPerSec: number;
  /** Milliseconds. */
  latency: { p50: number; p90: number; p99: number; average: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  /** GraphQL answers carrying `errors` (autocannon's body check). */
  mismatches: number;
  statusCodes: Record<string, number>;
  /**
   * SQL statements per request over the measured run (from /metrics, read once the server is
   * idle before and after); null when the target has no /metrics (the baselines).
   */
  statementsPerRequest: number | null;
  /** The same, for a few of the scenario's requests sent one at a time (exact: no request cut off). */
  statementsOneAtATime: number | null;
  /** CPU milliseconds the server process used per request answered in the measured run (null without /proc). */
  cpuMsPerRequest: number | null;
  /** The same for the database's processes (PostgreSQL on this machine; null for SQLite, in the server's process). */
  databaseCpuMsPerRequest: number | null;
};

const hasNoGraphqlErrors = (body: string) => !body.includes('"errors"');

/** Requests whose body holds UNIQUE get it replaced on every send (autocannon's setupRequest). */
const uniquePerSend = (requests: Request[]): Request[] =>
  requests.map((r) =>
    typeof r.body === "string" && r.body.includes(UNIQUE)
      ? { ...r, setupRequest: (req: Request) => ({ ...req, body: withUnique(r.body as string) }) }
      : r,
  );

async function drive(
  url: string,
  requests: Request[],
  connections: number,
  durationSec: number,
  graphql: boolean,
  overallRate?: number,
) {
  requests = uniquePerSend(requests);
  return autocannon({
    url,
    connections,
    duration: durationSec,
    overallRate,
    pipelining: 1, // keep-alive, one request in flight per connection
    timeout: 10,
    requests,
    verifyBody: graphql ? hasNoGraphqlErrors : undefined,
  });
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Counters once the server has gone quiet: requests cut off when autocannon stops may still be
 * running on the server, and their statements would land in the next window.
 */
async function settledCounters(url: string) {
  let last = await readCounters(url);
  for (let i = 0; i < 100; i++) {
    await sleep(100);
    const now = await readCounters(url);
    if (now.requests === last.requests && now.statements === last.statements) return now;
    last = now;
  }
  return last;
}

const ONE_AT_A_TIME = 8;

export async function measure(
  url: string,
  requests: Request[],
  settings: LoadSettings,
  options: {
    graphql: boolean;
    metrics: boolean;
    cpuSeconds?: () => number | null;
    databaseCpu?: () => Map<number, number> | null;
  },
): Promise<Measurement> {
  if (settings.warmupSec > 0) await drive(url, requests, settings.connections, settings.warmupSec, options.graphql);
  let statementsOneAtATime: number | null = null;
  if (options.metrics) {
    await settledCounters(url); // the warm-up's last requests first
    let total = 0;
    for (const request of requests.slice(0, ONE_AT_A_TIME)) total += await statementsOf(url, request);
    statementsOneAtATime = total / Math.min(ONE_AT_A_TIME, requests.length);
  }
  const before = options.metrics ? await settledCounters(url) : null;
  const cpuBefore = options.cpuSeconds?.() ?? null;
  const databaseCpuBefore = options.databaseCpu?.() ?? null;
  const result = await drive(url, requests, settings.connections, settings.durationSec, options.graphql);
  const cpuAfter = options.cpuSeconds?.() ?? null;
  const databaseCpuAfter = options.databaseCpu?.() ?? null;
  const perRequest = (seconds: number | null) =>
    seconds !== null && result.requests.total > 0 ? (seconds * 1000) / result.requests.total : null;
  const after = options.metrics ? await settledCounters(url) : null;
  // Divided by the requests sent, not those answered: the server runs a request cut off at the
  // end of the run to completion (its statements count) but may not count it as answered.
  const sent = result.requests.sent;
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]),
  );
  return {
    requests: result.requests.total,
    reqPerSec: result.requests.total / result.duration,
    latency: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      average: result.latency.average,
      max: result.latency.max,
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    statusCodes,
    statementsPerRequest: before && after && sent > 0 ? (after.statements - before.statements) / sent : null,
    statementsOneAtATime,
    cpuMsPerRequest: perRequest(cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null),
    databaseCpuMsPerRequest: perRequest(
      databaseCpuBefore && databaseCpuAfter ? cpuSecondsBetween(databaseCpuBefore, databaseCpuAfter) : null,
    ),
  };
}

/** SQL statements the server ran for one request (nothing else may be running meanwhile). */
export async function statementsOf(url: string, request: Request): Promise<number> {
  const before = await readCounters(url);
  const res = await fetch(url + request.path, {
    method: request.method,
    headers: request.headers,
    body: withUnique(request.body as string | undefined),
  });
  const text = await res.text();
  if (!res.ok || text.includes('"errors"'))
    throw new Error(`${request.method} ${request.path} answered ${res.status}: ${text.slice(0, 300)}`);
  const after = await readCounters(url);
  return after.statements - before.statements;
}

/** Latency at a fixed request rate, in milliseconds: steady arrivals (paced.ts), or autocannon's bursts. */
export type RateLatency = Omit<PacedResult, "senderLateP99"> & {
  /** Steady arrivals only (see PacedResult). */
  senderLateP99?: number;
  /** The same rate through autocannon's overallRate, which sends in bursts (see paced.ts). */
  bursts?: RateLatency;
  /** Steady p99 of each round run (the reported one is the median round). */
  p99Rounds?: number[];
  /**
   * The server's own view of the steady run (absent for a target without /metrics, the peer):
   * its longest event-loop stall and its GC pauses in total, in ms. A p99 far above the stall
   * was spent outside the server's event loop (the database, the machine).
   */
  server?: { stallMaxMs: number; gcMs: number };
  /** The same stall for each round run. */
  stallRounds?: number[];
};

/**
 * The SLO's measure: `rate` requests per second, evenly spaced, for the duration, with no warm-up
 * (run it right after the saturation run, on a warm server); then, `withBursts`, the same rate
 * through autocannon's overallRate, whose figures ride along as `bursts`. Steady arrivals time each
 * request from when it was due, so a server that falls behind shows in the percentiles;
 * autocannon times from when it sent, so there it shows as `achieved` below `rate`.
 */
export async function latencyAtRate(
  url: string,
  requests: Request[],
  settings: LoadSettings,
  rate: number,
  graphql: boolean,
  withBursts: boolean,
): Promise<RateLatency> {
  const perSecond = Math.max(1, Math.round(rate));
  const before = await readCounters(url).catch(() => null); // also starts a new event-loop delay window
  const paced = await pacedLatencyApart({
    url,
    requests,
    connections: settings.connections,
    durationSec: settings.durationSec,
    rate: perSecond,
    graphql,
  });
  const after = before && (await readCounters(url).catch(() => null));
  const steady: RateLatency = after
    ? {
        ...paced,
        server: {
          stallMaxMs: round1(after.eventLoopLagMaxSeconds * 1000),
          gcMs: round1((after.gcSeconds - before.gcSeconds) * 1000),
        },
      }
    : paced;
  if (!withBursts) return steady;
  const result = await drive(url, requests, settings.connections, settings.durationSec, graphql, perSecond);
  const bursts = {
    rate: perSecond,
    achieved: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    failed: result.errors + result.timeouts + result.non2xx + result.mismatches,
  };
  return { ...steady, bursts };
}
