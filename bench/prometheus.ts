// Reads the few numbers the bench needs from the server's /metrics (Prometheus text format).
export type ServerCounters = {
  /** SQL statements Prisma sent (db_statement_duration_seconds_count, all kinds). */
  statements: number;
  /** HTTP requests answered, except the /metrics scrapes themselves. */
  requests: number;
  /** Resident set size of the server process, in bytes. */
  rssBytes: number;
  /** V8 heap in use, in bytes. */
  heapBytes: number;
  /** Longest event-loop delay since the previous scrape (prom-client resets it on each scrape), seconds. */
  eventLoopLagMaxSeconds: number;
  /** Time spent in GC pauses since start, all kinds, seconds. */
  gcSeconds: number;
  /** Full (mark-compact) collections since start. */
  gcMajors: number;
};

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/;

export function parseCounters(text: string): ServerCounters {
  const counters: ServerCounters = {
    statements: 0,
    requests: 0,
    rssBytes: 0,
    heapBytes: 0,
    eventLoopLagMaxSeconds: 0,
    gcSeconds: 0,
    gcMajors: 0,
  };
  for (const line of text.split("\n")) {
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const [, name, labels = "", raw] = m;
    const value = Number(raw);
    if (name === "db_statement_duration_seconds_count") counters.statements += value;
    else if (name === "http_requests_total" && !labels.includes('route="/metrics"')) counters.requests += value;
    else if (name === "process_resident_memory_bytes") counters.rssBytes = value;
    else if (name === "nodejs_heap_size_used_bytes") counters.heapBytes = value;
    else if (name === "nodejs_eventloop_lag_max_seconds") counters.eventLoopLagMaxSeconds = value;
    else if (name === "nodejs_gc_duration_seconds_sum") counters.gcSeconds += value;
    else if (name === "nodejs_gc_duration_seconds_count" && labels.includes('kind="major"')) counters.gcMajors += value;
  }
  return counters;
}

export async function readCounters(baseUrl: string): Promise<ServerCounters> {
  const res = await fetch(`${baseUrl}/metrics`);
  if (!res.ok)
    throw new Error(`/metrics answered ${res.status}; the bench needs METRICS_ENABLED=true and no METRICS_TOKEN`);
  return parseCounters(await res.text());
}

/** The sum of every sample of metric `name` in /metrics text whose labels include `labels` (e.g. 'topic="commentAdded"'); null when there is none. */
export function metricSum(text: string, name: string, labels = ""): number | null {
  let sum: number | null = null;
  for (const line of text.split("\n")) {
    const m = SAMPLE.exec(line);
    if (!m || m[1] !== name || !(m[2] ?? "").includes(labels)) continue;
    sum = (sum ?? 0) + Number(m[3]);
  }
  return sum;
}
