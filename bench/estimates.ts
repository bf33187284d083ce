// `npm run bench:estimates -- --database URL [--cluster 100]`: how close the estimated totals and
// facet counts are to the true ones, on a catalogue loaded city by city (the case the samplers of
// contiguous blocks got 2x wrong, issue 48). `--cluster N` first rewrites the database's
// restaurants as N copies of each, written city after city (their tags and opening hours with
// them; the originals deleted), so each true total is N times the seed's; seed the database first
// (`npm run seed -- --size large`, DATABASE_URL naming it) and use a copy you can lose. Then two
// servers read the same searches: one with the usual settings (estimates past
// SEARCH_EXACT_COUNT_LIMIT), one counting everything (SEARCH_EXACT_COUNT_LIMIT=1000000). Prints,
// for every total and facet count the first said was estimated, the share within each stated
// bound (the schema's descriptions: 95% within ±10% when the count is at least 8% of the
// catalogue, within ±20% when at least 2%; search/totals.ts), "holds" or "FAILS" for each, and the
// worst ones. No timings: `npm run bench:search` has them.
import "../src/node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import Database from "better-sqlite3";
import { parseArgs } from "node:util";
import pg from "pg";
import { sqliteFilePath } from "../src/db/sqlite/file.ts";
import { isPostgresUrl } from "./databases.ts";
import { startService, type Service } from "./processes.ts";

const { values } = parseArgs({ options: { database: { type: "string" }, cluster: { type: "string" } } });
if (!values.database) throw new Error("--database URL is needed (file:... or postgresql://...)");
const url = values.database;

/** Runs statements on the database with its plain driver; returns the rows of the last one. */
async function sql(statements: string[]): Promise<Record<string, unknown>[]> {
  if (isPostgresUrl(url)) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      let rows: Record<string, unknown>[] = [];
      for (const s of statements) rows = (await client.query(s)).rows;
      return rows;
    } finally {
      await client.end();
    }
  }
  const db = new Database(sqliteFilePath(url));
  try {
    let rows: Record<string, unknown>[] = [];
    for (const s of statements) {
      const st = db.prepare(s);
      rows = st.reader ? (st.all() as Record<string, unknown>[]) : (st.run(), []);
    }
    return rows;
  } finally {
    db.close();
  }
}

async function columnsOf(table: string): Promise<string[]> {
  const rows = isPostgresUrl(url)
    ? await sql([
        `SELECT column_name AS name FROM information_schema.columns WHERE table_name = '${table}' AND table_schema = current_schema() ORDER BY ordinal_position`,
      ])
    : await sql([`SELECT name FROM pragma_table_info('${table}')`]);
  return rows.map((r) => String(r.name));
}

/** N copies of every restaurant (id "<id>~<k>"), city after city, with their tags and hours; the originals deleted. */
async function cluster(copies: number) {
  const copiesCte = `WITH RECURSIVE c(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM c WHERE k < ${copies - 1})`;
  const copyOf = async (table: string, key: string, order: string) => {
    const cols = await columnsOf(table);
    const picked = cols.map((c) => (c === key ? `r."${c}" || '~' || c.k` : `r."${c}"`));
    return `INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(", ")}) ${copiesCte}
      SELECT ${picked.join(", ")} FROM "${table}" r CROSS JOIN c WHERE r."${key}" NOT LIKE '%~%' ORDER BY ${order}`;
  };
  const started = Date.now();
  const begin = isPostgresUrl(url) ? "BEGIN" : "BEGIN IMMEDIATE";
  await sql([
    begin,
    await copyOf("Restaurant", "id", `r."citySearch", c.k, r."id"`),
    await copyOf("RestaurantTag", "restaurantId", `r."restaurantId", c.k`),
    await copyOf("OpeningHours", "restaurantId", `r."restaurantId", c.k`),
    `DELETE FROM "Restaurant" WHERE "id" NOT LIKE '%~%'`,
    "COMMIT",
  ]);
  await sql([isPostgresUrl(url) ? "VACUUM (ANALYZE)" : "PRAGMA wal_checkpoint(TRUNCATE)"]);
  console.log(
    `clustered: ${copies} copies of each restaurant, city after city (${Math.round((Date.now() - started) / 1000)} s)`,
  );
}

if (values.cluster) await cluster(Number(values.cluster));
const [{ n: restaurants }] = (await sql([`SELECT COUNT(*) AS "n" FROM "Restaurant"`])) as [{ n: number }];
const catalogue = Number(restaurants);

// The searches: near each city's centre at four radii; each city's two commonest cuisines with a
// minimum rating and a price; words; words with a city; open at 20:00 UTC in a city.
const cities = (await sql([
  `SELECT "city" AS "city", "citySearch" AS "key", AVG("latitude") AS "latitude", AVG("longitude") AS "longitude", COUNT(*) AS "n"
   FROM "Restaurant" WHERE "latitude" IS NOT NULL GROUP BY "city", "citySearch" ORDER BY COUNT(*) DESC LIMIT 12`,
])) as { city: string; key: string; latitude: number; longitude: number }[];
const cuisines = (
  await sql([
    `SELECT "valueKey" AS "key" FROM "RestaurantTag" WHERE "kind" = 'CUISINE' GROUP BY "valueKey" ORDER BY COUNT(*) DESC LIMIT 8`,
  ])
).map((r) => String(r.key));
const WORDS = ["pizza margherita", "pizza", "ramen", "sushi", "burger", "curry", "tapas", "noodles", "grill", "vegan"];
const filters: Record<string, unknown>[] = [];
for (const c of cities) {
  for (const radiusKm of [1, 2, 5, 10])
    filters.push({ near: { latitude: Number(c.latitude), longitude: Number(c.longitude), radiusKm } });
  filters.push({ city: c.key, minRating: 3 });
  filters.push({ city: c.key, openAt: "2026-11-26T20:00:00Z" });
}
for (let i = 0; i + 1 < cuisines.length; i += 2) {
  filters.push({ cuisines: { anyOf: [cuisines[i], cuisines[i + 1]] }, minRating: 4, priceRange: ["$$"] });
  filters.push({ cuisines: { anyOf: [cuisines[i], cuisines[i + 1]] }, minRating: 3 });
}
for (const w of WORDS) {
  filters.push({ search: w });
  filters.push({ search: w, city: cities[0]!.key });
}

/** The bounds the schema states: 95% of the estimates of counts of at least `part` of the catalogue within ±`margin`. */
const BOUNDS = [
  { part: 0.08, margin: 0.1 },
  { part: 0.02, margin: 0.2 },
];

const QUERY = `query($f: RestaurantFilter) { restaurants(filter: $f, first: 1) { totalCount totalCountIsEstimate
  facets { exact cuisines { value count } categories { value count } priceRanges { value count } cities { value count } } } }`;
type Answer = {
  totalCount: number;
  totalCountIsEstimate: boolean;
  facets: { exact: boolean } & Record<string, { value: string; count: number }[]>;
};
const LISTS = ["cuisines", "categories", "priceRanges", "cities"];

async function ask(server: Service, f: Record<string, unknown>): Promise<Answer> {
  const res = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: QUERY, variables: { f } }),
  });
  const body = (await res.json()) as { errors?: unknown; data?: { restaurants: Answer } };
  if (body.errors || !body.data) throw new Error(`${JSON.stringify(f)}: ${JSON.stringify(body.errors).slice(0, 300)}`);
  return body.data.restaurants;
}

const env = {
  NODE_ENV: "production",
  DATABASE_URL: url,
  RATE_LIMIT_MAX: "0",
  ANONYMOUS_READS: "true",
  LOG_LEVEL: "warn",
  UPLOAD_DIR: "/tmp/gw-estimates",
};
const estimating = await startService("src/main.ts", env);
const exact = await startService("src/main.ts", {
  ...env,
  SEARCH_EXACT_COUNT_LIMIT: "1000000",
  SEARCH_STATEMENT_TIMEOUT: "0",
});
try {
  type Compared = { what: string; estimate: number; truth: number };
  const totals: Compared[] = [];
  const counts: Compared[] = [];
  for (const f of filters) {
    const [e, x] = [await ask(estimating, f), await ask(exact, f)];
    if (x.totalCountIsEstimate || !x.facets.exact) throw new Error(`the exact server estimated ${JSON.stringify(f)}`);
    if (e.totalCountIsEstimate) totals.push({ what: JSON.stringify(f), estimate: e.totalCount, truth: x.totalCount });
    if (e.facets.exact) continue;
    for (const list of LISTS) {
      const truth = new Map(x.facets[list]!.map((v) => [v.value, v.count]));
      for (const v of e.facets[list]!) {
        // A value the exact server lists below its top 20 has no exact count here: left out.
        const t = truth.get(v.value);
        if (t !== undefined)
          counts.push({ what: `${JSON.stringify(f)} ${list} ${v.value}`, estimate: v.count, truth: t });
      }
    }
  }
  const within = (c: Compared, margin: number) => Math.abs(c.estimate - c.truth) <= margin * c.truth;
  const share = (cs: Compared[], margin: number) =>
    cs.length
      ? `${((100 * cs.filter((c) => within(c, margin)).length) / cs.length).toFixed(1)}% of ${cs.length}`
      : "none";
  const atLeast = (cs: Compared[], part: number) => cs.filter((c) => c.truth >= part * catalogue);
  const worst = (cs: Compared[]) =>
    [...cs]
      .sort((a, b) => Math.abs(b.estimate / b.truth - 1) - Math.abs(a.estimate / a.truth - 1))
      .slice(0, 5)
      .map(
        (c) => `  ${c.estimate} for ${c.truth} (${((100 * (c.estimate - c.truth)) / c.truth).toFixed(0)}%): ${c.what}`,
      )
      .join("\n");
  console.log(`catalogue: ${catalogue} restaurants; ${filters.length} searches`);
  for (const [name, cs] of [
    ["estimated totals", totals],
    ["estimated facet counts", counts],
  ] as const) {
    console.log(`${name}: within ±10% ${share(cs, 0.1)}; within ±20% ${share(cs, 0.2)}`);
    for (const { part, margin } of BOUNDS) {
      const kept = atLeast(cs, part);
      const held = kept.filter((c) => within(c, margin)).length >= 0.95 * kept.length;
      console.log(
        `  of those at least ${100 * part}% of the catalogue, within ±${100 * margin}%: ${share(kept, margin)} (${held ? "holds" : "FAILS"})`,
      );
    }
  }
  console.log(
    `worst totals:\n${worst(totals)}\nworst facet counts (at least 2% of the catalogue):\n${worst(atLeast(counts, 0.02))}`,
  );
} finally {
  await estimating.stop();
  await exact.stop();
}
