// `npm run bench:front-door [-- options]`: one client flooding the front door (GET /, /docs and
// the reference's 1.7 MB script, with and without Accept-Encoding; POST /graphql with one document
// the server knows, and with a new valid document each time, which fills and churns the
// documents remembered for the direct answer), each flood against a fresh
// server process (`src/main.ts`, production mode, empty SQLite database) while a separate process
// samples its RSS and /healthz latency (bench/live-attacks/sampler.ts). Twice: with the default
// rate limits (what one address meets) and with RATE_LIMIT_MAX=0 (the bare cost of serving the
// bytes, what a flood from many addresses tends to). Prints a table; --json writes every figure.
import "../src/node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import autocannon from "autocannon";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { cleanupsOnExit } from "./cleanups.ts";
import { freshSqlite } from "./databases.ts";
import { request, sleep } from "./live-attacks/clients.ts";
import { startSampler } from "./live-attacks/sampler.ts";
import { summarize, type SampleSummary } from "./live-attacks/summary.ts";
import { cpuSecondsOf, startService } from "./processes.ts";
import { loadAverageLine, markdownTable } from "./text-table.ts";

const HELP = `Usage: npm run bench:front-door [-- options]

  --seconds N       length of each flood (default 15)
  --connections N   keep-alive connections of the flooding client (default 50)
  --only TEXT       only the floods whose name contains TEXT
  --json FILE       write every figure to FILE

Each flood starts its own server (NODE_ENV=production, LOG_LEVEL=warn) on an empty SQLite
database: 5 s of baseline, the flood, 3 s after. Figures from a machine shared with other work
are noisy: run it twice and compare.`;

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const BASELINE_MS = 5_000; // the sampler, a process of its own, may take seconds to start on a loaded machine
const AFTER_MS = 3_000;

type Flood = {
  name: string;
  path: string | ((url: string) => Promise<string>);
  headers: Record<string, string>;
  /** POST with this body; "[<id>]" in it becomes a value of its own in each request (autocannon's idReplacement). */
  body?: string;
};

const JSON_TYPE = { "content-type": "application/json" };
/** A read every server answers without data: the flood measures the transport, not the database. */
const KNOWN = JSON.stringify({ query: "query Known { __typename }" });
/** A valid document never seen before in each request: remembered, then evicted as the bound is reached. */
const EACH_NEW = JSON.stringify({ query: "query New_[<id>] { __typename restaurants(first: 1) { totalCount } }" });

/** The reference's script, as the page names it (by its content hash). */
async function bundlePath(url: string): Promise<string> {
  const page = await request(`${url}/docs`);
  const found = /src="(\/docs\/swagger-ui-bundle\.[^"]+\.js)"/.exec(page.body)?.[1];
  if (!found) throw new Error(`GET /docs answered ${page.status} without the script's name`);
  return found;
}

const FLOODS: Flood[] = [
  // A route that was there before, also sent from memory: what the new ones compare with.
  { name: "GET /openapi.json (control)", path: "/openapi.json", headers: {} },
  { name: "GET / (browser, br)", path: "/", headers: { accept: BROWSER, "accept-encoding": "gzip, deflate, br" } },
  { name: "GET / (JSON, identity)", path: "/", headers: {} },
  {
    name: "GET /docs (browser, br)",
    path: "/docs",
    headers: { accept: BROWSER, "accept-encoding": "gzip, deflate, br" },
  },
  { name: "GET /docs (identity)", path: "/docs", headers: {} },
  { name: "GET /docs script (br)", path: bundlePath, headers: { "accept-encoding": "gzip, deflate, br" } },
  { name: "GET /docs script (identity)", path: bundlePath, headers: {} },
  { name: "POST /graphql, one known document", path: "/graphql", headers: JSON_TYPE, body: KNOWN },
  { name: "POST /graphql, a new document each time", path: "/graphql", headers: JSON_TYPE, body: EACH_NEW },
];

const LIMITS: { name: string; env: Record<string, string> }[] = [
  { name: "default limits", env: {} },
  { name: "RATE_LIMIT_MAX=0", env: { RATE_LIMIT_MAX: "0" } },
];

type Record_ = {
  flood: string;
  limits: string;
  reqPerSec: number;
  statuses: Record<string, number>;
  sentMbPerSec: number;
  cpuMsPerRequest: number | null;
  /** The first answer of this kind, 5 s after the server's start (a compressed copy not made ahead is made then), and the next. */
  firstMs: number;
  secondMs: number;
} & SampleSummary;

async function runFlood(
  flood: Flood,
  limits: { name: string; env: Record<string, string> },
  seconds: number,
  connections: number,
  cleanups: (() => Promise<void>)[],
): Promise<Record_> {
  const database = freshSqlite();
  cleanups.push(database.drop);
  const service = await startService("src/main.ts", {
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    DATABASE_URL: database.url,
    UPLOAD_DIR: database.uploadDir,
    ...limits.env,
  });
  cleanups.push(service.stop);
  try {
    const path = typeof flood.path === "string" ? flood.path : await flood.path(service.url);
    const method = flood.body === undefined ? "GET" : "POST";
    const sent = flood.body?.replaceAll("[<id>]", "first");
    const timed = async () => {
      const started = performance.now();
      const answer = await request(service.url + path, { method, headers: flood.headers, body: sent });
      if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
      return Math.round(performance.now() - started);
    };
    const sampler = startSampler(service.url, service.pid, 10_000);
    await sleep(BASELINE_MS);
    const firstMs = await timed();
    const secondMs = await timed();
    const start = Date.now();
    const cpuBefore = cpuSecondsOf(service.pid);
    const result = await autocannon({
      url: service.url,
      connections,
      duration: seconds,
      pipelining: 1,
      timeout: 10,
      idReplacement: true,
      requests: [{ method, path, headers: flood.headers, body: flood.body }],
    });
    const cpuAfter = cpuSecondsOf(service.pid);
    const end = Date.now();
    await sleep(AFTER_MS);
    const summary = summarize(await sampler.stop(), start - BASELINE_MS, start, end + AFTER_MS);
    const answered = result.requests.total;
    return {
      flood: flood.name,
      limits: limits.name,
      reqPerSec: Math.round(answered / result.duration),
      statuses: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
      sentMbPerSec: Math.round((result.throughput.total / result.duration / 2 ** 20) * 10) / 10,
      cpuMsPerRequest:
        cpuBefore !== null && cpuAfter !== null && answered
          ? Math.round(((cpuAfter - cpuBefore) * 1000 * 1000) / answered) / 1000
          : null,
      firstMs,
      secondMs,
      ...summary,
    };
  } finally {
    await service.stop();
    cleanups.splice(cleanups.indexOf(service.stop), 1);
    await database.drop();
    cleanups.splice(cleanups.indexOf(database.drop), 1);
  }
}

function table(records: Record_[]): string[] {
  const header = [
    "flood",
    "limits",
    "req/s",
    "statuses",
    "MB/s sent",
    "CPU ms/req",
    "1st/2nd ms",
    "RSS base -> peak -> end MB",
    "/healthz p50/p99/max ms",
    "/healthz failed",
  ];
  const rows = records.map((r) => [
    r.flood,
    r.limits,
    String(r.reqPerSec),
    Object.entries(r.statuses)
      .map(([code, count]) => `${code}: ${count}`)
      .join(", "),
    String(r.sentMbPerSec),
    String(r.cpuMsPerRequest ?? "?"),
    `${r.firstMs}/${r.secondMs}`,
    `${r.baselineRssMb} -> ${r.peakRssMb} -> ${r.endRssMb}`,
    `${r.healthzP50Ms}/${r.healthzP99Ms}/${r.healthzMaxMs}`,
    `${r.healthzFailed} of ${r.healthzCount}`,
  ]);
  return markdownTable(header, rows);
}

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "15" },
      connections: { type: "string", default: "50" },
      only: { type: "string" },
      json: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return console.log(HELP);
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const { cleanups, cleanUp } = cleanupsOnExit((text) => process.stderr.write(`${text}\n`), "stopping the servers");
  const records: Record_[] = [];
  const loadStart = os.loadavg();
  try {
    for (const limits of LIMITS) {
      for (const flood of FLOODS.filter((f) => !values.only || f.name.includes(values.only))) {
        process.stderr.write(`${flood.name}, ${limits.name}: ${seconds} s, ${connections} connections\n`);
        records.push(await runFlood(flood, limits, seconds, connections, cleanups));
      }
    }
  } finally {
    await cleanUp();
  }
  const lines = table(records);
  console.log(`\n${lines.join("\n")}`);
  console.log(`\n${loadAverageLine(loadStart)}`);
  if (values.json)
    writeFileSync(
      values.json,
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, seconds, connections, records, table: lines }, null, 2)}\n`,
    );
}

await main();
