// Runs the service as a real child process (`src/main.ts`, as `npm start` does), for tests of
// start-up, restarts, signals and crashes.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export type ServiceProcess = { url: string; child: ChildProcess; output: () => string; exited: Promise<number | null> };

/**
 * Starts the service and resolves once it listens (or rejects with its output if it exits first).
 * `nodeArgs`: flags for Node itself (V8's GC tracing, heap sizes).
 */
export function startProcess(
  env: Record<string, string>,
  // Within the hooks' 60 s: a first start (tsx compiling, PostgreSQL migrating) took over 30 s on a busy machine.
  timeoutMs = 55_000,
  nodeArgs: string[] = [],
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "test", LOG_LEVEL: "info", HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start in time:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1], child, output: () => output, exited });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${output}`));
    });
  });
}

/** Runs the service expecting it to refuse to start; resolves with its exit code and output. */
export function runUntilExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "test", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  return new Promise((resolve) =>
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

export type AdminRun = { code: number | null; stdout: string; stderr: string };

/**
 * `npm run admin -- ...args` as a real process on `databaseUrl` (no ADMIN_PASSWORD from the
 * environment: commands that need a password are given one).
 */
export function runAdmin(databaseUrl: string, ...args: string[]): Promise<AdminRun> {
  return runAdminWith({ DATABASE_URL: databaseUrl }, ...args);
}

/** `npm run admin -- ...args` with these settings (DATABASE_URL, UPLOAD_DIR, ...). */
export function runAdminWith(settings: Record<string, string>, ...args: string[]): Promise<AdminRun> {
  return startAdmin(settings, ...args).finished;
}

/** The admin process, started: for tests that stop it halfway (`child.kill("SIGKILL")`). */
export function startAdmin(
  settings: Record<string, string>,
  ...args: string[]
): { child: ChildProcess; finished: Promise<AdminRun> } {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "test", ...settings };
  delete env.ADMIN_PASSWORD;
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/admin.ts", ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  return { child, finished: new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr }))) };
}
