// An open-loop load at a steady rate: request i is due at start + i / rate, whatever happened to
// the ones before it, and its latency is counted from when it was due (so a request that waited
// for a free connection, because the server fell behind, counts its wait). This is what a
// latency SLO "at N req/s" means. autocannon's overallRate is not that: each connection sends its
// quota for the second as fast as it can at the start of the second and then idles, so its
// "half rate" is a burst at full concurrency followed by silence, and its p99 is about the p99 at
// saturation (docs/performance.md "Latency at a fixed rate").
import http from "node:http";
import type { Request } from "autocannon";

export type PacedResult = {
  rate: number;
  /** Requests per second answered over the run. */
  achieved: number;
  p50: number;
  p99: number;
  max: number;
  /** Answers that were not 2xx, carried GraphQL `errors` (when `graphql`), or never came. */
  failed: number;
  /** p99 of how late this process sent requests (ms): large means the bench, not the server, fell behind. */
  senderLateP99: number;
};

/**
 * A request body holding this text gets a value of its own each time it is sent (withUnique):
 * the peer's insert names the new row's key itself, and a repeated key would be refused.
 */
export const UNIQUE = "{{unique}}";
let sent = 0;
const prefix = `${process.pid.toString(36)}-${Date.now().toString(36)}`;

export function withUnique<T extends string | Buffer | undefined>(body: T): T {
  return (
    typeof body === "string" && body.includes(UNIQUE)
      ? body.replace(UNIQUE, `${prefix}-${(sent++).toString(36)}`)
      : body
  ) as T;
}

export const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0;

function send(agent: http.Agent, target: URL, request: Request, graphql: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: request.path,
        method: request.method,
        headers: request.headers,
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const ok = (res.statusCode ?? 0) < 300 && !(graphql && Buffer.concat(chunks).includes('"errors"'));
          resolve(ok);
        });
        res.on("error", () => resolve(false));
      },
    );
    req.on("error", () => resolve(false));
    req.on("timeout", () => req.destroy());
    req.end(withUnique(request.body as string | undefined));
  });
}

/**
 * Sends `rate` requests per second, evenly spaced, for `durationSec`, over at most `connections`
 * keep-alive connections, cycling through `requests`.
 */
export async function pacedLatency(
  url: string,
  requests: Request[],
  connections: number,
  durationSec: number,
  rate: number,
  graphql: boolean,
): Promise<PacedResult> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.max(1, Math.round(rate * durationSec));
  const interval = 1000 / rate;
  const latencies: number[] = [];
  const lateness: number[] = [];
  let failed = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  let next = 0;
  await new Promise<void>((done) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * interval <= now) {
        const due = start + next * interval;
        lateness.push(now - due);
        const request = requests[next % requests.length]!;
        pending.push(
          send(agent, target, request, graphql).then((ok) => {
            if (ok) latencies.push(performance.now() - due);
            else failed++;
          }),
        );
        next++;
      }
      if (next >= total) return done();
      setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
    };
    tick();
  });
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  lateness.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    rate,
    achieved: latencies.length / elapsed,
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies[latencies.length - 1] ?? 0),
    failed,
    senderLateP99: round(percentile(lateness, 99)),
  };
}
