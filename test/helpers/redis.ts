// A private redis-server for one test file, on a free port of 127.0.0.1, with nothing written to
// disk. Tests can stop it (an outage) and start it again on the same port. Each file starts its
// own: files run in parallel, and one that stops its Redis must not take another's away.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { freePort } from "./free-port.ts";

/**
 * `redis-server` is on PATH: tests that need it are skipped otherwise, unless TEST_REDIS_REQUIRED=1
 * (.ci/run installs it and sets that): then they run and fail, so CI never skips them silently.
 */
export const redisServerInstalled =
  process.env.TEST_REDIS_REQUIRED === "1" || spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;

export type TestRedis = {
  url: string;
  /** Stops the server at once (SIGKILL: a crash, no goodbye to clients). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  close(): Promise<void>;
};

function run(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`redis-server did not start within 10 s:\n${output}`));
    }, 10_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

export async function startRedis(): Promise<TestRedis> {
  let port = await freePort();
  let child: ChildProcess | undefined;
  for (let attempt = 1; !child; attempt++) {
    try {
      child = await run(port);
    } catch (error) {
      if (attempt === 3) throw error;
      port = await freePort(); // taken between the probe and the start
    }
  }
  const stop = async () => {
    if (!child) return;
    const stopping = child;
    child = undefined;
    stopping.kill("SIGKILL");
    await exited(stopping);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    async start() {
      if (!child) child = await run(port);
    },
    close: stop,
  };
}
