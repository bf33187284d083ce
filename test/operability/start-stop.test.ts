// Stopping the service the way it was started: `npm start`, as the README and docs/operations.md
// say, stopped by signalling the process that command started (a supervisor, a container, `kill
// <pid>` after `npm start &`) or its whole process group (Ctrl-C in a terminal). Each time the
// service must shut down gracefully (it logs "stopped"), npm must exit 0, no process of the group
// may be left behind and the port must be free. Before `npm start` exec'd the service, SIGTERM to
// npm killed npm and its shell (dash) and left tsx and the server running, reparented to init.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { ROOT } from "../helpers/process.ts";

let database: TestDatabase;
let uploads: string;
const started: number[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  uploads = mkdtempSync(path.join(tmpdir(), "gw-start-stop-"));
});

afterEach(() => {
  // A group a failing case left running (the old `npm start` did): ended by its own id.
  for (const group of started.splice(0)) if (groupAlive(group)) process.kill(-group, "SIGKILL");
});

afterAll(async () => {
  await database?.drop();
  rmSync(uploads, { recursive: true, force: true });
});

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

/** `npm start` in its own process group (as a terminal's job, or a supervisor's child), listening on a free port. */
async function npmStart() {
  const child = spawn("npm", ["start"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: database.url, UPLOAD_DIR: uploads, PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  started.push(child.pid!);
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen in time:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then((code) => reject(new Error(`npm start exited with ${code} before listening:\n${output}`)));
  });
  return { pid: child.pid!, url, exited, output: () => output };
}

/** Whether a new server can listen on the port (nothing holds it any more). */
const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

describe.each([
  { signal: "SIGTERM", to: "the process npm start started" },
  { signal: "SIGINT", to: "the process npm start started" },
  { signal: "SIGINT", to: "its process group (Ctrl-C in a terminal)" },
  { signal: "SIGTERM", to: "its process group" },
] as const)("$signal to $to", ({ signal, to }) => {
  it("stops the service gracefully and frees the port", async () => {
    const service = await npmStart();
    const port = Number(new URL(service.url).port);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);

    process.kill(to.startsWith("its process group") ? -service.pid : service.pid, signal);

    const code = await Promise.race([service.exited, new Promise((r) => setTimeout(() => r("still running"), 20_000))]);
    expect(code, service.output()).toBe(0);
    expect(await eventually(() => !groupAlive(service.pid)), "a process of npm start's group outlived it").toBe(true);
    expect(await eventually(() => portIsFree(port)), "the port is still held").toBe(true);
    const said = service.output();
    expect(said).toContain(`"signal":"${signal}"`);
    expect(said).toMatch(/"msg":"stopped"/);
  });
});
