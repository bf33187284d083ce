// `npm run bench:http-cache [-- options]`: what a persisted GET costs the service when an HTTP
// cache answers it. Two server processes (src/main.ts, production mode, ANONYMOUS_READS=true,
// RATE_LIMIT_MAX=0) on one freshly seeded database (SQLite; PostgreSQL when DATABASE_URL points at
// a server), Debian's nginx in front of both with the block docs/http-caching.md gives. The
// bench's by-id and page-of-50 documents (scenarios.ts) are sent, anonymously, as:
//   - POST /graphql to one instance (what clients send today);
//   - a persisted GET (Apollo's persistedQuery extension, hash only) to one instance: each runs;
//   - the same persisted GET through nginx, its 64 URLs stored first: each one a hit.
// For each: req/s, latency, the requests that reached the instances during the measured run (0
// through a warm cache) and the CPU the instances (and nginx) used per request.
import "../src/node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import autocannon, { type Request } from "autocannon";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { restaurantId, isSizeName, type SizeName } from "../src/seed/dataset.ts";
import { DEFAULT_SEED_PASSWORD } from "../src/seed/seed.ts";
import { documentedNginxBlock, startNginx } from "../test/helpers/nginx.ts";
import { cleanupsOnExit } from "./cleanups.ts";
import { isPostgresUrl, seededDatabase } from "./databases.ts";
import { cpuSecondsBetween, cpuSecondsOf, cpuSecondsOfTree, startService, type Service } from "./processes.ts";
import { readCounters } from "./prometheus.ts";
import { loadAverageLine, markdownTable } from "./text-table.ts";
import { RESTAURANT_BY_ID, RESTAURANTS_PAGE } from "./scenarios.ts";

const HELP = `Usage: npm run bench:http-cache [-- options]

  --seconds N       measured run of each scenario (default 10; a 3 s warm-up before it)
  --connections N   keep-alive connections (default 50)
  --size NAME       seed size: small, medium (default) or large
  --json FILE       write every figure to FILE

SQLite by default; with DATABASE_URL=postgresql://... a fresh database on that server (dropped
afterwards). Needs Debian's nginx (/usr/sbin/nginx). Figures from a machine shared with other
work are noisy: run it on a quiet one.`;

const ROTATION = 64;
const PREFLIGHT = { "apollo-require-preflight": "true" };

type Document = { name: string; text: string; variables: (i: number) => Record<string, unknown> };

const DOCUMENTS: Document[] = [
  { name: "by id", text: RESTAURANT_BY_ID, variables: (i) => ({ id: restaurantId(i + 1) }) },
  // The page of 50 with a different `first` per URL (41 to 50), so the cache holds several entries as with the ids.
  { name: "page of 50", text: RESTAURANTS_PAGE, variables: (i) => ({ first: 50 - (i % 10) }) },
];

const operationName = (text: string) => /query (\w+)/.exec(text)![1]!;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const extensionsOf = (text: string) => JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha256(text) } });

/** The hash-only persisted GET of one request of the rotation. */
function persistedPath(document: Document, i: number): string {
  const params = new URLSearchParams({
    operationName: operationName(document.text),
    variables: JSON.stringify(document.variables(i)),
    extensions: extensionsOf(document.text),
  });
  return `/graphql?${params}`;
}

type Way = { name: string; target: "instance" | "nginx"; requests: (document: Document) => Request[] };

const WAYS: Way[] = [
  {
    name: "POST",
    target: "instance",
    requests: (document) =>
      Array.from({ length: ROTATION }, (_, i) => ({
        method: "POST",
        path: "/graphql",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: document.text, variables: document.variables(i) }),
      })),
  },
  {
    name: "persisted GET",
    target: "instance",
    requests: (document) =>
      Array.from({ length: ROTATION }, (_, i) => ({
        method: "GET",
        path: persistedPath(document, i),
        headers: PREFLIGHT,
      })),
  },
  {
    name: "persisted GET via nginx (hits)",
    target: "nginx",
    requests: (document) =>
      Array.from({ length: ROTATION }, (_, i) => ({
        method: "GET",
        path: persistedPath(document, i),
        headers: PREFLIGHT,
      })),
  },
];

type Row = {
  scenario: string;
  way: string;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
  /** Requests the two instances answered during the measured run (their /metrics). */
  reachedService: number;
  /** CPU ms the two instances used per request answered (by anyone). */
  serviceCpuMsPerRequest: number | null;
  /** CPU ms nginx (master and workers) used per request, through nginx only. */
  nginxCpuMsPerRequest: number | null;
};

async function get(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers });
  return { status: res.status, cache: res.headers.get("x-cache-status"), body: await res.text() };
}

async function servedBy(instances: Service[]): Promise<number> {
  let total = 0;
  for (const s of instances) total += (await readCounters(s.url)).requests;
  return total;
}

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "10" },
      connections: { type: "string", default: "50" },
      size: { type: "string", default: "medium" },
      json: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return console.log(HELP);
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  if (!isSizeName(values.size!)) throw new Error(`--size: small, medium or large`);
  const size = values.size as SizeName;
  const provider = isPostgresUrl(process.env.DATABASE_URL) ? "postgres" : "sqlite";
  const { cleanups, cleanUp } = cleanupsOnExit((text) => process.stderr.write(`${text}\n`), "stopping the servers");
  const rows: Row[] = [];
  const loadStart = os.loadavg();
  try {
    process.stderr.write(`seeding ${size} (${provider})\n`);
    const { database } = await seededDatabase(
      provider,
      { size, serverUrl: process.env.DATABASE_URL, password: DEFAULT_SEED_PASSWORD },
      cleanups,
    );
    const env = {
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      DATABASE_URL: database.url,
      UPLOAD_DIR: database.uploadDir,
      RATE_LIMIT_MAX: "0",
      ANONYMOUS_READS: "true",
    };
    const instances: Service[] = [];
    for (let i = 0; i < 2; i++) {
      const service = await startService("src/main.ts", env);
      cleanups.push(service.stop);
      instances.push(service);
    }
    const nginx = await startNginx(1, (dir, [port]) =>
      documentedNginxBlock(
        dir,
        port!,
        instances.map((s) => new URL(s.url).host),
        "bench",
      ),
    );
    cleanups.push(nginx.close);
    const nginxPid = nginx.pid;
    const cpu = () => instances.reduce((sum, s) => sum + (cpuSecondsOf(s.pid) ?? NaN), 0);

    for (const document of DOCUMENTS) {
      // Each instance learns the hash (Apollo's APQ registration: text and hash once).
      for (const s of instances) {
        const params = new URLSearchParams({
          query: document.text,
          variables: JSON.stringify(document.variables(0)),
          extensions: extensionsOf(document.text),
        });
        const registered = await get(`${s.url}/graphql?${params}`, PREFLIGHT);
        if (registered.status !== 200 || registered.body.includes('"errors"'))
          throw new Error(`registering ${document.name} answered ${registered.status}: ${registered.body}`);
      }
      for (const way of WAYS) {
        const url = way.target === "nginx" ? nginx.urls[0]! : instances[0]!.url;
        const requests = way.requests(document);
        if (way.target === "nginx") {
          for (const request of requests) {
            const stored = await get(url + request.path, PREFLIGHT);
            const again = await get(url + request.path, PREFLIGHT);
            if (stored.status !== 200 || again.cache !== "HIT")
              throw new Error(`${request.path} was not stored (${stored.status}, then ${again.cache}): ${stored.body}`);
          }
        }
        process.stderr.write(`${document.name}, ${way.name}: ${seconds} s, ${connections} connections\n`);
        const drive = (duration: number) =>
          autocannon({
            url,
            connections,
            duration,
            pipelining: 1,
            timeout: 10,
            requests,
            verifyBody: (body) => !body.includes('"errors"'),
          });
        await drive(3);
        const servedBefore = await servedBy(instances);
        const cpuBefore = cpu();
        const nginxBefore = nginxPid ? cpuSecondsOfTree(nginxPid) : null;
        const result = await drive(seconds);
        const cpuAfter = cpu();
        const nginxAfter = nginxPid ? cpuSecondsOfTree(nginxPid) : null;
        const reached = (await servedBy(instances)) - servedBefore;
        const answered = result.requests.total;
        const perRequest = (cpuSeconds: number) =>
          Number.isFinite(cpuSeconds) && answered > 0 ? Math.round((cpuSeconds * 1e6) / answered) / 1000 : null;
        rows.push({
          scenario: document.name,
          way: way.name,
          reqPerSec: Math.round(answered / result.duration),
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          failures: result.errors + result.timeouts + result.non2xx + result.mismatches,
          reachedService: reached,
          serviceCpuMsPerRequest: perRequest(cpuAfter - cpuBefore),
          nginxCpuMsPerRequest:
            way.target === "nginx" && nginxBefore && nginxAfter
              ? perRequest(cpuSecondsBetween(nginxBefore, nginxAfter))
              : null,
        });
      }
    }
  } finally {
    await cleanUp();
  }
  const header = [
    "scenario",
    "sent as",
    "req/s",
    "p50 ms",
    "p99 ms",
    "failures",
    "reached the service",
    "service CPU ms/req",
    "nginx CPU ms/req",
  ];
  const cells = rows.map((r) => [
    r.scenario,
    r.way,
    String(r.reqPerSec),
    String(r.p50Ms),
    String(r.p99Ms),
    String(r.failures),
    String(r.reachedService),
    String(r.serviceCpuMsPerRequest ?? "?"),
    String(r.nginxCpuMsPerRequest ?? ""),
  ]);
  const lines = markdownTable(header, cells);
  console.log(`\n${lines.join("\n")}`);
  console.log(`\n${loadAverageLine(loadStart)}`);
  if (values.json)
    writeFileSync(
      values.json,
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, seconds, connections, size, rows, table: lines }, null, 2)}\n`,
    );
  if (rows.some((r) => r.failures > 0)) process.exitCode = 1;
}

await main();
