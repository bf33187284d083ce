// How a page of matches is read, bounded by the page rather than by how many rows match:
// - by relevance, the words' index ranks at most the rank window of matches (the engine's
//   relevancePage);
// - by distance, the circle is searched from a small radius outwards until the page is full;
// - in an order with an index (newest, rating, title), the page is read in that index testing each
//   row, unless the stored counts say the matches are too few for that to end soon.
import { Prisma } from "../prisma.ts";
import type { RawRows, SearchReadOptions } from "../raw-rows.ts";
import type { Db } from "../db.ts";
import { filteredRows, patternIn, within } from "./conditions.ts";
import { unfiltered, type Near, type PageShape, type SearchPlan, type Window } from "../search-plan.ts";
import { countOf, pageSql, query, whereAll } from "./sql.ts";
import { countKey, everyValueFew, expectedShare } from "./stored-counts.ts";
import { totalSql } from "./totals.ts";

/** An order with an index; the id ends every order, so pages never overlap or skip rows that tie. */
export type IndexedOrder = { sql: Prisma.Sql; column?: string };

// Qualified: the owner's and the comment's joined columns have the same names.
export const ORDERS: Record<"RATING" | "TITLE" | "NEWEST", IndexedOrder> = {
  RATING: { sql: Prisma.raw(`"Restaurant"."ratingAvg" DESC NULLS LAST, "Restaurant"."id" ASC`), column: "rating" },
  TITLE: { sql: Prisma.raw(`"Restaurant"."titleOrder" ASC, "Restaurant"."id" ASC`) },
  NEWEST: { sql: Prisma.raw(`"Restaurant"."createdAt" DESC, "Restaurant"."id" DESC`) },
};
export const GROCERY_NEWEST = Prisma.raw(`"Grocery"."createdAt" DESC, "Grocery"."id" DESC`);

/** A near search by distance looks first within this share of its radius, then 4 times wider each time. */
const FIRST_RADIUS_SHARE = 1 / 16;

/**
 * A page by distance: within a small circle first, then one 4 times wider, until the page is full
 * or the circle is the one asked for. A full page within a smaller circle is the page of the whole
 * one: every row nearer than its last row lies in it. With words, the words' index leads instead
 * (the circle's rows are tested on them), and every match is sorted.
 */
export async function distancePage(db: Db, p: SearchPlan, near: Near, shape: PageShape, window: Window) {
  const order = Prisma.sql`"distanceKm" ASC, "Restaurant"."id" ASC`;
  if (p.words) return db.readSearch(pageSql(shape, p.engine.wordRows(p, shape), order, window));
  for (let radiusKm = near.radiusKm * FIRST_RADIUS_SHARE; ; radiusKm *= 4) {
    const circle = { ...near, radiusKm: Math.min(radiusKm, near.radiusKm) };
    const rows = await db.readSearch(pageSql(shape, p.engine.nearRows(p, circle, shape), order, window));
    if (rows.rows.length > window.take || circle.radiusKm >= near.radiusKm) return rows;
  }
}

/**
 * A page in an order with an index and no words: read in that index, testing each row until the
 * page is full, when the stored counts say the matches are many enough for that to end soon (led
 * by a filter's index instead, the databases sort every match first); else the engine's page of
 * the filters, sorted. A total counted over the page's own pass reads every match whatever the
 * order: walking then finds nothing sooner, and the planner leads by the filters' indexes.
 */
export async function orderedPage(
  db: Db,
  p: SearchPlan,
  shape: PageShape,
  window: Window,
  order: IndexedOrder,
  total: PageTotal = NO_TOTAL,
): Promise<RawRows> {
  const walk = !total.overPage && (await walkFindsPageSoon(db, p, window));
  const sql = walk
    ? pageSql(shape, filteredRows(p, shape.joins, true, order.column), order.sql, window, total.column)
    : p.engine.unwalkedPage(p, shape, order.sql, window, total.inPage ? total.column : undefined);
  const planOnce = walk
    ? window.skip === 0 && plannedAlike(p)
    : plannedAlike(p) && p.minRating == null && everyValueFew(p, p.limits.exactCountLimit);
  return readPage(db, p, window, sql, { planOnce });
}

/**
 * Whether a walk of an order's index is planned alike for every value of the search's conditions:
 * lists, a city, a minimum rating and flags only. A circle's radius, a title's substring and the
 * hour's open patterns change how many rows pass, and so the plan; so does an offset (a value
 * too): planned for any offset, PostgreSQL assumes a tenth of the rows are read, and may sort
 * them all rather than walk. A page not walked is planned once only when every list value and the
 * city are few (no minimum rating, whose index may lead): any plan then reads few rows, and
 * planning it anew cost more than running it (0.72 ms and 0.45 ms for city by rating on `large`).
 */
const plannedAlike = (p: SearchPlan) => !p.words && !p.near && !p.titleKey && !p.openPatterns;

/**
 * A page's statement, read in the searches' share as every search's, but for a shallow page of
 * the whole catalogue where the engine reads those as any bounded read: such a page walks at most
 * the shallow-page rows of an index, nothing one client could hold the connections with.
 */
export function readPage(
  db: Db,
  p: SearchPlan,
  { skip, take }: Window,
  sql: Prisma.Sql,
  how?: SearchReadOptions,
): Promise<RawRows> {
  return p.engine.readsShallowPagesDirectly && unfiltered(p) && skip + take <= p.limits.shallowPageRows
    ? db.read(sql)
    : db.readSearch(sql, how);
}

/**
 * Whether walking the order's index would find the page soon: the matches, as the stored counts of
 * the lists and the city suggest (each other condition taken to keep half), are at least the share
 * of the catalogue that finds the page within the walk budget. A title substring counts its
 * matches from the engine's index, up to what would be enough (one too short for that index
 * matches widely, and walking is never worse than reading every row); an engine that counts none
 * leaves a substring to its database's planner. Open patterns count their restaurants from their
 * index: the stored counts know nothing of the hour.
 */
async function walkFindsPageSoon(db: Db, p: SearchPlan, { skip, take }: Window): Promise<boolean> {
  if (p.titleKey && !p.engine.countsTitleMatches) return false;
  const counts = p.storedCounts;
  if (!counts) return true;
  const all = Math.max(1, counts.get(countKey("ALL", "")) ?? 0);
  let share = expectedShare(p);
  const needed = (skip + take + 1) / p.limits.walkBudget;
  const titleKeys = p.titleKey ? p.engine.titleKeys(p) : undefined;
  if (titleKeys && share >= needed) {
    const enough = Math.ceil((needed / share) * all) + 1;
    const found =
      (
        await query<{ n: number }>(
          db,
          { n: "int" },
          Prisma.sql`SELECT COUNT(*) AS "n" FROM (${titleKeys} LIMIT ${Prisma.raw(String(enough))}) "t"`,
        )
      )[0]?.n ?? 0;
    share *= found / all;
  }
  // A circle counts the catalogue's rows within it, up to what would be enough: a wide one around
  // a dense city holds so many that the order's index finds the page among its first rows, where
  // the spatial index led to every row of the circle, sorted (50 km around a city holding 100,000).
  if (p.near && share >= needed) {
    const enough = Math.ceil((needed / share) * all) + 1;
    const near = Prisma.sql`SELECT 1 FROM "Restaurant" ${whereAll(within(p, p.near, `"Restaurant"`, ""))} LIMIT ${Prisma.raw(String(enough))}`;
    share *= (await countOf(db, near)) / all;
  }
  if (p.openPatterns?.length && share >= needed) {
    const enough = Math.ceil(needed * all) + 1;
    const city = p.cityKey ? [Prisma.sql`"Restaurant"."citySearch" = ${p.cityKey}`] : [];
    const open = Prisma.sql`SELECT 1 FROM "Restaurant" ${whereAll([...city, patternIn(p.engine, p.openPatterns)])} LIMIT ${Prisma.raw(String(enough))}`;
    const found =
      (await query<{ n: number }>(db, { n: "int" }, Prisma.sql`SELECT COUNT(*) AS "n" FROM (${open}) "o"`))[0]?.n ?? 0;
    if (found < enough) return false;
  }
  return share >= needed;
}

/**
 * The total as a column of a page statement: `column` (", ... AS totalCount", empty when not
 * `inPage`), and whether it is counted over the page's own pass (`overPage`: every match is read).
 */
export type PageTotal = { inPage: boolean; column: Prisma.Sql; overPage: boolean };
const NO_TOTAL: PageTotal = { inPage: false, column: Prisma.empty, overPage: false };

/**
 * The total as a column of the page statement, when `inPage`: the database computes it once, and a
 * page with rows then needs no statement of its own for it (a page past the end has no row to carry
 * it: it is then counted when asked).
 */
export function totalInPage(p: SearchPlan, inPage: boolean) {
  const overPage = inPage && p.engine.countsInPagePass(p);
  return {
    inPage,
    overPage,
    column: !inPage
      ? Prisma.empty
      : overPage
        ? Prisma.sql`, COUNT(*) OVER () AS "totalCount"`
        : Prisma.sql`, ${totalSql(p)} AS "totalCount"`,
    of: (raw: RawRows | undefined) => {
      const at = raw?.names.indexOf("totalCount") ?? -1;
      return inPage && raw && at >= 0 && raw.rows.length > 0 ? Number(raw.rows[0][at]) : undefined;
    },
  };
}
