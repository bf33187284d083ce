// A search's facets (per list value and city, how many matches have it), and the summary that
// answers a search's total and facets together, each read when first asked. Facets of the whole
// catalogue come from the stored counts; exact over the matches when the total is exact and within
// the limit, or when the relevance page's statement ranked every match (PostgreSQL); otherwise
// counted over the sample and scaled, and said so (`facets.exact: false`).
import { Prisma } from "../prisma.ts";
import type { SqlReader } from "../raw-rows.ts";
import {
  unfiltered,
  type AllMatches,
  type CountRow,
  type FacetSpec,
  type FacetValue,
  type SearchPlan,
} from "../search-plan.ts";
import { estimateKey } from "./recent-estimates.ts";
import { query } from "./sql.ts";
import { COUNT_ROW, countsTable, storedTotalOf } from "./stored-counts.ts";
import { totalOf, type Total } from "./totals.ts";

/** Values each facet lists, most frequent first. */
export const FACET_VALUES = 20;

export type { FacetValue };
export type Facets = { exact: boolean; lists: Record<string, FacetValue[]> };

export const RESTAURANT_FACETS: FacetSpec = {
  cuisines: "CUISINE",
  categories: "CATEGORY",
  priceRanges: "PRICE_RANGE",
  cities: "CITY",
};
export const GROCERY_FACETS: FacetSpec = { categories: "CATEGORY" };

/**
 * A value's label, as every facet shows it: the stored one, the spelling most rows of the catalogue
 * have now (migration 20261128210000_facet_labels), one primary-key lookup per value listed.
 */
const labelOf = (p: SearchPlan, kind: Prisma.Sql, key: Prisma.Sql) =>
  Prisma.sql`(SELECT c."value" FROM ${countsTable(p.catalogue)} c WHERE c."kind" = ${kind} AND c."valueKey" = ${key})`;

/**
 * Per list value, how many of "m" have it (`only`: a condition every count keeps to). "m": each
 * match's "id", "cityKey" and "city" (and what the engine's facetTags reads).
 */
export function facetCounts(p: SearchPlan, spec: FacetSpec, only: Prisma.Sql = Prisma.raw("TRUE")): Prisma.Sql {
  const kinds = Object.values(spec).filter((k) => k !== "CITY");
  const [tagKind, tagKey] = [Prisma.sql`CAST(t."kind" AS TEXT)`, Prisma.sql`t."valueKey"`];
  const parts = [
    Prisma.sql`SELECT ${tagKind} AS "kind", ${tagKey} AS "valueKey", COALESCE(${labelOf(p, tagKind, tagKey)}, MIN(t."value")) AS "value", CAST(SUM(t."n") AS INTEGER) AS "n"
      FROM ${p.engine.facetTags(p, kinds)} WHERE ${only} GROUP BY t."kind", t."valueKey"`,
  ];
  if (Object.values(spec).includes("CITY")) {
    const label = labelOf(p, Prisma.sql`'CITY'`, Prisma.sql`g."cityKey"`);
    // "m" may hold the city's key alone (SQLite's search rows): a city without a label then takes
    // the spelling of one of its restaurants, read for that city alone.
    const spelled = Prisma.sql`(SELECT r."city" FROM "Restaurant" r WHERE r."id" = g."id")`;
    const cities = Prisma.sql`SELECT "cityKey", MIN("city") AS "city", MIN("id") AS "id", COUNT(*) AS "n" FROM "m" WHERE "cityKey" IS NOT NULL AND ${only} GROUP BY "cityKey"`;
    parts.push(
      Prisma.sql`SELECT 'CITY' AS "kind", g."cityKey" AS "valueKey", COALESCE(${label}, g."city", ${spelled}) AS "value", g."n" AS "n" FROM (${cities}) g`,
    );
  }
  return Prisma.join(parts, " UNION ALL ");
}

function facetLists(spec: FacetSpec, rows: CountRow[], scale: number): Record<string, FacetValue[]> {
  return Object.fromEntries(
    Object.entries(spec).map(([name, kind]) => [
      name,
      rows
        .filter((r) => r.kind === kind)
        .map((r) => ({ value: r.value, count: Math.max(1, Math.round(r.n * scale)) }))
        .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value))
        .slice(0, FACET_VALUES),
    ]),
  );
}

/** The facets counted over the matches up to one past the exact limit, and how many those are. */
type MatchedFacets = { count: number; lists: Record<string, FacetValue[]> };

/** The kind of the row that counts the matches in the facets' statements. */
const MATCHES = "MATCHES";

async function matchedFacets(db: SqlReader, p: SearchPlan, spec: FacetSpec): Promise<MatchedFacets> {
  const limit = p.limits.exactCountLimit;
  const m = Prisma.sql`${p.engine.matches(p)} LIMIT ${Prisma.raw(String(limit + 1))}`;
  const rows = await query<CountRow>(
    db,
    COUNT_ROW,
    // The lists are read only when the matches are within the limit: past it, the facets come
    // from the sample.
    Prisma.sql`WITH "m" AS (${m}) ${facetCounts(p, spec, Prisma.sql`(SELECT COUNT(*) FROM "m") <= ${limit}`)}
      UNION ALL SELECT ${MATCHES} AS "kind", '' AS "valueKey", '' AS "value", COUNT(*) AS "n" FROM "m"`,
  );
  return { count: rows.find((r) => r.kind === MATCHES)?.n ?? 0, lists: facetLists(spec, rows, 1) };
}

/** The matches in the sample, counted and faceted, both scaled to the catalogue. */
type SampledFacets = { total: number; lists: Record<string, FacetValue[]> };

/** The sample's matches counted and their facets, in one statement: the sample is read once for both. */
async function sampledFacets(db: SqlReader, p: SearchPlan, spec: FacetSpec): Promise<SampledFacets> {
  const { m, share } = await p.engine.sample(db, p, {});
  const rows = await query<CountRow>(
    db,
    COUNT_ROW,
    // Read once for its three uses: SQLite, left to itself, joined the tags first and read the sample for each.
    Prisma.sql`WITH "m" AS MATERIALIZED (${m}) ${facetCounts(p, spec)} UNION ALL SELECT ${MATCHES} AS "kind", '' AS "valueKey", '' AS "value", COUNT(*) AS "n" FROM "m"`,
  );
  return { total: (rows.find((r) => r.kind === MATCHES)?.n ?? 0) / share, lists: facetLists(spec, rows, 1 / share) };
}

async function facetsOf(
  db: SqlReader,
  p: SearchPlan,
  spec: FacetSpec,
  total: () => Promise<Total>,
  matched: () => Promise<MatchedFacets>,
  sampled: () => Promise<SampledFacets>,
  all?: AllMatches,
): Promise<Facets> {
  if (all?.facets) return { exact: true, lists: facetLists(spec, all.facets, 1) };
  if (unfiltered(p)) {
    const rows = await query<CountRow>(
      db,
      COUNT_ROW,
      Prisma.sql`SELECT "kind", "valueKey", "value", "n" FROM ${countsTable(p.catalogue)}
      WHERE "kind" IN (${Prisma.join(Object.values(spec))})`,
    );
    return { exact: true, lists: facetLists(spec, rows, 1) };
  }
  const { count, estimate } = await total();
  if (!estimate && count <= p.limits.exactCountLimit) return { exact: true, lists: (await matched()).lists };
  return { exact: false, lists: (await sampled()).lists };
}

/**
 * A search's total and facets, each read when first asked (`inPage`: the total the page statement
 * carried, totals.ts totalSql; `allMatches`: every match, counted and faceted by the page's
 * statement, which answers both exactly, past the limit too). When facets are asked and the total
 * has to be counted over the matching rows themselves (no stored count, no shortcut), one statement
 * reads those rows up to the limit and answers both; past the limit, one statement over the sample
 * estimates both.
 */
export function searchSummary(
  db: SqlReader,
  p: SearchPlan,
  spec: FacetSpec,
  {
    inPage,
    allMatches,
    facetsAsked = false,
    anew = false,
  }: {
    inPage?: () => number | undefined;
    allMatches?: () => AllMatches | undefined;
    facetsAsked?: boolean;
    /** Read the estimates anew (a renewal), not the ones kept. */
    anew?: boolean;
  } = {},
) {
  const together = facetsAsked && !storedTotalOf(p) && !p.engine.countShortcut(p, true);
  const limit = p.limits.exactCountLimit;
  // The same search answered estimates lately (recent-estimates.ts): no count, no sample. Past
  // their age, they are read anew beside this search, which is given them meanwhile. A renewal's
  // error is dropped: the old estimate is then given until it is twice the age, and the next
  // search after that reads anew in its own path, where an error is answered.
  const key = p.recentEstimates ? estimateKey(p) : "";
  const renew = () => {
    const renewal = searchSummary(db, p, spec, { facetsAsked, anew: true });
    void (facetsAsked ? renewal.facets() : renewal.count()).catch(() => undefined);
  };
  const recent = once(async () => (anew ? undefined : p.recentEstimates?.get(key, renew)));
  const matched = once(() => matchedFacets(db, p, spec));
  const sampled = once(async (): Promise<SampledFacets & { reused?: boolean }> => {
    const kept = await recent();
    return kept?.lists && kept.total !== undefined
      ? { total: kept.total, lists: kept.lists, reused: true }
      : sampledFacets(db, p, spec);
  });
  // With facets asked, an estimated total comes from the same statement as the sampled facets.
  const fromSample = facetsAsked ? async () => (await sampled()).total : undefined;
  const count = once(async (): Promise<Total> => {
    const all = allMatches?.();
    if (all) return { count: all.count, estimate: false };
    const carried = inPage?.();
    const kept = carried === undefined || carried > limit ? (await recent())?.total : undefined;
    if (kept !== undefined) return { count: kept, estimate: true };
    const total = await totalOf(db, p, carried ?? (together ? (await matched()).count : undefined), fromSample);
    if (total.estimate) p.recentEstimates?.keep(key, { total: total.count });
    return total;
  });
  // The exact number of matches, when the one statement for the total and facets counts them all.
  const exactMatches = together
    ? async () => {
        if ((await recent())?.total !== undefined) return undefined;
        const { count: n } = await matched();
        return n <= limit ? n : undefined;
      }
    : undefined;
  const facets = once(async () => {
    const answer = await facetsOf(db, p, spec, count, matched, sampled, allMatches?.());
    if (!answer.exact && !(await sampled()).reused) p.recentEstimates?.keep(key, { lists: answer.lists });
    return answer;
  });
  return { count, facets, exactMatches };
}

/** The promise of the first call, shared by the later ones. */
const once = <T>(compute: () => Promise<T>) => {
  let result: Promise<T> | undefined;
  return () => (result ??= compute());
};
