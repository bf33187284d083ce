// Runs the steady-arrival load (paced.ts) in a fresh child process, whatever the bench's own process
// holds. It once held ~340 MB by the time the SLO runs start (see benchDatabase), and its full GCs
// took 90 to 110 ms of marking steps and pauses of up to 45 ms, every 1 to 2 s: requests were
// sent late and answers read late, and that showed as the server's p99 (page of 50 on PostgreSQL
// at ~1,300 req/s: 72 to 140 ms from the bench's process, 18 to 31 ms from a process of its own).
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Request } from "autocannon";
import { pacedLatency, type PacedResult } from "./paced.ts";

type Job = {
  url: string;
  requests: Request[];
  connections: number;
  durationSec: number;
  rate: number;
  graphql: boolean;
};

export function pacedLatencyApart(job: Job): Promise<PacedResult> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (result) => resolve(result as PacedResult));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the paced load's process exited (${code}) without a result`)));
    child.send(job);
  });
}

// In the child: one job, its result, and out.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once("message", async (job: Job) => {
    const result = await pacedLatency(job.url, job.requests, job.connections, job.durationSec, job.rate, job.graphql);
    process.send!(result, () => process.disconnect());
  });
}
