// What an operator would watch during an attack, from a process of its own (the attacking
// process may be busy flooding, and its own stalls must not count as the server's): the server's
// RSS from /proc/<pid>/status every 100 ms, and GET /healthz every 50 ms, each timed from when it
// was due to its answer. A request that gets no answer within the timeout counts as that long
// (and as timed out). /healthz goes over keep-alive connections, as a load balancer's probe
// would: one while the server answers within 50 ms, up to PROBE_CONNECTIONS while it is slower
// (so a slow server does not make the probe queue behind itself), the extra ones closed after
// 2 s idle. The probe so holds one connection slot, more only while the server is slow.
import { fork } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { rssMbOf } from "../processes.ts";
import { request, withTimeout } from "./clients.ts";

export type RssSample = { at: number; mb: number };
/** `at`: when the request was due (epoch ms); `ms`: how long until its answer (the timeout when none came). */
export type HealthSample = { at: number; ms: number; status: number; timedOut: boolean };
export type Samples = { rss: RssSample[]; health: HealthSample[] };

const PROBE_CONNECTIONS = 8;

type Job = { url: string; pid: number; healthEveryMs: number; rssEveryMs: number; timeoutMs: number };

export type Sampler = {
  /** Stops sampling (idempotent); resolves with every sample once the requests in flight are answered or timed out. */
  stop(): Promise<Samples>;
  startedAt: number;
};

export function startSampler(url: string, pid: number, timeoutMs: number): Sampler {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const job: Job = { url, pid, healthEveryMs: 50, rssEveryMs: 100, timeoutMs };
  const result = new Promise<Samples>((resolve, reject) => {
    child.once("message", (samples) => resolve(samples as Samples));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the sampler exited (${code}) without its samples`)));
  });
  result.catch(() => {}); // read by stop()
  child.send(job);
  let stopped: Promise<Samples> | null = null;
  return {
    startedAt: Date.now(),
    stop() {
      if (!stopped) {
        if (child.connected) child.send("stop");
        // Bounded: the sampler answers within its request timeout; past that it is killed.
        stopped = withTimeout(result, timeoutMs + 10_000, null).then((samples) => {
          if (samples) return samples;
          child.kill("SIGKILL");
          throw new Error("the sampler did not return its samples");
        });
      }
      return stopped;
    },
  };
}

async function sample(job: Job): Promise<void> {
  const rss: RssSample[] = [];
  const health: HealthSample[] = [];
  const inFlight = new Set<Promise<void>>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: PROBE_CONNECTIONS, scheduling: "lifo", timeout: 2_000 });
  const probe = () => {
    const at = Date.now();
    const started = performance.now();
    const done = request(`${job.url}/healthz`, { agent, timeoutMs: job.timeoutMs }).then((answer) => {
      const ms = Math.min(job.timeoutMs, performance.now() - started);
      health.push({
        at,
        ms: Math.round(ms * 10) / 10,
        status: answer.status,
        timedOut: answer.status === 0 && ms >= job.timeoutMs - 1,
      });
      inFlight.delete(done);
    });
    inFlight.add(done);
  };
  const readRss = () => {
    const mb = rssMbOf(job.pid);
    if (mb !== null) rss.push({ at: Date.now(), mb: Math.round(mb * 10) / 10 });
  };
  readRss();
  probe();
  const timers = [setInterval(probe, job.healthEveryMs), setInterval(readRss, job.rssEveryMs)];
  await new Promise<void>((resolve) => process.once("message", () => resolve()));
  timers.forEach(clearInterval);
  await Promise.all(inFlight);
  agent.destroy();
  process.send!({ rss, health } satisfies Samples, () => process.disconnect());
}

// In the child: one job, sampled until the parent says stop.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once("message", (job: Job) => void sample(job));
}
