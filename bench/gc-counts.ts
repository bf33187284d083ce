// `npm run bench:gc -- --database URL [--seconds 60] [--only TEXT]`: how often the server's V8 runs a
// full (mark-compact) collection while serving one search at a steady rate, and why, with the
// service's V8 options (bench/processes.ts SERVICE_NODE_FLAGS) and with each of them left out in
// turn. Counts, not times: full collections per 10,000 requests, the old generation's growth per
// request, the live heap a full collection leaves, and the pauses as a share of the window, read
// from V8's own trace (`--trace-gc-nvp`). On a shared machine the counts still mean something; the
// pauses in ms are the machine's (docs/performance.md "Full collections at high rates").
import "../src/node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import { parseArgs } from "node:util";
import { pacedLatencyApart } from "./paced-apart.ts";
import { SERVICE_NODE_FLAGS, startProcess } from "./processes.ts";

const { values } = parseArgs({
  options: { database: { type: "string" }, seconds: { type: "string" }, only: { type: "string" } },
});
if (!values.database) throw new Error("--database URL is needed (file:... or postgresql://...)");
const SECONDS = Number(values.seconds ?? 60);
const LULL_SECONDS = 15;

const LISBON = { latitude: 38.7223, longitude: -9.1393 };
/** Reads of `npm run bench:search` whose windows held full collections, each at a fixed rate (req/s). */
const READS: [string, number, string, Record<string, unknown>][] = [
  [
    "near 50 km, by rating, totalCount",
    40,
    `query($f: RestaurantFilter) { restaurants(filter: $f, sort: RATING) { totalCount nodes { id title rating } } }`,
    { f: { near: { ...LISBON, radiusKm: 50 } } },
  ],
  [
    "facets of everything",
    300,
    `{ restaurants(first: 1) { totalCount facets { exact cuisines { value count } categories { value count } priceRanges { value count } cities { value count } } } }`,
    {},
  ],
  [
    "page of 50, newest, with totalCount",
    300,
    `{ restaurants(first: 50) { totalCount nodes { id title rating } } }`,
    {},
  ],
];

type Collection = { full: boolean; reason: string; pauseMs: number; endBytes: number; promoted: number };

/**
 * Every isolate's collections in `trace`, by isolate. Node 26 prints `GC: {"gc":"s",...}`, Node 22
 * and 24 `pause=... gc=s ...`; the lines start with `[pid:isolate`.
 */
function collectionsByIsolate(trace: string): Map<string, (Collection & { allocated: number })[]> {
  const byIsolate = new Map<string, (Collection & { allocated: number })[]>();
  for (const line of trace.split("\n")) {
    const isolate = /^\[\d+:(0x[0-9a-f]+)/.exec(line)?.[1];
    if (!isolate || !(line.includes(' GC: {"') || line.includes(" gc="))) continue;
    let fields: Record<string, unknown>;
    if (line.includes(' GC: {"')) {
      try {
        fields = JSON.parse(line.slice(line.indexOf("{"))) as Record<string, unknown>;
      } catch {
        continue; // a line cut at the window's edge
      }
    } else fields = Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    const list = byIsolate.get(isolate) ?? [];
    list.push({
      full: fields.gc === "mc",
      reason: String(fields.reason ?? (fields.reduce_memory === true || fields.reduce_memory === "1" ? "reduce" : "?")),
      pauseMs: Number(fields.pause),
      endBytes: Number(fields.end_object_size),
      promoted: Number(fields.promoted ?? 0),
      allocated: Number(fields.allocated ?? 0),
    });
    byIsolate.set(isolate, list);
  }
  return byIsolate;
}

/** The main thread's isolate: the one that allocated most (each SQLite reader thread has its own, and tsx's loader). */
function mainIsolate(trace: string): string | undefined {
  const totals = [...collectionsByIsolate(trace)].map(
    ([isolate, list]) => [isolate, list.reduce((sum, c) => sum + c.allocated, 0)] as const,
  );
  return totals.sort((a, b) => b[1] - a[1])[0]?.[0];
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const only = values.only?.split(",");
// The service's options, then each left out (the first is what `main` ran before the second was added).
const flagSets = [
  SERVICE_NODE_FLAGS,
  ...SERVICE_NODE_FLAGS.map((left) => SERVICE_NODE_FLAGS.filter((flag) => flag !== left)),
];
console.log(
  `| read | req/s | V8 options | full GCs (why) | per 10,000 requests | old generation's growth per request | live heap after a full GC, MB | full GC pauses: longest ms / share of the window | young GC pauses: share |\n|---|---|---|---|---|---|---|---|---|`,
);
for (const [label, rate, query, variables] of READS.filter(([l]) => !only || only.some((part) => l.includes(part)))) {
  for (const flags of flagSets) {
    let trace = "";
    const server = await startProcess(
      process.execPath,
      [...flags, "--trace-gc-nvp", "--import", "tsx", "src/main.ts"],
      {
        NODE_ENV: "production",
        DATABASE_URL: values.database,
        RATE_LIMIT_MAX: "0",
        ANONYMOUS_READS: "true",
        LOG_LEVEL: "warn",
        UPLOAD_DIR: "/tmp/gw-gc-counts",
      },
      undefined,
      (chunk) => (trace += chunk),
    );
    try {
      const post = async (body: unknown) => {
        const res = await fetch(`${server.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        const answer = (await res.json()) as { errors?: unknown; data?: unknown };
        if (answer.errors) throw new Error(JSON.stringify(answer.errors).slice(0, 300));
        return answer.data;
      };
      // One account per connection, as bench:search's paced load (the fair share is per client),
      // registered one after the other.
      const tokens: string[] = [];
      for (let i = 0; i < 8; i++) {
        const username = `gc${i}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
        const data = (await post({
          query: `mutation($input: RegisterInput!) { register(input: $input) { accessToken } }`,
          variables: { input: { username, password: "correct-horse", firstName: "Gee" } },
        })) as { register: { accessToken: string } };
        tokens.push(data.register.accessToken);
      }
      for (let i = 0; i < 12; i++) await post({ query, variables });
      const requests = tokens.map((token) => ({
        method: "POST" as const,
        path: "/graphql",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ query, variables }),
      }));
      // A lull first, as between two reads of bench:search. Without it (and with the accounts
      // registered at once) a fresh server ran its first minutes on a limit V8 set at start-up
      // (~240 MB), and the window showed no full collection without the floor either.
      await new Promise((resolve) => setTimeout(resolve, LULL_SECONDS * 1000));
      const pace = { url: server.url, requests, connections: 8, rate, graphql: true };
      await pacedLatencyApart({ ...pace, durationSec: 2 });
      const from = trace.length;
      const paced = await pacedLatencyApart({ ...pace, durationSec: SECONDS });
      const to = trace.length;
      const main = mainIsolate(trace);
      const before = collectionsByIsolate(trace.slice(0, from)).get(main!) ?? [];
      const window = collectionsByIsolate(trace.slice(from, to)).get(main!) ?? [];
      const answered = Math.round(paced.achieved * SECONDS);
      const full = window.filter((c) => c.full);
      const young = window.filter((c) => !c.full);
      const reasons = new Map<string, number>();
      for (const c of full) reasons.set(c.reason, (reasons.get(c.reason) ?? 0) + 1);
      // Growth of the old generation from one young collection to the next (none between): what was
      // promoted plus what was allocated there directly (code, large or pretenured objects).
      let grown = 0;
      let spanned = 0;
      for (let i = 1; i < window.length; i++) {
        if (window[i]!.full || window[i - 1]!.full) continue;
        grown += window[i]!.endBytes - window[i - 1]!.endBytes;
        spanned++;
      }
      const perRequest = spanned ? grown / spanned / (answered / Math.max(1, young.length)) : 0;
      const lastFull = [...before, ...window].filter((c) => c.full).at(-1);
      const pauseShare = (list: Collection[]) =>
        `${((list.reduce((sum, c) => sum + c.pauseMs, 0) / (SECONDS * 1000)) * 100).toFixed(2)}%`;
      console.log(
        `| ${label} | ${rate} | ${flags.join(" ")} | ${full.length}${reasons.size ? ` (${[...reasons].map(([r, n]) => `${n} ${r}`).join("; ")})` : ""} | ${((full.length / answered) * 10_000).toFixed(1)} | ${(perRequest / 1024).toFixed(2)} KiB (promoted ${(young.reduce((s, c) => s + c.promoted, 0) / answered / 1024).toFixed(2)}) | ${lastFull ? mb(lastFull.endBytes) : "-"} | ${full.length ? Math.max(...full.map((c) => c.pauseMs)).toFixed(0) : "-"} / ${pauseShare(full)} | ${pauseShare(young)} |${paced.failed ? ` ${paced.failed} failed` : ""}`,
      );
    } finally {
      await server.stop();
    }
  }
}
