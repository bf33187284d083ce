// Search pages as raw SQL, for the reason given in reads.ts: a page in one statement (a page of
// restaurants with what the request asks of each row), with none of Prisma's per-query compile
// cost. The conditions are in search-sql.ts, totals and facets in search-totals.ts. What a page
// costs is bounded by the page, not by how many rows match:
// - by relevance, the words' index ranks at most RANK_WINDOW matches (the first it holds);
// - by distance, the circle is searched from a small radius outwards until the page is full;
// - in an order with an index (newest, rating, title), the page is read in that index testing
//   each row, unless the kept counts say the matches are too few for that to end soon.
import type { Db } from "./db.ts";
import { Prisma } from "./prisma.ts";
import type { RawRows } from "./raw-rows.ts";
import {
  GROCERY,
  GROCERY_COLUMNS,
  relatedRowsOf,
  relatedSql,
  restaurantSelectList,
  rowsOf,
  type RestaurantColumn,
  type RestaurantRelations,
  type RestaurantWithRelated,
} from "./reads.ts";
import type { GroceryRow } from "./rows.ts";
import { openPatterns } from "./opening-patterns.ts";
import {
  afterDocuments,
  cellsQuery,
  conditionsOf,
  distanceKm,
  documentMatches,
  documentRank,
  documentTests,
  keyValue,
  OWNER_KEY,
  patternIn,
  placeKeys,
  query,
  rowsLedBy,
  rowsOfKeys,
  table,
  trigramKeys,
  trigramUsable,
  unfiltered,
  whereAll,
  within,
  wordKeys,
  wordsQuery,
  wordsTable,
  type Catalogue,
  type Near,
  type SearchPlan,
  type TagCondition,
} from "./search-sql.ts";
import {
  countedInPass,
  countKey,
  farPastLimit,
  GROCERY_FACETS,
  keptCounts,
  keptShare,
  listPairsOf,
  matchingRows,
  RESTAURANT_FACETS,
  searchSummary,
  totalSql,
} from "./search-totals.ts";

export type { Facets, FacetValue, Total } from "./search-totals.ts";
export { EXACT_COUNT_LIMIT, FACET_VALUES } from "./search-totals.ts";
export type { Near, TagCondition } from "./search-sql.ts";

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

export type GroceryQuery = {
  words?: string[];
  titleKey?: string;
  tags: TagCondition<"CATEGORY">[];
  sort: "RELEVANCE" | "NEWEST";
};

export type Window = { skip: number; take: number };

/**
 * Matches ranked by relevance at most: past this, the ranking covers the first RANK_WINDOW matches
 * the words' index holds, and the others follow them in the index's order (ranking is work for
 * every match: bm25 of 19,000 matches took 90 to 580 ms at 1,000,000 restaurants).
 */
export const RANK_WINDOW = 2_000;
/** A near search by distance looks first within this share of its radius, then 4 times wider each time. */
const FIRST_RADIUS_SHARE = 1 / 16;
/**
 * Rows a page read in its order's index may be expected to test; with fewer matches than that
 * suggests, the page is read from the filter's own index and sorted instead.
 */
const WALK_BUDGET = 20_000;

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
  if (!Number.isSafeInteger(take) || take < 0) throw new Error(`page size ${take} is not a whole number`); // pageWindow checked it
  const limit = Prisma.raw(`LIMIT ${take + 1}`);
  return skip === 0 ? limit : Prisma.sql`${limit} OFFSET ${skip}`;
}

/**
 * What a page of restaurants is asked for besides its rows: relations of each row, and the total.
 * `columns`: read only these columns of each restaurant (every column when absent), as a selection
 * that shows only a few fields allows: the page's rows then hold those columns and no others.
 */
export type RestaurantPageAsks = RestaurantRelations & {
  count?: boolean;
  facets?: boolean;
  columns?: readonly RestaurantColumn[];
};

/** A restaurant of a page, with its distance from the `near` point when there is one. */
export type RestaurantHit = RestaurantWithRelated & { distanceKm?: number };

// The id ends every order, so pages never overlap or skip rows that tie. Qualified: the owner's
// and the comment's joined columns have the same names.
const ORDERS: Record<"RATING" | "TITLE" | "NEWEST", { sql: Prisma.Sql; column?: string }> = {
  RATING: { sql: Prisma.raw(`"Restaurant"."ratingAvg" DESC NULLS LAST, "Restaurant"."id" ASC`), column: "rating" },
  TITLE: { sql: Prisma.raw(`"Restaurant"."titleSearch" ASC, "Restaurant"."id" ASC`) },
  NEWEST: { sql: Prisma.raw(`"Restaurant"."createdAt" DESC, "Restaurant"."id" DESC`) },
};
const GROCERY_NEWEST = Prisma.raw(`"Grocery"."createdAt" DESC, "Grocery"."id" DESC`);

/** What every page statement of a catalogue shares: the columns of each row, and what follows them. */
type Shape = { select: Prisma.Sql; joins: Prisma.Sql };

/** A page statement: the rows `from` gives (FROM ... WHERE ...), in `order`, windowed. */
const pageSql = (shape: Shape, from: Prisma.Sql, order: Prisma.Sql, window: Window, extra: Prisma.Sql = Prisma.empty) =>
  Prisma.sql`SELECT ${shape.select}${extra} ${from} ORDER BY ${order} ${windowSql(window)}`;

const NO_SHAPE: Shape = { select: Prisma.raw("1"), joins: Prisma.empty };

/** SQLite: the rows of these keys with the page's joins (search-sql.ts rowsOfKeys). */
const byKeys = (p: SearchPlan, shape: Shape, keys: Prisma.Sql, rest: SearchPlan = p) =>
  rowsOfKeys(p, keys, rest, shape.joins);

const countOf = async (db: Db, rows: Prisma.Sql) =>
  (await query<{ n: number }>(db, { n: "int" }, Prisma.sql`SELECT COUNT(*) AS "n" FROM (${rows}) "r"`))[0]?.n ?? 0;

/** The window of what follows once `before` rows came first (those of the page among them were read already). */
function restWindow({ skip, take }: Window, before: number): Window {
  const already = Math.max(0, before - skip);
  return { skip: Math.max(0, skip - before), take: Math.max(0, take - already) };
}

const joined = (first: RawRows, second: RawRows): RawRows => ({
  names: first.names.length ? first.names : second.names,
  rows: [...first.rows, ...second.rows],
});

/**
 * A page by relevance: the matches the words' index ranks (at most RANK_WINDOW: the first it
 * holds), best first, then the other matches in the index's order. The ranked ones are filtered
 * by the other conditions before the page is cut, so every page is exact in that order.
 */
async function relevancePage(
  db: Db,
  p: SearchPlan,
  shape: Shape,
  window: Window,
  exactMatches?: () => Promise<number | undefined>,
): Promise<RawRows> {
  // The matches past the ranked ones are read only when there are any: when the search's total and
  // facets read every match in one statement anyway (search-totals.ts searchSummary) and it finds
  // no more than were ranked, that second pass over the same rows is skipped ("pizza" near Lisbon,
  // 5 km, open now at an hour when none is open: every restaurant within the circle read twice).
  const noneAfter = async (ranked: number) => {
    const total = await exactMatches?.();
    return total !== undefined && total <= ranked;
  };
  const t = table(p.catalogue);
  const alone = conditionsOf(p, true).length === 0;
  if (p.provider === "sqlite") {
    const fts = wordsTable(p.catalogue);
    // The key of the RANK_WINDOW-th match (FTS5 reads keys in order): the ranking stops there.
    const ceiling = (
      await query<{ key: number }>(
        db,
        { key: "int" },
        Prisma.sql`SELECT "rowid" AS "key" FROM ${fts} WHERE ${fts} MATCH ${p.words} ORDER BY "rowid" LIMIT 1 OFFSET ${RANK_WINDOW - 1}`,
      )
    )[0]?.key;
    const upTo = ceiling === undefined ? Prisma.empty : Prisma.sql`AND "rowid" <= ${keyValue(ceiling)}`;
    const ranked = await db.readSearch(
      pageSql(
        shape,
        byKeys(p, shape, wordKeys(p, { ranked: true, range: upTo })),
        Prisma.sql`"w"."rank", "w"."key"`,
        window,
      ),
    );
    if (ceiling === undefined || ranked.rows.length > window.take) return ranked;
    // The ranked matches: a short page that reached its offset holds the last of them, so they
    // are counted only when it came back empty past an offset (the count read them all again:
    // with near, every restaurant of the window within the circle).
    const before = alone
      ? RANK_WINDOW
      : ranked.rows.length > 0 || window.skip === 0
        ? window.skip + ranked.rows.length
        : await countOf(db, Prisma.sql`SELECT 1 ${byKeys(p, NO_SHAPE, wordKeys(p, { range: upTo }))}`);
    if (await noneAfter(before)) return ranked;
    const after = Prisma.sql`AND "rowid" > ${keyValue(ceiling)}`;
    return joined(
      ranked,
      await db.readSearch(
        pageSql(
          shape,
          byKeys(p, shape, wordKeys(p, { range: after })),
          Prisma.sql`"w"."key"`,
          restWindow(window, before),
        ),
      ),
    );
  }
  const documents = Prisma.raw(`"${p.catalogue}Search"`);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  const id = Prisma.sql`${t}."id"`;
  // The first RANK_WINDOW matches the index finds, ranked; MATERIALIZED: computed once, as written.
  // A near search's circle is tested on the documents' copy of the coordinates, so only the rows
  // within it are read ("pizza" near Lisbon, 5 km, at 1,000,000 restaurants: 2,000 read -> 223,
  // the page 28 -> 18 ms); after the window is cut, not in it: 17,000 documents were then read to
  // fill the window with 2,000 in the circle (130 ms).
  const place = p.near ? Prisma.raw(`, "m"."latitude", "m"."longitude"`) : Prisma.empty;
  const ranked = Prisma.sql`WITH "ranked" AS MATERIALIZED (SELECT "m".${owner} AS "id", ${documentRank(p, `"m"`)} AS "rank"${place} FROM ${documents} "m"
    WHERE ${documentMatches(p, `"m"`)} LIMIT ${Prisma.raw(String(RANK_WINDOW))})`;
  const inCircle = p.near
    ? Prisma.sql`(SELECT * FROM "ranked" ${whereAll(within(p, p.near, `"ranked"`))}) "ranked"`
    : Prisma.raw(`"ranked"`);
  const rankedRows = (s: Shape) => Prisma.sql`${rowsLedBy(afterDocuments(p), inCircle, `"ranked"`)} ${s.joins}`;
  const page = await db.readSearch(
    Prisma.sql`${ranked} ${pageSql(shape, rankedRows(shape), Prisma.sql`"ranked"."rank", ${id}`, window)}`,
  );
  if (page.rows.length > window.take) return page;
  const counted = (
    await query<{ all: number; kept: number }>(
      db,
      { all: "int", kept: "int" },
      Prisma.sql`${ranked} SELECT (SELECT COUNT(*) FROM "ranked") AS "all", (SELECT COUNT(*) ${rankedRows(NO_SHAPE)}) AS "kept"`,
    )
  )[0];
  if (!counted || counted.all < RANK_WINDOW || (await noneAfter(counted.kept))) return page;
  // With near: led by the documents within the circle, read from the words' and cells' index (as
  // wordsFrom). Joined freely, the planner probed every restaurant of the GiST box: "pizza" near
  // Lisbon, 5 km, open now at 04:00 (nothing open: every match is read) at 1,000,000 restaurants,
  // 0.9-1.2 s.
  const unranked = Prisma.sql`"m".${owner} NOT IN (SELECT "id" FROM "ranked")`;
  const rest = p.near
    ? Prisma.sql`${rowsLedBy(afterDocuments(p), Prisma.sql`(SELECT "m".${owner} AS "id" FROM ${documents} "m" ${whereAll([...documentTests(p, `"m"`), unranked])}) "words"`, `"words"`)} ${shape.joins}`
    : Prisma.sql`FROM ${t} JOIN ${documents} "m" ON "m".${owner} = ${id} AND ${documentMatches(p, `"m"`)} ${shape.joins}
    ${whereAll([unranked, ...conditionsOf(p, false)])}`;
  return joined(
    page,
    await db.readSearch(Prisma.sql`${ranked} ${pageSql(shape, rest, id, restWindow(window, counted.kept))}`),
  );
}

/**
 * A page by distance: within a small circle first, then one 4 times wider, until the page is full
 * or the circle is the one asked for. A full page within a smaller circle is the page of the whole
 * one: every row nearer than its last row lies in it.
 */
async function distancePage(db: Db, p: SearchPlan, near: Near, shape: Shape, window: Window): Promise<RawRows> {
  const order = Prisma.sql`"distanceKm" ASC, "Restaurant"."id" ASC`;
  for (let radiusKm = near.radiusKm * FIRST_RADIUS_SHARE; ; radiusKm *= 4) {
    const circle = { ...near, radiusKm: Math.min(radiusKm, near.radiusKm) };
    const from =
      p.provider === "sqlite"
        ? byKeys(p, shape, placeKeys(circle), { ...p, near: undefined })
        : Prisma.sql`FROM "Restaurant" ${shape.joins} ${whereAll(conditionsOf({ ...p, near: circle }, false))}`;
    const rows = await db.readSearch(pageSql(shape, from, order, window));
    if (rows.rows.length > window.take || circle.radiusKm >= near.radiusKm) return rows;
  }
}

/**
 * A page in an order with an index (newest, rating, title) and no words: read in that index,
 * testing each row until the page is full, when the kept counts say the matches are many enough
 * for that to end soon (led by a filter's index instead, the databases sorted every match first:
 * cuisine "italian" at 200,000, 180 ms against 0.3 ms); else from the filter's own index, sorted.
 */
async function orderedPage(
  db: Db,
  p: SearchPlan,
  shape: Shape,
  window: Window,
  order: { sql: Prisma.Sql; column?: string },
  extra = Prisma.empty,
): Promise<RawRows> {
  const t = table(p.catalogue);
  const inOrder = await manyMatches(db, p, window);
  const from =
    p.provider === "sqlite" && p.near && !inOrder
      ? byKeys(p, shape, placeKeys(p.near), { ...p, near: undefined })
      : !inOrder && p.provider === "postgres" && p.openPatterns
        ? // Read from the filters' indexes, then sorted: PostgreSQL takes a city and the open
          // patterns to be independent, so it expected 42,000 restaurants open in Lisbon at an
          // hour when none was and walked the order's index through all 1,000,000 (660 ms).
          Prisma.sql`FROM (SELECT ${t}.* FROM ${t} ${whereAll(conditionsOf(p, false))} OFFSET 0) ${t} ${shape.joins}`
        : Prisma.sql`FROM ${t} ${shape.joins} ${whereAll(conditionsOf(p, inOrder, order.column))}`;
  return readPage(db, p, window, pageSql(shape, from, order.sql, window, extra));
}

/**
 * Rows of the catalogue a page may walk in its order's index and still read as any bounded read:
 * the first pages, which cost about a read by id. Deeper ones read aside, in the searches' fair
 * share: one client flooding pages at offset 950 on Prisma's pool (200,000 restaurants, no rate
 * limit) held another client's read by id at p50 22.8 / p99 71 ms; at offset 150, 14.4 / 32 ms,
 * as a flood of reads by id does (5.9 / 25.5 ms).
 */
const BOUNDED_WALK = 200;

/**
 * A page's statement, aside as every search's, but one: on PostgreSQL a page of the whole
 * catalogue near its start reads as any bounded read does (readRows, Prisma's pool). The searches'
 * sessions plan every statement for its values (plan_cache_mode, postgres-driver.ts); this one's
 * plan is the same whatever its values, so the prepared statement's cached plan serves it
 * (planning was 0.17 of its 0.33 ms of database time for a page of 50, `large` seed), and it
 * walks at most BOUNDED_WALK rows of an index, nothing one client could hold the pool with.
 */
function readPage(db: Db, p: SearchPlan, { skip, take }: Window, sql: Prisma.Sql): Promise<RawRows> {
  return p.provider === "postgres" && unfiltered(p) && skip + take <= BOUNDED_WALK ? db.read(sql) : db.readSearch(sql);
}

/**
 * Whether walking the order's index would find the page soon: the matches, as the kept counts of
 * the lists and the city suggest (each other condition taken to keep half), are at least the
 * share of the catalogue that finds the page within WALK_BUDGET rows. SQLite: a title substring
 * counts its matches in the trigram index, up to what would be enough ("pizz" at 1,000,000: the
 * page read by newest in 1 ms against 55 ms for every match read and sorted); one too short for
 * the trigram index matches widely, and walking is never worse than reading every row. PostgreSQL
 * reads a substring from pg_trgm and plans that itself.
 */
async function manyMatches(db: Db, p: SearchPlan, { skip, take }: Window): Promise<boolean> {
  if (p.near || (p.titleKey && p.provider !== "sqlite")) return false;
  const kept = p.keptCounts;
  if (!kept) return true;
  const all = Math.max(1, kept.get(countKey("ALL", "")) ?? 0);
  let share = keptShare(p);
  const needed = (skip + take + 1) / WALK_BUDGET;
  if (p.titleKey && trigramUsable(p) && share >= needed) {
    const enough = Math.ceil((needed / share) * all) + 1;
    const found =
      (
        await query<{ n: number }>(
          db,
          { n: "int" },
          Prisma.sql`SELECT COUNT(*) AS "n" FROM (${trigramKeys(p)} LIMIT ${Prisma.raw(String(enough))}) "t"`,
        )
      )[0]?.n ?? 0;
    share *= found / all;
  }
  if (p.openPatterns?.length && share >= needed) {
    // The restaurants of the open patterns (in the city) from their index, up to what would be
    // enough: the kept counts know nothing of the hour ("open now" in Lisbon at 05:00 UTC, none
    // open: the walk read every restaurant, 660 ms at 1,000,000).
    const enough = Math.ceil(needed * all) + 1;
    const city = p.cityKey ? [Prisma.sql`"Restaurant"."citySearch" = ${p.cityKey}`] : [];
    const open = Prisma.sql`SELECT 1 FROM "Restaurant" ${whereAll([...city, patternIn(p.provider, p.openPatterns)])} LIMIT ${Prisma.raw(String(enough))}`;
    const found =
      (await query<{ n: number }>(db, { n: "int" }, Prisma.sql`SELECT COUNT(*) AS "n" FROM (${open}) "o"`))[0]?.n ?? 0;
    if (found < enough) return false;
  }
  return share >= needed;
}

// ---- Restaurants -----------------------------------------------------------------------------------

/** The plan of a restaurant query: its conditions, its words as the engine's query text. */
async function restaurantPlan(db: Db, q: RestaurantQuery): Promise<SearchPlan> {
  const provider = db.dialect;
  const rowTests: Prisma.Sql[] = [];
  if (q.canHomeDeliver != null)
    rowTests.push(Prisma.raw(`"Restaurant"."canHomeDeliver" = ${q.canHomeDeliver ? "TRUE" : "FALSE"}`));
  if (q.acceptsReservations != null)
    rowTests.push(Prisma.raw(`"Restaurant"."acceptsReservations" = ${q.acceptsReservations ? "TRUE" : "FALSE"}`));
  const words = q.words?.length ? await wordsQuery(db, provider, "Restaurant", q.words) : undefined;
  return {
    provider,
    catalogue: "Restaurant",
    words,
    titleKey: q.titleKey,
    tags: q.tags,
    cityKey: q.cityKey,
    minRating: q.minRating,
    near: q.near,
    cells: words && q.near ? cellsQuery(provider, q.near) : undefined,
    rowTests,
    openPatterns: q.openAt ? await openPatterns(db, provider, q.openAt) : undefined,
    keptCounts: await listCounts(db, "Restaurant", q),
  };
}

/** The kept counts of the lists' values and the city a search names, and of the catalogue, when it names any (or, on SQLite, a title substring; or an hour to be open at). */
async function listCounts(
  db: Db,
  catalogue: Catalogue,
  q: { tags: TagCondition[]; cityKey?: string; titleKey?: string; openAt?: Date },
) {
  const pairs = listPairsOf({ tags: q.tags, cityKey: q.cityKey });
  const substring = q.titleKey && db.dialect === "sqlite"; // see manyMatches
  if (!pairs.length && !substring && !q.openAt) return undefined;
  const asked: [string, string][] = [["ALL", ""], ...pairs];
  return db.recentCounts(`${catalogue}\u0000${asked.flat().join("\u0000")}`, () => keptCounts(db, catalogue, asked));
}

/**
 * Restaurants matching every condition, in the order asked (the id breaks ties), each with the
 * relations asked, in one statement; the total (when asked, it is counted beside the page: on
 * SQLite in the other reader thread) and facets on demand.
 */
export async function restaurantPage(db: Db, q: RestaurantQuery, window: Window, asks: RestaurantPageAsks = {}) {
  const p = await restaurantPlan(db, q);
  const ranked = (q.sort === "RELEVANCE" && p.words) || (q.sort === "DISTANCE" && q.near);
  // A page read in one statement carries its total; the others (several statements) count it beside.
  // Nor does a search whose total the sample estimates first (search-totals.ts farPastLimit).
  const total = carriedTotal(p, asks.count === true && !ranked && !farPastLimit(p));
  let page: RawRows | undefined;
  const summary = searchSummary(db, p, RESTAURANT_FACETS, { carried: () => total.of(page), facetsAsked: asks.facets });
  if (asks.count && !total.carried) void summary.count().catch(() => undefined); // awaited (and its error thrown) by the field
  const related = relatedSql(asks, p.provider);
  const distance = q.near ? Prisma.sql`, ${distanceKm(q.near)} AS "distanceKm"` : Prisma.empty;
  const shape: Shape = {
    select: Prisma.sql`${restaurantSelectList(asks.columns)}${related.columns}${distance}`,
    joins: related.joins,
  };
  const raw =
    q.sort === "RELEVANCE" && p.words
      ? await relevancePage(db, p, shape, window, summary.exactMatches)
      : q.sort === "DISTANCE" && q.near
        ? await distancePage(db, p, q.near, shape, window)
        : p.words
          ? await db.readSearch(pageSql(shape, wordsFrom(p, shape), ORDERS[sortOf(q)].sql, window, total.column))
          : await orderedPage(db, p, shape, window, ORDERS[sortOf(q)], total.column);
  page = raw;
  const rows: RestaurantHit[] = relatedRowsOf(raw, asks, asks.columns);
  if (q.near) {
    const at = raw.names.indexOf("distanceKm");
    rows.forEach((row, i) => (row.distanceKm = Number(raw.rows[i][at])));
  }
  return { rows, count: summary.count, facets: summary.facets };
}

/**
 * The total as a column of a page statement, when `carried`: the database computes it once, and
 * a page with rows then needs no statement of its own for it (a page past the end has no row to
 * carry it: it is then counted when asked).
 */
function carriedTotal(p: SearchPlan, carried: boolean) {
  return {
    carried,
    column: !carried
      ? Prisma.empty
      : countedInPass(p)
        ? Prisma.sql`, COUNT(*) OVER () AS "totalCount"`
        : Prisma.sql`, ${totalSql(p)} AS "totalCount"`,
    of: (raw: RawRows | undefined) => {
      const at = raw?.names.indexOf("totalCount") ?? -1;
      return carried && raw && at >= 0 && raw.rows.length > 0 ? Number(raw.rows[0][at]) : undefined;
    },
  };
}

/** An order with an index: RELEVANCE without words and DISTANCE without a point read newest first. */
const sortOf = (q: RestaurantQuery): "RATING" | "TITLE" | "NEWEST" =>
  q.sort === "RELEVANCE" || q.sort === "DISTANCE" ? "NEWEST" : q.sort;

/** The rows matching words and every other condition, for an order other than relevance. */
function wordsFrom(p: SearchPlan, shape: Shape): Prisma.Sql {
  const t = table(p.catalogue);
  if (p.provider === "sqlite") return byKeys(p, shape, wordKeys(p));
  // With near: led by the documents within the circle (search-totals.ts matchingRows). Planned
  // freely, the box of the GiST index led, estimated at 1,000 rows: "pizza" near Lisbon, 5 km, by
  // rating, at 1,000,000 restaurants probed the documents of 113,371 restaurants (1.0-1.8 s).
  if (p.near) return Prisma.sql`${matchingRows(p)} ${shape.joins}`;
  return Prisma.sql`FROM ${t} JOIN ${Prisma.raw(`"${p.catalogue}Search"`)} "m" ON "m".${Prisma.raw(OWNER_KEY[p.catalogue])} = ${t}."id" AND ${documentMatches(p, `"m"`)}
    ${shape.joins} ${whereAll(conditionsOf(p, false))}`;
}

// ---- Groceries -------------------------------------------------------------------------------------

/** Groceries matching every condition, best match or newest first (the id breaks ties). */
export async function groceryPage(db: Db, q: GroceryQuery, window: Window) {
  const p: SearchPlan = {
    provider: db.dialect,
    catalogue: "Grocery",
    words: q.words?.length ? await wordsQuery(db, db.dialect, "Grocery", q.words) : undefined,
    titleKey: q.titleKey,
    tags: q.tags,
    rowTests: [],
    keptCounts: await listCounts(db, "Grocery", q),
  };
  const shape: Shape = { select: GROCERY_COLUMNS, joins: Prisma.empty };
  const raw =
    q.sort === "RELEVANCE" && p.words
      ? await relevancePage(db, p, shape, window)
      : p.words
        ? await db.readSearch(pageSql(shape, wordsFrom(p, shape), GROCERY_NEWEST, window))
        : await readPage(
            db,
            p,
            window,
            pageSql(shape, Prisma.sql`FROM "Grocery" ${whereAll(conditionsOf(p, false))}`, GROCERY_NEWEST, window),
          );
  const { count, facets } = searchSummary(db, p, GROCERY_FACETS);
  return { rows: rowsOf<GroceryRow>(GROCERY, raw), count, facets };
}
