// Child processes under test: the real server (`node --import tsx src/main.ts`), the baseline
// scripts and the peer (PostGraphile on another Node). Each gets a free port chosen here (the server logs nothing at LOG_LEVEL=warn, so its
// port cannot be read from its output) and is ready when GET /healthz answers 200.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { freePort } from "../test/helpers/free-port.ts";

export { freePort };

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export type Service = {
  url: string;
  pid: number;
  stop(): Promise<void>;
  output(): string;
  /** Resolves when the process has exited, however it was stopped. */
  exited: Promise<Exit>;
};

const OUTPUT_KEPT = 20_000;

/**
 * Whether GET /healthz answers 200, on a connection closed after the answer: fetch would keep it
 * open (for the server's keep-alive timeout, 72 s) and hold one of the server's connection slots.
 */
function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/healthz`, { agent: false, timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
  });
}

/**
 * How long a process may take to answer: a server migrates its database first, and on a seeded
 * catalogue of 1,000,000 restaurants building a new index took 3 min (docs/performance.md).
 */
const READY_TIMEOUT_MS = 10 * 60_000;

async function waitReady(url: string, child: ChildProcess, output: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`process exited with ${child.exitCode} before it was ready:\n${output()}`);
    const ok = await healthy(url);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`process not ready after ${timeoutMs} ms:\n${output()}`);
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux architecture Node supports

/**
 * CPU seconds (user + system) a process has used so far, from /proc; null where there is no /proc.
 * Beside req/s, CPU per request is a figure that other load on a shared machine disturbs far less.
 */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces), from field 3: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Resident set size of a process (VmRSS in /proc/<pid>/status), in MiB; null once it has exited or without /proc. */
export function rssMbOf(pid: number): number | null {
  try {
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib === undefined ? null : Number(kib) / 1024;
  } catch {
    return null;
  }
}

/** The parent's pid of a process (field 4 of /proc/<pid>/stat); null once it has exited or without /proc. */
export function parentPidOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

/**
 * CPU seconds used so far by a process and its children (a PostgreSQL server: its postmaster
 * and every backend and worker it started), by pid; null without /proc. Only that server's: other
 * clusters on a shared machine (other engineers' tests) are not counted.
 */
export function cpuSecondsOfTree(rootPid: number): Map<number, number> | null {
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
  const seconds = new Map<number, number>();
  for (const entry of entries) {
    const pid = Number(entry);
    if (pid !== rootPid && parentPidOf(pid) !== rootPid) continue;
    const used = cpuSecondsOf(pid);
    if (used !== null) seconds.set(pid, used);
  }
  return seconds;
}

/**
 * CPU seconds those processes used between two readings: each one's growth, and the whole of
 * those started since (a pool's new backends). One that exited meanwhile is not counted.
 */
export function cpuSecondsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, used] of after) total += used - (before.get(pid) ?? 0);
  return total;
}

/**
 * Pins every thread of a running process to one core (`taskset -a -p -c`); threads it starts later
 * inherit it. False where taskset is missing or the core does not exist.
 */
export function pinToCpu(pid: number, cpu: number): boolean {
  try {
    execFileSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The V8 options `npm start` and the Dockerfile give the service (docs/operations.md "Starting and stopping"). */
export const SERVICE_NODE_FLAGS = ["--min-semi-space-size=16", "--initial-old-space-size=256", "--no-memory-reducer"];

/** Runs `script` (a .ts file under the repo) with node + tsx; resolves once it answers /healthz. */
/** `root`: another checkout to run it from (its own node_modules), e.g. the bench's --before. */
export function startService(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  root = ROOT,
): Promise<Service> {
  const flags = script === "src/main.ts" ? SERVICE_NODE_FLAGS : [];
  return startProcess(process.execPath, [...flags, ...nodeArgs, "--import", "tsx", script], env, root);
}

/**
 * Runs `command args` from the repo's root with HOST and PORT set; resolves once it answers /healthz.
 * `onOutput`: every chunk of its output as well, for a trace longer than what `output()` keeps.
 */
export async function startProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd = ROOT,
  onOutput?: (chunk: string) => void,
): Promise<Service> {
  const port = await freePort();
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, HOST: "127.0.0.1", ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const keep = (chunk: Buffer) => {
    onOutput?.(chunk.toString());
    text = (text + chunk.toString()).slice(-OUTPUT_KEPT);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitReady(url, child, () => text, READY_TIMEOUT_MS);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid!, stop, output: () => text, exited };
}
