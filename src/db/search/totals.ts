// A search's total, bounded: its cost does not grow with the catalogue. A stored count answers
// exactly when the search is one value or none (stored-counts.ts); otherwise the matches are
// counted one by one up to the exact-count limit, from an index alone where the engine can; past
// that, the total is estimated from one fixed sample and said to be (`totalCountIsEstimate`).
// An estimate from k sampled matches is off by about 1/sqrt(k) (binomial): k >= 400 puts 95% of
// estimates within ±10% (1.96² / 0.1² ≈ 384), k >= 100 within ±20%; which searches hold that
// many matches in the sample is stated in the schema (docs/performance.md, "Totals and facets").
import { Prisma } from "../prisma.ts";
import type { SqlReader } from "../raw-rows.ts";
import { conditionsOf } from "./conditions.ts";
import { wordsAlone, type SearchPlan, type TagCondition } from "../search-plan.ts";
import { CITY_COLUMNS, query, table, whereAll } from "./sql.ts";
import { countKey, countsTable, farPastLimit, rarestCondition, storedCounts, storedTotalOf } from "./stored-counts.ts";

export type Total = { count: number; estimate: boolean };

/**
 * The matches led by the index of the rarest list value or the city (stored-counts.ts), each other
 * condition tested row by row; `tagLed` reads a list's rows the way its database reads them best.
 */
export function ledCount(
  p: SearchPlan,
  tagLed: (p: SearchPlan, lead: TagCondition, rest: SearchPlan) => Prisma.Sql,
): Prisma.Sql | undefined {
  const lead = rarestCondition(p);
  if (!lead) return undefined;
  if (lead === "city")
    return Prisma.sql`SELECT 1 AS "x" FROM ${table(p.catalogue)} ${whereAll(conditionsOf(p, true, "city"))}`;
  return tagLed(p, lead, { ...p, tags: p.tags.filter((c) => c !== lead) });
}

/** Counts the matches up to one more than the exact limit: the work stops there. */
export function boundedCountSql(p: SearchPlan): Prisma.Sql {
  const limit = Prisma.raw(`LIMIT ${p.limits.exactCountLimit + 1}`);
  return Prisma.sql`SELECT COUNT(*) AS "n" FROM (${p.engine.countShortcut(p) ?? Prisma.sql`SELECT 1 AS "x" ${p.engine.matchingRows(p)}`} ${limit}) "bounded"`;
}

/**
 * The statement of a search's total as a page statement can carry it (a scalar subquery the
 * database computes once): the stored count, or the matches counted up to one past the limit.
 */
export function totalSql(p: SearchPlan): Prisma.Sql {
  const stored = storedTotalOf(p);
  const sql = stored
    ? Prisma.sql`SELECT "n" FROM ${countsTable(p.catalogue)} WHERE "kind" = ${stored[0]} AND "valueKey" = ${stored[1]}`
    : boundedCountSql(p);
  return Prisma.sql`COALESCE((${sql}), 0)`;
}

/**
 * A search's total: stored, counted up to the limit, or estimated from the sample (and said so).
 * `inPage`: what totalSql gave, when the page statement carried it.
 */
export async function totalOf(
  db: SqlReader,
  p: SearchPlan,
  inPage?: number,
  sampled = () => sampledTotal(db, p),
): Promise<Total> {
  const limit = p.limits.exactCountLimit;
  const stored = storedTotalOf(p);
  if (stored)
    return {
      count: inPage ?? (await storedCounts(db, p.catalogue, [stored])).get(countKey(...stored)) ?? 0,
      estimate: false,
    };
  // Expected far past the limit: the sample first, trusted unless it says the total is near the
  // limit (below 3 times it, the matches are counted after all).
  const early = inPage === undefined && farPastLimit(p) ? await sampled() : undefined;
  if (early !== undefined && early >= 3 * limit) return { count: Math.round(early), estimate: true };
  const bounded = inPage ?? (await query<{ n: number }>(db, { n: "int" }, boundedCountSql(p)))[0]?.n ?? 0;
  if (bounded <= limit) return { count: bounded, estimate: false };
  return { count: Math.max(Math.round(early ?? (await sampled())), limit + 1), estimate: true };
}

/** The matches in the sample, scaled to the catalogue. */
async function sampledTotal(db: SqlReader, p: SearchPlan): Promise<number> {
  const { m, share } = await p.engine.sample(db, p, { countOnly: true });
  const sampled =
    (await query<{ n: number }>(db, { n: "int" }, Prisma.sql`SELECT COUNT(*) AS "n" FROM (${m}) "m"`))[0]?.n ?? 0;
  return sampled / share;
}

/** A sample's "m" from `from`: each match's id, and the city the facets count. */
export const sampleSelect = (p: SearchPlan, from: Prisma.Sql) =>
  Prisma.sql`SELECT ${table(p.catalogue)}."id" AS "id", ${Prisma.raw(CITY_COLUMNS[p.catalogue])} ${from}`;

/** Whether a count of the sample needs only the words' index: the words are the only condition. */
export const onlyWordsCounted = (p: SearchPlan, countOnly: boolean) => countOnly && wordsAlone(p);
