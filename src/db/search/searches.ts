// The two searches, as the domain asks them once it checked their input: a page of restaurants (with
// what the request asks of each row, in the page's one statement) and a page of groceries, each
// with its total and facets on demand. Both plan the query (search-plan.ts), then read the page in the
// way its order allows (pages.ts); what differs between the databases is the engine's (db.sql.search).
import type { Db } from "../db.ts";
import { Prisma } from "../prisma.ts";
import { GROCERY, GROCERY_COLUMNS, restaurantSelectList, rowsOf, type RestaurantColumn } from "../reads/columns.ts";
import { relatedRowsOf, relatedSql, type RestaurantRelations, type RestaurantWithRelated } from "../reads/related.ts";
import type { GroceryRow } from "../rows.ts";
import { distanceKm, matchingCatalogueRows } from "./conditions.ts";
import { GROCERY_FACETS, RESTAURANT_FACETS, searchSummary } from "./facets.ts";
import { distancePage, GROCERY_NEWEST, orderedPage, ORDERS, readPage, totalInPage } from "./pages.ts";
import type { Catalogue, Near, PageShape, RelevancePage, SearchPlan, TagCondition, Window } from "../search-plan.ts";
import { pageSql } from "./sql.ts";
import { countPairsOf, farPastLimit, storedCounts } from "./stored-counts.ts";
import { cellsQueries, wordsQuery } from "./words.ts";

export type { Facets, FacetValue } from "./facets.ts";
export type { Total } from "./totals.ts";
export type { Near, TagCondition, Window } from "../search-plan.ts";

export type RestaurantSort = "RELEVANCE" | "DISTANCE" | "RATING" | "TITLE" | "NEWEST";

export type RestaurantQuery = {
  /** Words to find (words.ts); the last one also as a prefix. */
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

/** The plan of a restaurant query: its conditions, its words as the engine's query text. */
async function restaurantPlan(db: Db, q: RestaurantQuery): Promise<SearchPlan> {
  const engine = db.sql.search;
  const rowTests: Prisma.Sql[] = [];
  if (q.canHomeDeliver != null)
    rowTests.push(Prisma.raw(`"Restaurant"."canHomeDeliver" = ${q.canHomeDeliver ? "TRUE" : "FALSE"}`));
  if (q.acceptsReservations != null)
    rowTests.push(Prisma.raw(`"Restaurant"."acceptsReservations" = ${q.acceptsReservations ? "TRUE" : "FALSE"}`));
  const words = q.words?.length ? await wordsQuery(db, engine, "Restaurant", q.words) : undefined;
  return {
    engine,
    limits: db.searchLimits,
    catalogue: "Restaurant",
    words,
    titleKey: q.titleKey,
    tags: q.tags,
    cityKey: q.cityKey,
    minRating: q.minRating,
    near: q.near,
    ...(words && q.near ? cellsQueries(engine, words, q.near) : {}),
    rowTests,
    openPatterns: q.openAt ? await engine.openPatterns(db, q.openAt) : undefined,
    storedCounts: await storedCountsFor(db, "Restaurant", q),
    recentCounts: db.recentCounts,
    recentEstimates: db.recentEstimates,
  };
}

/**
 * The stored counts of the catalogue and of the lists' values and the city a search names, when it
 * names any (or a title substring the engine counts, or an hour to be open at), as recently read.
 */
async function storedCountsFor(
  db: Db,
  catalogue: Catalogue,
  q: { tags: TagCondition[]; cityKey?: string; titleKey?: string; openAt?: Date },
) {
  const pairs = countPairsOf({ tags: q.tags, cityKey: q.cityKey });
  const substring = q.titleKey && db.sql.search.countsTitleMatches;
  if (!pairs.length && !substring && !q.openAt) return undefined;
  const asked: [string, string][] = [["ALL", ""], ...pairs];
  return db.recentCounts(`${catalogue}\u0000${asked.flat().join("\u0000")}`, () => storedCounts(db, catalogue, asked));
}

/**
 * Restaurants matching every condition, in the order asked (the id breaks ties), each with the
 * relations asked, in one statement; the total (when asked, it is counted beside the page) and
 * facets on demand.
 */
export async function restaurantPage(db: Db, q: RestaurantQuery, window: Window, asks: RestaurantPageAsks = {}) {
  const p = await restaurantPlan(db, q);
  const ranked = (q.sort === "RELEVANCE" && p.words) || (q.sort === "DISTANCE" && q.near);
  // A page read in one statement carries its total; the others (several statements) count it beside.
  // Nor does a search whose total the sample estimates first (stored-counts.ts farPastLimit).
  const total = totalInPage(p, asks.count === true && !ranked && !farPastLimit(p));
  // Or the relevance page's statement counts the matches while it ranks them (matchesCounted): no
  // statement counts them beside it, not even the facets' (past the limit, the facets come from
  // the sample, and that statement is not sent at all). When it ranked every match (allMatches),
  // it answers the total exactly and, asked, the facets too.
  const byRelevance = q.sort === "RELEVANCE" && p.words !== undefined;
  let page: RelevancePage | undefined;
  const summary = searchSummary(db, p, RESTAURANT_FACETS, {
    inPage: () => total.of(page) ?? page?.matchesCounted,
    allMatches: () => page?.allMatches,
    facetsAsked: asks.facets,
  });
  const countedWhileRanking = byRelevance && p.engine.countsWhileRanking(p);
  if (asks.count && !total.inPage && !countedWhileRanking) void summary.count().catch(() => undefined); // awaited (and its error thrown) by the field
  const related = relatedSql(asks, db.sql.json);
  const distance = q.near ? Prisma.sql`, ${distanceKm(q.near)} AS "distanceKm"` : Prisma.empty;
  const shape: PageShape = {
    select: Prisma.sql`${restaurantSelectList(asks.columns)}${related.columns}${distance}`,
    joins: related.joins,
  };
  const raw: RelevancePage = byRelevance
    ? await p.engine.relevancePage(
        db,
        p,
        shape,
        window,
        summary.exactMatches,
        asks.facets ? RESTAURANT_FACETS : undefined,
      )
    : q.sort === "DISTANCE" && q.near
      ? await distancePage(db, p, q.near, shape, window)
      : p.words
        ? await db.readSearch(pageSql(shape, p.engine.wordRows(p, shape), ORDERS[sortOf(q)].sql, window, total.column))
        : await orderedPage(db, p, shape, window, ORDERS[sortOf(q)], total);
  page = raw;
  const rows: RestaurantHit[] = relatedRowsOf(raw, asks, asks.columns);
  if (q.near) {
    const at = raw.names.indexOf("distanceKm");
    rows.forEach((row, i) => (row.distanceKm = Number(raw.rows[i][at])));
  }
  return { rows, count: summary.count, facets: summary.facets };
}

/** An order with an index: RELEVANCE without words and DISTANCE without a point read newest first. */
const sortOf = (q: RestaurantQuery): "RATING" | "TITLE" | "NEWEST" =>
  q.sort === "RELEVANCE" || q.sort === "DISTANCE" ? "NEWEST" : q.sort;

/** Groceries matching every condition, best match or newest first (the id breaks ties). */
export async function groceryPage(db: Db, q: GroceryQuery, window: Window) {
  const engine = db.sql.search;
  const p: SearchPlan = {
    engine,
    limits: db.searchLimits,
    catalogue: "Grocery",
    words: q.words?.length ? await wordsQuery(db, engine, "Grocery", q.words) : undefined,
    titleKey: q.titleKey,
    tags: q.tags,
    rowTests: [],
    storedCounts: await storedCountsFor(db, "Grocery", q),
    recentCounts: db.recentCounts,
    recentEstimates: db.recentEstimates,
  };
  const shape: PageShape = { select: GROCERY_COLUMNS, joins: Prisma.empty };
  const raw: RelevancePage =
    q.sort === "RELEVANCE" && p.words
      ? await engine.relevancePage(db, p, shape, window)
      : p.words
        ? await db.readSearch(pageSql(shape, engine.wordRows(p, shape), GROCERY_NEWEST, window))
        : await readPage(db, p, window, pageSql(shape, matchingCatalogueRows(p), GROCERY_NEWEST, window));
  const { count, facets } = searchSummary(db, p, GROCERY_FACETS, {
    inPage: () => raw.matchesCounted,
    allMatches: () => raw.allMatches,
  });
  return { rows: rowsOf<GroceryRow>(GROCERY, raw), count, facets };
}
