// Serve, write, read under load, stop with SIGTERM: `--cycles` times on the Node that runs this
// script, counting the cycles where the server aborted. The check behind issue 30: better-sqlite3
// 12 built against Node 24.19+ headers died at random points of that cycle ("Assertion failed:
// (env) != nullptr", exit 134) depending on when the garbage collector finalised a statement, so
// one clean cycle proves little; several on each Node line do.
//
//   node --import tsx bench/serve-cycles.ts [--cycles 3] [--load-seconds 5] [--root DIR]
//   npm run bench:cycles -- --cycles 3        (the Node `npm run` picks, see scripts/node-runtime)
//
// --root runs the server of another checkout (its own node_modules), e.g. a clone of an older
// commit for a before/after comparison. Exits 1 when a cycle did not end with exit code 0.
import "../src/node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { freePort, ROOT } from "./processes.ts";

const { values: args } = parseArgs({
  options: {
    cycles: { type: "string", default: "3" },
    "load-seconds": { type: "string", default: "5" },
    root: { type: "string", default: ROOT },
  },
});
const cycles = Number(args.cycles);
const loadSeconds = Number(args["load-seconds"]);
const root = path.resolve(args.root);

type Outcome = { phase: string; code: number | null; signal: string | null; aborted: boolean; detail: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function cycle(): Promise<Outcome> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "serve-cycle-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATABASE_URL: `file:${path.join(dir, "gateway.db")}`,
      UPLOAD_DIR: path.join(dir, "uploads"),
      RATE_LIMIT_MAX: "0",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let phase = "start";
  const outcome = (end: { code: number | null; signal: string | null }): Outcome => {
    const aborted = end.signal === "SIGABRT" || end.code === 134 || /Assertion failed|Segmentation fault/.test(output);
    const detail =
      output.split("\n").find((line) => /Assertion failed|Segmentation fault|FATAL|Error/.test(line)) ?? "";
    return { phase, ...end, aborted, detail: detail.slice(0, 200) };
  };
  // Any step ends early if the server dies under it: that is the finding, not an error.
  const died = exited.then((end) => {
    throw Object.assign(new Error("server exited"), { end });
  });
  died.catch(() => {});
  const step = <T>(name: string, work: () => Promise<T>) => {
    phase = name;
    return Promise.race([work(), died]);
  };
  try {
    await step("start", async () => {
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(100)) {
        if (
          await fetch(`${url}/healthz`).then(
            (r) => r.ok,
            () => false,
          )
        )
          return;
      }
      throw new Error(`not ready after 60 s:\n${output}`);
    });
    const token = await step("write", async () => {
      const res = await fetch(`${url}/users`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "cycle", password: "password-1", first_name: "Cycle" }),
      });
      const { access_token } = (await res.json()) as { access_token: string };
      for (let i = 0; i < 20; i++) {
        const created = await fetch(`${url}/restaurants`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${access_token}` },
          body: JSON.stringify({ title: `Cycle ${i}`, categories: ["test"] }),
        });
        if (created.status !== 201) throw new Error(`POST /restaurants answered ${created.status}`);
      }
      return access_token;
    });
    await step("read under load", () =>
      autocannon({
        url,
        connections: 10,
        duration: loadSeconds,
        requests: [
          { method: "GET", path: "/restaurants", headers: { authorization: `Bearer ${token}` } },
          { method: "GET", path: "/restaurants/1", headers: { authorization: `Bearer ${token}` } },
          {
            method: "POST",
            path: "/graphql",
            headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
            body: JSON.stringify({ query: "{ restaurants(first: 20) { edges { node { id title } } } }" }),
          },
        ],
      }),
    );
    // A moment idle: the collector finalises dropped statements when the loop is quiet too.
    await step("idle", () => sleep(1_000));
    phase = "SIGTERM";
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const end = await exited;
    clearTimeout(timer);
    return outcome(end);
  } catch (error) {
    const end = (error as { end?: { code: number | null; signal: string | null } }).end;
    if (end) return outcome(end);
    child.kill("SIGKILL");
    return { ...outcome(await exited), detail: (error as Error).message.split("\n")[0]! };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const driver = (
  JSON.parse(readFileSync(path.join(root, "node_modules/better-sqlite3/package.json"), "utf8")) as { version: string }
).version;
const label = `Node ${process.version}, better-sqlite3 ${driver}`;
let aborted = 0;
let failed = 0;
for (let i = 1; i <= cycles; i++) {
  const started = Date.now();
  const result = await cycle();
  const clean = result.code === 0 && !result.aborted;
  if (result.aborted) aborted++;
  else if (!clean) failed++;
  const end = result.signal ? `signal ${result.signal}` : `exit ${result.code}`;
  const verdict = clean ? "clean" : result.aborted ? `ABORTED during ${result.phase}` : `FAILED during ${result.phase}`;
  console.log(
    `${label}: cycle ${i}/${cycles} ${verdict} (${end}, ${((Date.now() - started) / 1000).toFixed(1)} s)${result.detail && !clean ? `: ${result.detail}` : ""}`,
  );
}
console.log(`${label}: ${cycles} cycles, ${aborted} aborted, ${failed} failed otherwise`);
process.exit(aborted || failed ? 1 : 0);
