// A search's total, bounded: its cost does not grow with the catalogue. A stored count answers
// exactly when the search is one value or none (stored-counts.ts); otherwise the matches are
// counted one by one up to the exact-count limit, from an index alone where the engine can; past
// that, the total is estimated from one fixed sample and said to be (`totalCountIsEstimate`).
// An estimate from k sampled matches is off by about 1/sqrt(k) (binomial): k >= 400 puts 95% of
// estimates within ±10% (1.96² / 0.1² ≈ 384), k >= 100 within ±20%; which searches hold that
// many matches in the sample is stated in the schema (docs/performance.md, "Totals and facets").
// A sample led by a list (leadSample) still holds every sampled match (each holds a list value),
// each kept by a hash of its key with at least the catalogue sample's share: k is at least as
// large, in expectation, so the bound holds.
import { Prisma } from "../prisma.ts";
import type { SqlReader } from "../raw-rows.ts";
import { conditionsOf } from "./conditions.ts";
import { wordsAlone, type SearchPlan, type TagCondition } from "../search-plan.ts";
import { CITY_COLUMNS, OWNER_KEY, query, table, whereAll } from "./sql.ts";
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

/**
 * The lead list's rows ("id"), one value after another, each row once: under the first listed
 * value it holds (the rows that hold an earlier one are left out of the later ones). `kept`: a
 * sample's conditions on the lead's row ("lead"); the few rows kept are then probed for an earlier
 * value one by one (a scalar subquery), where NOT EXISTS let PostgreSQL hash every row of the
 * earlier values, a part that grows with the catalogue.
 */
export function leadRows(p: SearchPlan, lead: TagCondition, kept?: Prisma.Sql[]): Prisma.Sql {
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  const tags = Prisma.raw(`"${p.catalogue}Tag"`);
  const each = lead.keys.map((key, i) => {
    const tests = [Prisma.sql`"lead"."kind" = ${lead.kind}`, Prisma.sql`"lead"."valueKey" = ${key}`, ...(kept ?? [])];
    const earlier = lead.keys.slice(0, i);
    if (earlier.length) {
      const rows = Prisma.sql`FROM ${tags} "e" WHERE "e".${owner} = "lead".${owner} AND "e"."kind" = ${lead.kind} AND "e"."valueKey" IN (${Prisma.join(earlier)})`;
      tests.push(kept ? Prisma.sql`(SELECT 1 ${rows} LIMIT 1) IS NULL` : Prisma.sql`NOT EXISTS (SELECT 1 ${rows})`);
    }
    return Prisma.sql`SELECT "lead".${owner} AS "id" FROM ${tags} "lead" ${whereAll(tests)}`;
  });
  return Prisma.join(each, " UNION ALL ");
}

/** A sample led by a list: its lead, the conditions tested on each row kept, and the share kept. */
export type LeadSample = { lead: TagCondition; rest: SearchPlan; share: number };

/**
 * The sample of a search led by a list (rarestCondition, as ledCount): the lead's rows whose key
 * hashes under the share, each then tested on the other conditions, in place of the catalogue's
 * sampled rows each tested on every condition. Every match holds a lead value, so the matches
 * sampled, and the facets counted over them, are a sample of the matches as before, read from the
 * share of the lead's rows instead of the share of the catalogue. The share is the catalogue
 * sample's (`sampledRows` of the catalogue); a lead of less than a tenth of the catalogue is
 * sampled more densely, up to a tenth of `sampledRows` read: more matches for few rows.
 * Where every entry of the lead's index is read and hashed (SQLite), `entriesPerRow` of them cost
 * about one row of the catalogue's sample: a lead that would cost more (many values of a common
 * list, on a large catalogue) leaves the catalogue's sample, whose cost does not grow with the
 * catalogue. Where the index holds the entries by their owner's hash (Infinity, on PostgreSQL), only
 * the kept ones are read.
 */
export function leadSample(p: SearchPlan, sampledRows: number, entriesPerRow: number): LeadSample | undefined {
  const lead = rarestCondition(p);
  if (!lead || lead === "city" || !p.storedCounts) return undefined;
  const counts = p.storedCounts;
  const all = counts.get(countKey("ALL", "")) ?? 0;
  const listed = lead.keys.reduce((sum, k) => sum + (counts.get(countKey(lead.kind, k)) ?? 0), 0);
  const share = Math.min(1, Math.max(sampledRows / Math.max(all, 1), sampledRows / 10 / Math.max(listed, 1)));
  if (listed / entriesPerRow + share * listed >= sampledRows) return undefined;
  return { lead, rest: { ...p, tags: p.tags.filter((c) => c !== lead) }, share };
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
