// `npm run bench:search -- --database URL [--runs 15] [--paced] [--flood 10]`: the reads of issue
// 31's table, and the new ones, each sent one at a time through the real server (production mode)
// against an already seeded database (`npm run seed -- --size 200k`, denser with `--cities 2`), median and p99 of `--runs`
// requests after one warm-up. `--paced`: also each read's saturation rate (8 connections, each its own account, 3 s)
// and its p99 with steady arrivals at half that rate (5 s, after 2 s at it unmeasured), the
// issue's target. Then /healthz
// sampled every 20 ms, and another client's ordinary search every 100 ms, while one client (one
// account) sends the most expensive search any user can send over 8 connections (words, near at
// the largest radius, open now, facets, totalCount).
// `--only TEXT`: just the reads whose label contains TEXT (several: comma-separated), no flood
// unless one of them is "flood" (`--only flood`: the flood alone).
// Prints a Markdown table. The same requests on every size and database make the columns comparable.
// Each read is the same search again and again: past the exact-count limit its estimate is reused
// (SEARCH_ESTIMATES_MAX_AGE); `SEARCH_ESTIMATES_MAX_AGE=0 npm run bench:search ...` measures each
// search counted and sampled anew, as a search nobody sent in the last seconds is.
import "../src/node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { pacedLatencyApart } from "./paced-apart.ts";
import { rssMbOf, startService } from "./processes.ts";
import { readCounters } from "./prometheus.ts";

const { values } = parseArgs({
  options: {
    database: { type: "string" },
    runs: { type: "string" },
    flood: { type: "string" },
    paced: { type: "boolean" },
    only: { type: "string" },
  },
});
if (!values.database) throw new Error("--database URL is needed (file:... or postgresql://...)");
const RUNS = Number(values.runs ?? 15);
const FLOOD_SECONDS = Number(values.flood ?? 10);

const LISBON = { latitude: 38.7223, longitude: -9.1393 };
/** Restaurant searches of the issue's table, then the new reads. */
const READS: [string, string, Record<string, unknown>][] = [
  ["page of 50, newest, with totalCount", `{ restaurants(first: 50) { totalCount nodes { id title rating } } }`, {}],
  [
    'text "pizz", 20, with totalCount',
    `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title } } }`,
    { f: { text: "pizz" } },
  ],
  [
    "text that matches nothing",
    `query($f: RestaurantFilter) { restaurants(filter: $f) { nodes { id title } } }`,
    { f: { text: "zzqx" } },
  ],
  [
    'cuisine "Italian", with totalCount',
    `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title } } }`,
    { f: { cuisine: "italian" } },
  ],
  [
    "cuisine + city, by rating",
    `query($f: RestaurantFilter) { restaurants(filter: $f, sort: RATING) { nodes { id title rating } } }`,
    { f: { cuisine: "italian", city: "lisbon" } },
  ],
  [
    'words "pizza margherita", relevance, totalCount',
    `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title } } }`,
    { f: { search: "pizza margherita" } },
  ],
  [
    'words with a typo "pizzaria"',
    `query($f: RestaurantFilter) { restaurants(filter: $f) { nodes { id title } } }`,
    { f: { search: "pizzaria" } },
  ],
  [
    "words that match nothing",
    `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title } } }`,
    { f: { search: "zzqxw" } },
  ],
  [
    "near 2 km, by distance, totalCount",
    `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title distanceKm } } }`,
    { f: { near: { ...LISBON, radiusKm: 2 } } },
  ],
  // A wide circle around a city centre (the densest place of a catalogue seeded with --cities).
  [
    "near 50 km, by rating, totalCount",
    `query($f: RestaurantFilter) { restaurants(filter: $f, sort: RATING) { totalCount nodes { id title rating } } }`,
    { f: { near: { ...LISBON, radiusKm: 50 } } },
  ],
  [
    'words "pizza" near 50 km, relevance, totalCount',
    `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title } } }`,
    { f: { search: "pizza", near: { ...LISBON, radiusKm: 50 } } },
  ],
  [
    "open now + city",
    `query($f: RestaurantFilter) { restaurants(filter: $f) { nodes { id title } } }`,
    { f: { openNow: true, city: "lisbon" } },
  ],
  // The same at fixed instants, so that runs at different hours compare: 05:00 UTC, when no Lisbon
  // restaurant of the seed is open (the whole city was read), and 20:00 UTC, when most are.
  [
    "open at 05:00 UTC + city",
    `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title } } }`,
    { f: { openAt: "2026-11-26T05:00:00Z", city: "lisbon" } },
  ],
  [
    "open at 20:00 UTC + city",
    `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title } } }`,
    { f: { openAt: "2026-11-26T20:00:00Z", city: "lisbon" } },
  ],
  [
    "any of 2 cuisines, min rating 4, price $$",
    `query($f: RestaurantFilter) { restaurants(filter: $f, sort: RATING) { totalCount nodes { id title } } }`,
    { f: { cuisines: { anyOf: ["italian", "japanese"] }, minRating: 4, priceRange: ["$$"] } },
  ],
  [
    "facets of everything",
    `{ restaurants(first: 1) { totalCount facets { exact cuisines { value count } categories { value count } priceRanges { value count } cities { value count } } } }`,
    {},
  ],
  [
    'facets of "pizza" near, open now',
    `query($f: RestaurantFilter) { restaurants(filter: $f, first: 10) { totalCount facets { exact cuisines { value count } categories { value count } } nodes { id title } } }`,
    { f: { search: "pizza", near: { ...LISBON, radiusKm: 5 }, openNow: true } },
  ],
  [
    'facets of "pizza" near, open at 20:00 UTC',
    `query($f: RestaurantFilter) { restaurants(filter: $f, first: 10) { totalCount facets { exact cuisines { value count } categories { value count } } nodes { id title } } }`,
    { f: { search: "pizza", near: { ...LISBON, radiusKm: 5 }, openAt: "2026-11-26T20:00:00Z" } },
  ],
  [
    'groceries: words "olive oil", totalCount',
    `query($f: GroceryFilter) { groceries(filter: $f) { totalCount nodes { id title } } }`,
    { f: { search: "olive oil" } },
  ],
];
/**
 * The most expensive search a user can send within the limits: "bu" is the seeded vocabulary's
 * broadest two-letter prefix (404,235 of 1,000,000 restaurants; a one-letter word is no prefix);
 * "the", the shortest part of a title GraphQL takes (3 characters), is in a quarter of the titles.
 */
const WORST = {
  query: `query($f: RestaurantFilter) { restaurants(filter: $f, first: 100) { totalCount facets { exact cuisines { value count } categories { value count } priceRanges { value count } cities { value count } } nodes { id title distanceKm } } }`,
  variables: { f: { search: "bu", near: { ...LISBON, radiusKm: 50 }, openNow: true, text: "the" } },
};
let worstSent = 0;
/**
 * The widest search's variables, its radius 10 cm shorter each time: a search of its own, as a
 * flooder would send to get no estimate reused (SEARCH_ESTIMATES_MAX_AGE).
 */
const worstVariables = () => ({
  f: { ...WORST.variables.f, near: { ...LISBON, radiusKm: 50 - ++worstSent * 1e-4 } },
});

const quantile = (values: number[], q: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

const server = await startService("src/main.ts", {
  NODE_ENV: "production",
  DATABASE_URL: values.database,
  METRICS_ENABLED: "true",
  RATE_LIMIT_MAX: "0",
  ANONYMOUS_READS: "true",
  LOG_LEVEL: "warn",
  UPLOAD_DIR: "/tmp/gw-search-table",
});
try {
  table: {
    const post = async (query: string, variables: Record<string, unknown>, token?: string) => {
      const started = performance.now();
      const headers: Record<string, string> = {
        "content-type": "application/json",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      };
      const res = await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers,
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as { errors?: unknown; data?: unknown };
      if (body.errors) throw new Error(`${query}: ${JSON.stringify(body.errors).slice(0, 300)}`);
      return { ms: performance.now() - started, data: body.data };
    };
    const time = async (query: string, variables: Record<string, unknown>, token?: string) =>
      (await post(query, variables, token)).ms;
    // The first read of a cold cache (the database's files out of the OS's cache after another
    // database's run) may pass SEARCH_STATEMENT_TIMEOUT and answer SERVER_BUSY: not what is measured.
    const warmUp = async (query: string, variables: Record<string, unknown>) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await time(query, variables);
        } catch (error) {
          if (attempt >= 5 || !String(error).includes("SERVER_BUSY")) throw error;
          console.error(`warm-up answered SERVER_BUSY (cold cache?), attempt ${attempt}`);
        }
      }
    };
    const account = async (name: string) => {
      const username = `${name}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
      const { data } = await post(`mutation($input: RegisterInput!) { register(input: $input) { accessToken } }`, {
        input: { username, password: "correct-horse", firstName: name },
      });
      return (data as { register: { accessToken: string } }).register.accessToken;
    };
    // The saturation and paced loads' accounts, one per connection.
    const readers = await Promise.all(Array.from({ length: 8 }, () => account("reader")));
    // Which catalogue this is, from its own counts: the same reads mean little apart from it.
    const { data: counted } = await post(
      `{ restaurants(first: 1) { totalCount facets { exact cities { value count } } } }`,
      {},
    );
    const { totalCount, facets } = (
      counted as {
        restaurants: { totalCount: number; facets: { exact: boolean; cities: { value: string; count: number }[] } };
      }
    ).restaurants;
    const cities = facets.cities.filter((c) => c.count > 0);
    console.log(
      `catalogue: ${totalCount.toLocaleString("en")} restaurants in ${cities.length} cities (${cities.map((c) => `${c.value} ${c.count.toLocaleString("en")}`).join(", ")}${facets.exact ? "" : "; estimated"}); the reads near a centre are near Lisbon's\n`,
    );
    console.log(
      `| read | median ms | p99 ms |${values.paced ? " saturation req/s | p99 ms at half | server's longest stall / GC pauses in all, ms then |" : ""}\n|---|---|---|${values.paced ? "---|---|---|" : ""}`,
    );
    const only = values.only?.split(",");
    for (const [label, query, variables] of READS.filter(
      ([label]) => !only || only.some((part) => label.includes(part)),
    )) {
      await warmUp(query, variables);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await time(query, variables));
      let paced = "";
      if (values.paced) {
        // Each connection is its own account: one client holds only its share of the readers
        // (src/db/share/fair-share.ts), and saturation is the server's, not one client's.
        const requests = readers.map((token) => ({
          method: "POST" as const,
          path: "/graphql",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({ query, variables }),
        }));
        let connection = 0;
        const saturated = await autocannon({
          url: server.url,
          connections: readers.length,
          duration: 3,
          pipelining: 1,
          timeout: 10,
          requests: [requests[0]!],
          setupClient: (client) => client.setRequests([requests[connection++ % requests.length]!]),
        });
        const saturation = saturated.requests.total / saturated.duration;
        const pace = {
          url: server.url,
          requests, // in turn: consecutive requests are different accounts
          connections: readers.length,
          rate: Math.max(1, Math.round(saturation / 2)),
          graphql: true,
        };
        // 2 s at that rate first, unmeasured, as `npm run bench --slo-settle` does: what is measured
        // is the steady state, not the saturation run's backlog.
        await pacedLatencyApart({ ...pace, durationSec: 2 });
        const before = await readCounters(server.url); // also starts a new event-loop delay window
        const half = await pacedLatencyApart({ ...pace, durationSec: 5 });
        const after = await readCounters(server.url);
        // The server's own longest stall, and its GC pauses added up and full collections, during it:
        // a p99 far above them was spent elsewhere (the machine).
        const majors = after.gcMajors - before.gcMajors;
        const own = `${(after.eventLoopLagMaxSeconds * 1000).toFixed(0)} / ${((after.gcSeconds - before.gcSeconds) * 1000).toFixed(0)}${majors ? ` (${majors} full)` : ""}`;
        paced = ` ${saturation.toFixed(0)} | ${half.p99.toFixed(1)}${half.failed ? ` (${half.failed} failed)` : ""} | ${own} |`;
      }
      console.log(`| ${label} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.99).toFixed(1)} |${paced}`);
    }
    if (only && !only.includes("flood")) break table;
    // One client (one account) floods; another client (another account) searches as usual.
    const flooder = await account("flooder");
    const other = await account("other");
    await warmUp(WORST.query, WORST.variables); // a cold file may answer SERVER_BUSY once (see warmUp)
    const worst = await time(WORST.query, worstVariables(), flooder);
    const ORDINARY = READS[4]!; // cuisine + city, by rating
    const otherQuiet: number[] = [];
    for (let i = 0; i < 20; i++) otherQuiet.push(await time(ORDINARY[1], ORDINARY[2], other));
    // /healthz every 20 ms and the other client's search every 100 ms, alone, then during the flood.
    const sample = async (seconds: number, every: number, probe: () => Promise<number>) => {
      const times: number[] = [];
      const until = Date.now() + seconds * 1000;
      while (Date.now() < until) {
        times.push(await probe());
        await new Promise((r) => setTimeout(r, every));
      }
      return times;
    };
    const healthz = async () => {
      const started = performance.now();
      await fetch(`${server.url}/healthz`);
      return performance.now() - started;
    };
    const quiet = await sample(3, 20, healthz);
    const rssBefore = rssMbOf(server.pid);
    let rssPeak = rssBefore ?? 0;
    const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, rssMbOf(server.pid) ?? 0)), 250);
    let sent = 0;
    const stopAt = Date.now() + FLOOD_SECONDS * 1000;
    const flood = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (Date.now() < stopAt) {
          await time(WORST.query, worstVariables(), flooder);
          sent++;
        }
      }),
    );
    const [busy, otherBusy] = await Promise.all([
      sample(FLOOD_SECONDS, 20, healthz),
      sample(FLOOD_SECONDS, 100, () => time(ORDINARY[1], ORDINARY[2], other)),
    ]);
    await flood;
    clearInterval(rssTimer);
    const spread = (t: number[]) =>
      `${quantile(t, 0.5).toFixed(1)}/${quantile(t, 0.99).toFixed(1)}/${Math.max(...t).toFixed(1)}`;
    console.log(
      `\nmost expensive search: ${worst.toFixed(0)} ms alone; ${sent} sent by one client over 8 connections in ${FLOOD_SECONDS} s`,
    );
    console.log(
      `server RSS: ${rssBefore?.toFixed(0)} MB before the flood, at most ${rssPeak.toFixed(0)} MB during it (reader threads included)`,
    );
    console.log(`/healthz p50/p99/max: quiet ${spread(quiet)} ms; during the flood ${spread(busy)} ms`);
    console.log(
      `another client's "${ORDINARY[0]}" p50/p99/max: quiet ${spread(otherQuiet)} ms; during the flood ${spread(otherBusy)} ms (${otherBusy.length} sent)`,
    );
  }
} catch (error) {
  // The server's own words when a request failed: it may have exited (how, and its last output).
  const exit = await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 100, "still running"))]);
  console.error(`server: ${JSON.stringify(exit)}; its last output:\n${server.output()}`);
  throw error;
} finally {
  await server.stop();
}
