// `npm run bench:search -- --database URL [--runs 15]`: the reads of issue 31's table, and the new
// ones, each sent one at a time through the real server (production mode) against an already
// seeded database (`npm run seed -- --size 200k`), median and p99 of `--runs` requests after one
// warm-up; then /healthz sampled every 20 ms while 8 connections flood the most expensive search
// any user can send (words, near at the largest radius, open now, facets, totalCount).
// Prints a Markdown table. The same requests on every size and database make the columns comparable.
import { parseArgs } from "node:util";
import { rssMbOf, startService } from "./processes.ts";

const { values } = parseArgs({ options: { database: { type: "string" }, runs: { type: "string" }, flood: { type: "string" } } });
if (!values.database) throw new Error("--database URL is needed (file:... or postgresql://...)");
const RUNS = Number(values.runs ?? 15);
const FLOOD_SECONDS = Number(values.flood ?? 10);

const LISBON = { latitude: 38.7223, longitude: -9.1393 };
/** Restaurant searches of the table, then the new reads. */
const READS: [string, string, Record<string, unknown>][] = [
  ["page of 50, newest, with totalCount", `{ restaurants(first: 50) { totalCount nodes { id title rating } } }`, {}],
  ["text \"pizz\", 20, with totalCount", `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title } } }`, { f: { text: "pizz" } }],
  ["text that matches nothing", `query($f: RestaurantFilter) { restaurants(filter: $f) { nodes { id title } } }`, { f: { text: "zzqx" } }],
  ["cuisine \"Italian\", with totalCount", `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title } } }`, { f: { cuisine: "italian" } }],
  ["cuisine + city, by rating", `query($f: RestaurantFilter) { restaurants(filter: $f, sort: RATING) { nodes { id title rating } } }`, { f: { cuisine: "italian", city: "lisbon" } }],
  ["words \"pizza margherita\", relevance, totalCount", `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title } } }`, { f: { search: "pizza margherita" } }],
  ["words with a typo \"pizzaria\"", `query($f: RestaurantFilter) { restaurants(filter: $f) { nodes { id title } } }`, { f: { search: "pizzaria" } }],
  ["words that match nothing", `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title } } }`, { f: { search: "zzqxw" } }],
  ["near 2 km, by distance, totalCount", `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { id title distanceKm } } }`, { f: { near: { ...LISBON, radiusKm: 2 } } }],
  ["open now + city", `query($f: RestaurantFilter) { restaurants(filter: $f) { nodes { id title } } }`, { f: { openNow: true, city: "lisbon" } }],
  ["any of 2 cuisines, min rating 4, price $$", `query($f: RestaurantFilter) { restaurants(filter: $f, sort: RATING) { totalCount nodes { id title } } }`, { f: { cuisines: { anyOf: ["italian", "japanese"] }, minRating: 4, priceRange: ["$$"] } }],
  ["facets of everything", `{ restaurants(first: 1) { totalCount facets { exact cuisines { value count } categories { value count } priceRanges { value count } cities { value count } } } }`, {}],
  ["facets of \"pizza\" near, open now", `query($f: RestaurantFilter) { restaurants(filter: $f, first: 10) { totalCount facets { exact cuisines { value count } categories { value count } } nodes { id title } } }`, { f: { search: "pizza", near: { ...LISBON, radiusKm: 5 }, openNow: true } }],
  ["groceries: words \"olive oil\", totalCount", `query($f: GroceryFilter) { groceries(filter: $f) { totalCount nodes { id title } } }`, { f: { search: "olive oil" } }],
];
/** The most expensive search a user can send within the limits. */
const WORST = {
  query: `query($f: RestaurantFilter) { restaurants(filter: $f, first: 100) { totalCount facets { exact cuisines { value count } categories { value count } priceRanges { value count } cities { value count } } nodes { id title distanceKm } } }`,
  variables: { f: { search: "a", near: { ...LISBON, radiusKm: 50 }, openNow: true, text: "e" } },
};

const quantile = (values: number[], q: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

const server = await startService("src/main.ts", {
  NODE_ENV: "production", DATABASE_URL: values.database, RATE_LIMIT_MAX: "0", ANONYMOUS_READS: "true", LOG_LEVEL: "warn", UPLOAD_DIR: "/tmp/gw-search-table",
});
try {
  {
    const post = async (query: string, variables: Record<string, unknown>) => {
      const started = performance.now();
      const res = await fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
      const body = (await res.json()) as { errors?: unknown };
      if (body.errors) throw new Error(`${query}: ${JSON.stringify(body.errors).slice(0, 300)}`);
      return performance.now() - started;
    };
    console.log(`| read | median ms | p99 ms |\n|---|---|---|`);
    for (const [label, query, variables] of READS) {
      await post(query, variables);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await post(query, variables));
      console.log(`| ${label} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.99).toFixed(1)} |`);
    }
    const worst = await post(WORST.query, WORST.variables);
    // /healthz every 20 ms, alone, then while 8 connections send the worst search back to back.
    const health = async (seconds: number, during?: Promise<unknown>) => {
      const times: number[] = [];
      const until = Date.now() + seconds * 1000;
      while (Date.now() < until) {
        const started = performance.now();
        await fetch(`${server.url}/healthz`);
        times.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 20));
      }
      await during;
      return times;
    };
    const quiet = await health(3);
    const rssBefore = rssMbOf(server.pid);
    let rssPeak = rssBefore ?? 0;
    const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, rssMbOf(server.pid) ?? 0)), 250);
    let sent = 0;
    const stopAt = Date.now() + FLOOD_SECONDS * 1000;
    const flood = Promise.all(Array.from({ length: 8 }, async () => {
      while (Date.now() < stopAt) {
        await post(WORST.query, WORST.variables);
        sent++;
      }
    }));
    const busy = await health(FLOOD_SECONDS, flood);
    clearInterval(rssTimer);
    console.log(`\nmost expensive search: ${worst.toFixed(0)} ms alone; ${sent} sent by 8 connections in ${FLOOD_SECONDS} s`);
    console.log(`server RSS: ${rssBefore?.toFixed(0)} MB before the flood, at most ${rssPeak.toFixed(0)} MB during it (reader threads included)`);
    console.log(`/healthz p50/p99/max: quiet ${quantile(quiet, 0.5).toFixed(1)}/${quantile(quiet, 0.99).toFixed(1)}/${Math.max(...quiet).toFixed(1)} ms; during the flood ${quantile(busy, 0.5).toFixed(1)}/${quantile(busy, 0.99).toFixed(1)}/${Math.max(...busy).toFixed(1)} ms`);
  }
} finally {
  await server.stop();
}
