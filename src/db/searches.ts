// Search pages as raw SQL, for the reason given in reads.ts: a page in one statement (a page of
// restaurants with what the request asks of each row, and its total when asked), with none of
// Prisma's per-query compile cost. Each filter is a condition the planner can drive from an index:
// - words (`search`): the databases' own full-text engines over derived tables the migration
//   20261125165326_search keeps up to date with triggers (SQLite FTS5 ranked by bm25, PostgreSQL
//   tsvector ranked by ts_rank); a long word missing from the vocabulary is widened to the stored
//   words one typo away;
// - title substring (the legacy `q`): a trigram index (FTS5 trigram / pg_trgm), then LIKE with its
//   wildcards escaped (Prisma's `contains` leaves them live, prisma/orm#19506);
// - list values: `id IN (tag rows)`, read from the (kind, valueKey, restaurantId) index;
// - near: a latitude and longitude box read from the (latitude, longitude) index, then the
//   great-circle distance;
// - open at: the wall-clock time in each restaurant's zone against its opening hours.
import { Prisma, providerOf, readRowsAside, type Db } from "./client.ts";
import {
  GROCERY,
  GROCERY_COLUMNS,
  query as queryOnLoop,
  relatedRowsOf,
  relatedSql,
  restaurantSelectList,
  type RestaurantColumn,
  type RestaurantRelations,
  type RestaurantWithRelated,
} from "./reads.ts";
import type { GroceryRow } from "./rows.ts";
import { TYPO_MIN_LENGTH, typoPrefixes, withinOneEdit } from "./search-words.ts";

/** One list condition: the row has at least one of these values (lower-cased search keys). */
export type TagCondition<K extends string> = { kind: K; keys: string[] };

export type Near = { latitude: number; longitude: number; radiusKm: number };

export type RestaurantSort = "RELEVANCE" | "DISTANCE" | "RATING" | "TITLE" | "NEWEST";

export type RestaurantQuery = {
  /** Words to find (search-words.ts); the last one also as a prefix. */
  words?: string[];
  titleKey?: string;
  /** Every condition must hold (all-of is one condition per value). */
  tags: TagCondition<"CATEGORY" | "CUISINE" | "PRICE_RANGE">[];
  cityKey?: string;
  canHomeDeliver?: boolean;
  acceptsReservations?: boolean;
  minRating?: number;
  near?: Near;
  openAt?: Date;
  sort: RestaurantSort;
};

export type GroceryQuery = { words?: string[]; titleKey?: string; tags: TagCondition<"CATEGORY">[]; sort: "RELEVANCE" | "NEWEST" };

export type Window = { skip: number; take: number };

type Provider = ReturnType<typeof providerOf>;
type Catalogue = "Restaurant" | "Grocery";
const OWNER_KEY: Record<Catalogue, string> = { Restaurant: `"restaurantId"`, Grocery: `"groceryId"` };

/** Every statement of a search runs aside: on SQLite, in a reader thread (client.ts). */
const query = <T>(db: Db, columns: Parameters<typeof queryOnLoop>[1], sql: Prisma.Sql) => queryOnLoop<T>(db, columns, sql, readRowsAside);

// ---- Words -------------------------------------------------------------------------------------

/** Most stored words looked at per misspelt word, and most alternatives kept. */
const VOCABULARY_PROBE = 2000;
const MAX_ALTERNATIVES = 8;

const nextPrefix = (prefix: string) => prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1)! + 1);

/** Stored words that start like `word` (its first two letters, or those two swapped). */
async function wordsLike(db: Db, provider: Provider, catalogue: Catalogue, word: string): Promise<string[]> {
  const ranges = typoPrefixes(word).map((p) => Prisma.sql`("term" >= ${p} AND "term" < ${nextPrefix(p)})`);
  const table = Prisma.raw(provider === "sqlite" ? `"${catalogue}SearchTerms"` : `"SearchTerm"`);
  const rows = await query<{ term: string }>(
    db,
    { term: "text" },
    Prisma.sql`SELECT "term" FROM ${table} WHERE ${Prisma.join(ranges, " OR ")} LIMIT ${Prisma.raw(String(VOCABULARY_PROBE))}`,
  );
  return rows.map((r) => r.term);
}

/**
 * Each word with what it may have meant: itself, and when it is long and no stored word is (or,
 * for the last word, starts with) it, the stored words one typo away.
 */
async function withTypos(db: Db, provider: Provider, catalogue: Catalogue, words: string[]): Promise<string[][]> {
  return Promise.all(
    words.map(async (word, i) => {
      if (word.length < TYPO_MIN_LENGTH) return [word];
      const last = i === words.length - 1;
      const stored = await wordsLike(db, provider, catalogue, word);
      if (stored.some((s) => s === word || (last && s.startsWith(word)))) return [word];
      return [word, ...stored.filter((s) => withinOneEdit(word, s)).slice(0, MAX_ALTERNATIVES)];
    }),
  );
}

/** The words as an FTS5 query (`"pizz" *` for the last) or a tsquery (`pizz:*`); alternatives OR'ed. */
function matchText(provider: Provider, alternatives: string[][]): string {
  // Words hold only letters and digits (searchWords), so they need no escaping in either syntax.
  return alternatives
    .map((options, i) => {
      const last = i === alternatives.length - 1;
      const terms = options.map((w, j) => (provider === "sqlite" ? `"${w}"${last && j === 0 ? " *" : ""}` : `${w}${last && j === 0 ? ":*" : ""}`));
      return terms.length === 1 ? terms[0] : `(${terms.join(provider === "sqlite" ? " OR " : " | ")})`;
    })
    .join(provider === "sqlite" ? " AND " : " & ");
}

/** Weights of the search columns: title, then lists (cuisines, categories; other name), then the rest. */
const BM25 = "10.0, 4.0, 1.0";

/**
 * A join that keeps the rows matching the words, and the rank of each (smaller is better):
 * FTS5's bm25 on SQLite, minus ts_rank on PostgreSQL.
 */
async function wordsJoin(db: Db, provider: Provider, catalogue: Catalogue, words: string[]) {
  const text = matchText(provider, await withTypos(db, provider, catalogue, words));
  const key = OWNER_KEY[catalogue];
  if (provider === "sqlite") {
    const fts = `"${catalogue}Search"`;
    return {
      join: Prisma.sql`JOIN (SELECT s.${Prisma.raw(key)} AS "id", bm25(${Prisma.raw(fts)}, ${Prisma.raw(BM25)}) AS "rank"
        FROM ${Prisma.raw(fts)} JOIN ${Prisma.raw(`"${catalogue}SearchRow"`)} s ON s."rowid" = ${Prisma.raw(fts)}."rowid"
        WHERE ${Prisma.raw(fts)} MATCH ${text}) "matched" ON "matched"."id" = ${Prisma.raw(`"${catalogue}"`)}."id"`,
      rank: Prisma.raw(`"matched"."rank"`),
    };
  }
  return {
    join: Prisma.sql`JOIN ${Prisma.raw(`"${catalogue}Search"`)} "matched" ON "matched".${Prisma.raw(key)} = ${Prisma.raw(`"${catalogue}"`)}."id"
      AND "matched"."document" @@ to_tsquery('simple', unaccent(${text}))`,
    rank: Prisma.sql`-ts_rank("matched"."document", to_tsquery('simple', unaccent(${text})))`,
  };
}

// ---- Other conditions --------------------------------------------------------------------------

// "!" escapes LIKE's wildcards: unlike a backslash, it means the same in SQLite and in
// PostgreSQL whatever standard_conforming_strings says.
const likeLiteral = (key: string) => `%${key.replace(/[!%_]/g, (c) => `!${c}`)}%`;

/**
 * The title contains `key` (lower-cased). PostgreSQL reads LIKE from its pg_trgm index by itself;
 * SQLite first takes the rows whose trigram index holds the key as a phrase (its trigrams in a
 * row: the substring), which needs a key of 3 characters or more.
 */
function titleContains(provider: Provider, catalogue: Catalogue, key: string): Prisma.Sql[] {
  const like = Prisma.sql`${Prisma.raw(`"${catalogue}"`)}."titleSearch" LIKE ${likeLiteral(key)} ESCAPE '!'`;
  if (provider !== "sqlite" || [...key].length < 3) return [like];
  const fts = `"${catalogue}TitleTrigrams"`;
  const phrase = `"${key.replace(/"/g, '""')}"`;
  return [
    Prisma.sql`${Prisma.raw(`"${catalogue}"`)}."id" IN (SELECT s.${Prisma.raw(OWNER_KEY[catalogue])} FROM ${Prisma.raw(fts)}
      JOIN ${Prisma.raw(`"${catalogue}SearchRow"`)} s ON s."rowid" = ${Prisma.raw(fts)}."rowid" WHERE ${Prisma.raw(fts)} MATCH ${phrase})`,
    like,
  ];
}

/**
 * The row has one of the values. `perRow`: tested row by row, for a page read in its order's
 * index: a scalar subquery, which PostgreSQL cannot turn into a semi-join (it hashed every match
 * of each list, then sorted: any of two cuisines + a price range by rating, 300 ms -> 10 ms at
 * 200,000); otherwise `id IN` the tag rows, which the planner may read from the tag index.
 */
function hasTag(catalogue: Catalogue, { kind, keys }: TagCondition<string>, perRow = false) {
  const tags = Prisma.raw(`"${catalogue}Tag"`);
  const owner = Prisma.raw(OWNER_KEY[catalogue]);
  const value = keys.length === 1 ? Prisma.sql`= ${keys[0]}` : Prisma.sql`IN (${Prisma.join(keys)})`;
  if (perRow) {
    return Prisma.sql`(SELECT TRUE FROM ${tags} t WHERE t.${owner} = ${Prisma.raw(`"${catalogue}"`)}."id" AND t."kind" = ${kind} AND t."valueKey" ${value} LIMIT 1)`;
  }
  return Prisma.sql`${Prisma.raw(`"${catalogue}"`)}."id" IN (SELECT t.${owner} FROM ${tags} t WHERE t."kind" = ${kind} AND t."valueKey" ${value})`;
}

const number = (value: number) => Prisma.sql`CAST(${value} AS DOUBLE PRECISION)`;
const EARTH_RADIUS_KM = 6371.0088;
const KM_PER_DEGREE = (Math.PI * EARTH_RADIUS_KM) / 180;

/** Great-circle distance in km from the point to the restaurant (haversine; same functions on both databases). */
function distanceKm({ latitude, longitude }: Near): Prisma.Sql {
  return Prisma.sql`(${number(2 * EARTH_RADIUS_KM)} * asin(sqrt(
    power(sin(radians("Restaurant"."latitude" - ${number(latitude)}) / 2), 2)
    + cos(radians(${number(latitude)})) * cos(radians("Restaurant"."latitude")) * power(sin(radians("Restaurant"."longitude" - ${number(longitude)}) / 2), 2))))`;
}

/** The box around the circle (its longitude span split in two where it crosses ±180°), then the circle. */
function within(near: Near): Prisma.Sql[] {
  const dLat = near.radiusKm / KM_PER_DEGREE;
  const cosLat = Math.cos((near.latitude * Math.PI) / 180);
  const dLng = cosLat < 1e-6 ? 360 : near.radiusKm / (KM_PER_DEGREE * cosLat);
  const conditions = [Prisma.sql`"Restaurant"."latitude" BETWEEN ${number(near.latitude - dLat)} AND ${number(near.latitude + dLat)}`];
  const west = near.longitude - dLng;
  const east = near.longitude + dLng;
  if (dLng >= 180 || (west < -180 && east > 180)) conditions.push(Prisma.sql`"Restaurant"."longitude" IS NOT NULL`);
  else if (west < -180) conditions.push(Prisma.sql`("Restaurant"."longitude" >= ${number(west + 360)} OR "Restaurant"."longitude" <= ${number(east)})`);
  else if (east > 180) conditions.push(Prisma.sql`("Restaurant"."longitude" >= ${number(west)} OR "Restaurant"."longitude" <= ${number(east - 360)})`);
  else conditions.push(Prisma.sql`"Restaurant"."longitude" BETWEEN ${number(west)} AND ${number(east)}`);
  conditions.push(Prisma.sql`${distanceKm(near)} <= ${number(near.radiusKm)}`);
  return conditions;
}

/**
 * Open at the instant, in the restaurant's zone: a period holds the local time "HH:MM" when it
 * opens at or before it and closes after it; one that closes earlier than it opens runs past
 * midnight; one that opens and closes at the same time is open all day.
 */
function openAt(provider: Provider, at: Date): Prisma.Sql {
  const local =
    provider === "sqlite"
      ? Prisma.sql`local_time("Restaurant"."timeZone", ${at.getTime()})`
      : Prisma.sql`to_char(CAST(${at.toISOString()} AS TIMESTAMPTZ) AT TIME ZONE "Restaurant"."timeZone", 'HH24:MI')`;
  // The local time written out at each use: a correlated "(SELECT local_time(...)) lt" made SQLite
  // run a co-routine for every opening period.
  return Prisma.sql`"Restaurant"."timeZone" IS NOT NULL AND EXISTS (SELECT 1 FROM "OpeningHours" h
    WHERE h."restaurantId" = "Restaurant"."id" AND (h."open" = h."close"
      OR (h."open" < h."close" AND h."open" <= ${local} AND ${local} < h."close")
      OR (h."close" < h."open" AND (${local} >= h."open" OR ${local} < h."close"))))`;
}

const whereAll = (conditions: Prisma.Sql[]) =>
  conditions.length === 0 ? Prisma.empty : Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`;

// ---- Pages ---------------------------------------------------------------------------------------

/**
 * LIMIT (one more row than the page: it tells whether a next page exists) as a literal, and OFFSET
 * left out on a first page. PostgreSQL plans a statement without parameters once per connection
 * (its cached generic plan); with `LIMIT $1` it plans again at every execution, since its generic
 * plan guesses a limit of 10% of the rows and so never looks cheaper than a custom one: ~0.2 ms
 * of database CPU per page, more than reading it. Page sizes are few (1 to the maximum), so the
 * literal adds few statement texts; offsets are many, so a later page keeps its as a parameter.
 */
function windowSql({ skip, take }: Window): Prisma.Sql {
  if (!Number.isSafeInteger(take) || take < 1) throw new Error(`page size ${take} is not a whole number`); // pageWindow checked it
  const limit = Prisma.raw(`LIMIT ${take + 1}`);
  return skip === 0 ? limit : Prisma.sql`${limit} OFFSET ${skip}`;
}

/**
 * What a page of restaurants is asked for besides its rows: relations of each row, and the total.
 * `columns`: read only these columns of each restaurant (every column when absent), as a selection
 * that shows only a few fields allows: the page's rows then hold those columns and no others.
 */
export type RestaurantPageAsks = RestaurantRelations & { count?: boolean; columns?: readonly RestaurantColumn[] };

/** A restaurant of a page, with its distance from the `near` point when there is one. */
export type RestaurantHit = RestaurantWithRelated & { distanceKm?: number };

// The id ends every order, so pages never overlap or skip rows that tie. Qualified: the owner's
// and the comment's joined columns have the same names.
const ORDERS: Record<Exclude<RestaurantSort, "RELEVANCE" | "DISTANCE">, Prisma.Sql> = {
  RATING: Prisma.raw(`"Restaurant"."ratingAvg" DESC NULLS LAST, "Restaurant"."id" ASC`),
  TITLE: Prisma.raw(`"Restaurant"."titleSearch" ASC, "Restaurant"."id" ASC`),
  NEWEST: Prisma.raw(`"Restaurant"."createdAt" DESC, "Restaurant"."id" DESC`),
};

/**
 * What a search keeps: the catalogue's rows joined to the word matches (if any) and the
 * conditions; `rank` orders by best match.
 */
type Filter = { catalogue: Catalogue; join: Prisma.Sql; conditions: Prisma.Sql[]; rank?: Prisma.Sql; pageConditions?: Prisma.Sql[] };

/** The joins and conditions of a restaurant query, and its rank when it has words. */
async function restaurantFilter(db: Db, q: RestaurantQuery): Promise<Filter> {
  const provider = providerOf(db);
  const words = q.words?.length ? await wordsJoin(db, provider, "Restaurant", q.words) : undefined;
  // A page of an order with an index (NEWEST, RATING, TITLE) is read best in that index, testing
  // each row until the page is full: led by a filter's index instead, the databases sorted every
  // match first (SQLite, cuisine "italian" at 200,000: 180 ms against 0.3 ms). So the page tests
  // list values row by row, and on SQLite the city and rating too ("+" keeps SQLite off their
  // indexes); the total still counts them from their indexes.
  const inOrder = !words && !q.near && q.sort !== "RELEVANCE" && q.sort !== "DISTANCE";
  const unindexed = (perRow: boolean) => Prisma.raw(perRow && provider === "sqlite" ? "+" : "");
  const build = (perRow: boolean) => {
    const conditions: Prisma.Sql[] = [];
    if (q.titleKey) conditions.push(...titleContains(provider, "Restaurant", q.titleKey));
    for (const tag of q.tags) conditions.push(hasTag("Restaurant", tag, perRow));
    if (q.cityKey) conditions.push(Prisma.sql`${unindexed(perRow)}"Restaurant"."citySearch" = ${q.cityKey}`);
    if (q.canHomeDeliver != null) conditions.push(Prisma.raw(`"Restaurant"."canHomeDeliver" = ${q.canHomeDeliver ? "TRUE" : "FALSE"}`));
    if (q.acceptsReservations != null) conditions.push(Prisma.raw(`"Restaurant"."acceptsReservations" = ${q.acceptsReservations ? "TRUE" : "FALSE"}`));
    if (q.minRating != null) conditions.push(Prisma.sql`${unindexed(perRow && q.sort !== "RATING")}"Restaurant"."ratingAvg" >= ${number(q.minRating)}`);
    if (q.near) conditions.push(...within(q.near));
    if (q.openAt) conditions.push(openAt(provider, q.openAt));
    return conditions;
  };
  const conditions = build(false);
  return { catalogue: "Restaurant", join: words?.join ?? Prisma.empty, rank: words?.rank, conditions, pageConditions: inOrder ? build(true) : undefined };
}

function restaurantOrder(q: RestaurantQuery, rank: Prisma.Sql | undefined): Prisma.Sql {
  if (q.sort === "RELEVANCE" && rank) return Prisma.sql`${rank} ASC, "Restaurant"."id" ASC`;
  if (q.sort === "DISTANCE" && q.near) return Prisma.sql`"distanceKm" ASC, "Restaurant"."id" ASC`;
  return ORDERS[q.sort === "RELEVANCE" || q.sort === "DISTANCE" ? "NEWEST" : q.sort];
}

/**
 * Restaurants matching every condition, in the order asked (the id breaks ties), each with the
 * relations asked, in one statement; the total too when asked (`count`), as a scalar subquery the
 * database computes once. A page past the end has no row to carry the total: it is then counted
 * on its own, only if `count()` is called.
 */
export async function restaurantPage(db: Db, q: RestaurantQuery, window: Window, asks: RestaurantPageAsks = {}) {
  const filter = await restaurantFilter(db, q);
  const { join, rank } = filter;
  const where = whereAll(filter.pageConditions ?? filter.conditions);
  const countSql = boundedCount(filter);
  const related = relatedSql(asks, providerOf(db));
  const total = asks.count ? Prisma.sql`, (${countSql}) AS "totalCount"` : Prisma.empty;
  const distance = q.near ? Prisma.sql`, ${distanceKm(q.near)} AS "distanceKm"` : Prisma.empty;
  const raw = await readRowsAside(
    db,
    Prisma.sql`SELECT ${restaurantSelectList(asks.columns)}${related.columns}${distance}${total} FROM "Restaurant" ${join} ${related.joins} ${where}
      ORDER BY ${restaurantOrder(q, rank)} ${windowSql(window)}`,
  );
  const rows: RestaurantHit[] = relatedRowsOf(raw, asks, asks.columns);
  if (q.near) {
    const at = raw.names.indexOf("distanceKm");
    rows.forEach((row, i) => (row.distanceKm = Number(raw.rows[i][at])));
  }
  const counted = asks.count && raw.rows.length > 0 ? Number(raw.rows[0][raw.names.indexOf("totalCount")]) : undefined;
  const count = once(async () => totalOf(db, filter, counted ?? (await query<{ n: number }>(db, { n: "int" }, countSql))[0]?.n ?? 0));
  return { rows, count, facets: once(() => facetsOf(db, filter, RESTAURANT_FACETS)) };
}

/** Groceries matching every condition, best match or newest first (the id breaks ties). */
export async function groceryPage(db: Db, q: GroceryQuery, window: Window) {
  const provider = providerOf(db);
  const words = q.words?.length ? await wordsJoin(db, provider, "Grocery", q.words) : undefined;
  const conditions: Prisma.Sql[] = [];
  if (q.titleKey) conditions.push(...titleContains(provider, "Grocery", q.titleKey));
  for (const tag of q.tags) conditions.push(hasTag("Grocery", tag));
  const where = whereAll(conditions);
  const join = words?.join ?? Prisma.empty;
  const filter: Filter = { catalogue: "Grocery", join, conditions };
  const order =
    q.sort === "RELEVANCE" && words
      ? Prisma.sql`${words.rank} ASC, "Grocery"."id" ASC`
      : Prisma.raw(`"Grocery"."createdAt" DESC, "Grocery"."id" DESC`);
  const rows = await query<GroceryRow>(
    db,
    GROCERY,
    Prisma.sql`SELECT ${GROCERY_COLUMNS} FROM "Grocery" ${join} ${where} ORDER BY ${order} ${windowSql(window)}`,
  );
  return {
    rows,
    count: once(async () => totalOf(db, filter, (await query<{ n: number }>(db, { n: "int" }, boundedCount(filter)))[0]?.n ?? 0)),
    facets: once(() => facetsOf(db, filter, GROCERY_FACETS)),
  };
}

// ---- Totals and facets, bounded --------------------------------------------------------------------

/** Matches counted one by one at most; past this, the total is estimated from a sample. */
export const EXACT_COUNT_LIMIT = 10_000;
/** Matches whose lists are counted one by one at most; past this, facets come from a sample. */
export const EXACT_FACETS_LIMIT = 2_000;
/** Rows of the catalogue a sample holds (about): for a total, and for facets (whose rows each read their lists). */
const SAMPLE_ROWS = 10_000;
const FACET_SAMPLE_ROWS = 2_000;
/** Values each facet lists, most frequent first. */
export const FACET_VALUES = 20;

const once = <T>(compute: () => Promise<T>) => {
  let result: Promise<T> | undefined;
  return () => (result ??= compute());
};

/** Counts the matches up to one more than the exact limit: the work stops there. */
function boundedCount({ catalogue, join, conditions }: Filter): Prisma.Sql {
  return Prisma.sql`SELECT COUNT(*) AS "n" FROM (SELECT 1 AS "x" FROM ${Prisma.raw(`"${catalogue}"`)} ${join} ${whereAll(conditions)}
    LIMIT ${Prisma.raw(String(EXACT_COUNT_LIMIT + 1))}) "bounded"`;
}

/** A total: exact up to the limit, else an estimate (and said so). */
export type Total = { count: number; estimate: boolean };

async function totalOf(db: Db, filter: Filter, bounded: number): Promise<Total> {
  if (bounded <= EXACT_COUNT_LIMIT) return { count: bounded, estimate: false };
  const sample = await sampled<{ n: number }>(db, filter, Prisma.sql`SELECT COUNT(*) AS "n" FROM "m"`, { n: "int" });
  const count = Math.round((sample.rows[0]?.n ?? 0) / sample.share);
  return { count: Math.max(count, EXACT_COUNT_LIMIT + 1), estimate: true };
}

/**
 * Runs `select` over "m", the matches among a fixed sample of the catalogue (about SAMPLE_ROWS
 * rows), and says what share of the catalogue the sample is. SQLite: four windows of rowids spread
 * over the table, each read by rowid; PostgreSQL: TABLESAMPLE SYSTEM with a fixed seed (whole
 * pages). Fixed, so that the same search gives the same estimate from one page to the next.
 */
async function sampled<T>(db: Db, { catalogue, join, conditions }: Filter, select: Prisma.Sql, columns: Parameters<typeof query>[1], sampleRows = SAMPLE_ROWS) {
  const table = `"${catalogue}"`;
  const match = (from: Prisma.Sql, extra: Prisma.Sql[]) =>
    Prisma.sql`WITH "m" AS (SELECT ${Prisma.raw(table)}."id" AS "id", ${catalogue === "Restaurant" ? Prisma.raw(`"Restaurant"."citySearch" AS "cityKey", "Restaurant"."city" AS "city"`) : Prisma.raw(`NULL AS "cityKey", NULL AS "city"`)}
      FROM ${from} ${join} ${whereAll([...conditions, ...extra])}) ${select}`;
  if (providerOf(db) === "sqlite") {
    const last = (await query<{ n: number }>(db, { n: "int" }, Prisma.sql`SELECT COALESCE(MAX("rowid"), 0) AS "n" FROM ${Prisma.raw(table)}`))[0]?.n ?? 0;
    const size = Math.ceil(sampleRows / 4);
    const windows = [0, 1, 2, 3].map((k) => Math.floor((k * last) / 4) + 1);
    const condition = Prisma.raw(`(${windows.map((start) => `${table}."rowid" BETWEEN ${start} AND ${start + size - 1}`).join(" OR ")})`);
    return { rows: await query<T>(db, columns, match(Prisma.raw(table), [condition])), share: Math.min(1, (4 * size) / Math.max(last, 1)) };
  }
  const rows = (await query<{ n: number }>(db, { n: "float" }, Prisma.sql`SELECT GREATEST(reltuples, 1) AS "n" FROM pg_class WHERE oid = ${table}::regclass`))[0]?.n ?? 1;
  const percent = Math.min(100, (100 * sampleRows) / rows);
  const from = Prisma.raw(`${table} TABLESAMPLE SYSTEM (${percent.toFixed(6)}) REPEATABLE (31)`);
  return { rows: await query<T>(db, columns, match(from, [])), share: percent / 100 };
}

/** The lists a facet counts: a tag kind, or the city column. */
type FacetSpec = Record<string, string>;
const RESTAURANT_FACETS: FacetSpec = { cuisines: "CUISINE", categories: "CATEGORY", priceRanges: "PRICE_RANGE", cities: "CITY" };
const GROCERY_FACETS: FacetSpec = { categories: "CATEGORY" };

export type FacetValue = { value: string; count: number };
export type Facets = { exact: boolean; lists: Record<string, FacetValue[]> };

/**
 * Per list value, how many matches have it; and "ALL", how many matches there are. Each match's
 * list rows are read by its key: PostgreSQL otherwise chose to scan every tag row and hash the
 * matches (1.6 s at 200,000 restaurants against 0.2 s), hence its LATERAL with OFFSET 0.
 */
function facetCounts(provider: Provider, catalogue: Catalogue, spec: FacetSpec): Prisma.Sql {
  const kinds = Object.values(spec).filter((k) => k !== "CITY");
  const tags = Prisma.raw(`"${catalogue}Tag"`);
  const owner = Prisma.raw(OWNER_KEY[catalogue]);
  const lists =
    provider === "sqlite"
      ? Prisma.sql`"m" JOIN ${tags} t ON t.${owner} = "m"."id" AND t."kind" IN (${Prisma.join(kinds)})`
      : Prisma.sql`"m" CROSS JOIN LATERAL (SELECT x."kind", x."valueKey", x."value" FROM ${tags} x
          WHERE x.${owner} = "m"."id" AND x."kind" IN (${Prisma.join(kinds)}) OFFSET 0) t`;
  const parts = [
    Prisma.sql`SELECT CAST(t."kind" AS TEXT) AS "facet", t."valueKey" AS "key", MIN(t."value") AS "value", COUNT(*) AS "n"
      FROM ${lists} GROUP BY t."kind", t."valueKey"`,
    Prisma.raw(`SELECT 'ALL' AS "facet", '' AS "key", '' AS "value", COUNT(*) AS "n" FROM "m"`),
  ];
  if (Object.values(spec).includes("CITY")) {
    parts.push(Prisma.raw(`SELECT 'CITY' AS "facet", "cityKey" AS "key", MIN("city") AS "value", COUNT(*) AS "n" FROM "m" WHERE "cityKey" IS NOT NULL GROUP BY "cityKey"`));
  }
  return Prisma.join(parts, " UNION ALL ");
}

type FacetRow = { facet: string; key: string; value: string; n: number };
const FACET_ROW = { facet: "text", key: "text", value: "text", n: "int" } as const;

function facetLists(spec: FacetSpec, rows: FacetRow[], scale: number): Record<string, FacetValue[]> {
  return Object.fromEntries(
    Object.entries(spec).map(([name, kind]) => [
      name,
      rows
        .filter((r) => r.facet === kind)
        .map((r) => ({ value: r.value, count: Math.max(1, Math.round(r.n * scale)) }))
        .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value))
        .slice(0, FACET_VALUES),
    ]),
  );
}

/**
 * Facets of a search: exact over the first EXACT_FACETS_LIMIT matches when there are no more;
 * otherwise counted over the matches in a fixed sample of the catalogue and scaled to the
 * estimated total, and said so (`exact: false`).
 */
async function facetsOf(db: Db, filter: Filter, spec: FacetSpec): Promise<Facets> {
  const { catalogue, join, conditions } = filter;
  const provider = providerOf(db);
  const table = `"${catalogue}"`;
  const city = catalogue === "Restaurant" ? `"Restaurant"."citySearch" AS "cityKey", "Restaurant"."city" AS "city"` : `NULL AS "cityKey", NULL AS "city"`;
  const exact = await query<FacetRow>(
    db,
    FACET_ROW,
    Prisma.sql`WITH "m" AS (SELECT ${Prisma.raw(table)}."id" AS "id", ${Prisma.raw(city)} FROM ${Prisma.raw(table)} ${join} ${whereAll(conditions)}
      LIMIT ${Prisma.raw(String(EXACT_FACETS_LIMIT + 1))}) ${facetCounts(provider, catalogue, spec)}`,
  );
  const matches = exact.find((r) => r.facet === "ALL")?.n ?? 0;
  if (matches <= EXACT_FACETS_LIMIT) return { exact: true, lists: facetLists(spec, exact, 1) };
  const sample = await sampled<FacetRow>(db, filter, facetCounts(provider, catalogue, spec), FACET_ROW, FACET_SAMPLE_ROWS);
  return { exact: false, lists: facetLists(spec, sample.rows, 1 / sample.share) };
}
