// PostgreSQL's counts and samples: words led by the search documents, a list value's rows one value
// after another, and samples of rows by their id's hash.
import { Prisma } from "../../prisma.ts";
import type { SqlReader } from "../../raw-rows.ts";
import { conditionsOf, matchingCatalogueRows } from "../../search/conditions.ts";
import { wordsAlone, type Sample, type SearchPlan, type TagCondition } from "../../search-plan.ts";
import { OWNER_KEY, query, table, whereAll } from "../../search/sql.ts";
import { countKey, storedTotalOf } from "../../search/stored-counts.ts";
import { ledCount, onlyWordsCounted, sampleSelect } from "../../search/totals.ts";
import { afterDocuments, documentMatches, documentsTable, documentTests, rowsLedBy } from "./documents.ts";

/** The rows matching every condition: with words, led by the search documents; else as the planner reads them. */
export function matchingRows(p: SearchPlan): Prisma.Sql {
  if (!p.words) return matchingCatalogueRows(p);
  const [owner, documents] = [Prisma.raw(OWNER_KEY[p.catalogue]), documentsTable(p.catalogue)];
  const words = Prisma.sql`(SELECT "m".${owner} AS "id" FROM ${documents} "m" ${whereAll(documentTests(p, `"m"`))}) "words"`;
  return rowsLedBy(afterDocuments(p), words, `"words"`);
}

/**
 * The rows of the lead list's values, each other condition tested row by row: each value's rows
 * follow the one before, less the rows that have an earlier value (a row may hold several of the
 * values). DISTINCT made PostgreSQL hash every row of the values before the first count.
 */
function tagLedRows(p: SearchPlan, lead: TagCondition, rest: SearchPlan): Prisma.Sql {
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  const tags = Prisma.raw(`"${p.catalogue}Tag"`);
  const each = lead.keys.map((key, i) => {
    const earlier = lead.keys.slice(0, i);
    const earlierRow = Prisma.sql`"e".${owner} = "lead".${owner} AND "e"."kind" = ${lead.kind}`;
    const unseen = earlier.length
      ? Prisma.sql`AND NOT EXISTS (SELECT 1 FROM ${tags} "e" WHERE ${earlierRow} AND "e"."valueKey" IN (${Prisma.join(earlier)}))`
      : Prisma.empty;
    return Prisma.sql`SELECT "lead".${owner} AS "id" FROM ${tags} "lead" WHERE "lead"."kind" = ${lead.kind} AND "lead"."valueKey" = ${key} ${unseen}`;
  });
  return Prisma.sql`SELECT 1 AS "x" ${rowsLedBy(rest, Prisma.sql`(${Prisma.join(each, " UNION ALL ")}) "lead"`, `"lead"`)}`;
}

/** The rows led by the rarest list, or, for words alone, the search documents alone. */
export const countShortcut = (p: SearchPlan): Prisma.Sql | undefined =>
  ledCount(p, tagLedRows) ??
  (wordsAlone(p)
    ? Prisma.sql`SELECT 1 FROM ${documentsTable(p.catalogue)} "m" WHERE ${documentMatches(p, `"m"`)}`
    : undefined);

/**
 * Whether the page statement counts the matches in its own pass over them (`COUNT(*) OVER ()`)
 * instead of carrying a count that reads them all again: only when the stored counts bound the
 * matches within the limit (the rarest list value, or the city, has at most that many rows), as
 * the page then reads every match anyway to sort them.
 */
export function countsInPagePass(p: SearchPlan): boolean {
  if (!p.storedCounts || p.words || p.titleKey || p.near || storedTotalOf(p)) return false;
  const counts = p.storedCounts;
  const bounds = p.tags.map((c) => c.keys.reduce((sum, k) => sum + (counts.get(countKey(c.kind, k)) ?? 0), 0));
  if (p.cityKey) bounds.push(counts.get(countKey("CITY", p.cityKey)) ?? 0);
  return bounds.length > 0 && Math.min(...bounds) <= p.limits.exactCountLimit;
}

/**
 * The rows whose id hashes under the share (hashtext, read from its expression index: migration
 * 20261128180000_uniform_sample), of the search documents when there are words, else of the
 * catalogue: each row is in it or not by its own id, so rows loaded city by city are sampled as
 * evenly as shuffled ones. The same rows from one page to the next.
 */
export async function sample(db: SqlReader, p: SearchPlan, { countOnly = false }): Promise<Sample> {
  const t = table(p.catalogue);
  const sampled = p.words ? `"${p.catalogue}Search"` : `"${p.catalogue}"`;
  const rows =
    (
      await query<{ n: number }>(
        db,
        { n: "float" },
        Prisma.sql`SELECT GREATEST(reltuples, 1) AS "n" FROM pg_class WHERE oid = ${sampled}::regclass`,
      )
    )[0]?.n ?? 1;
  // Without words, half the rows: each is tested against every condition (a tag test is an index
  // probe), and 10,000 rows cost twice main's sample of contiguous pages.
  const share = Math.min(1, (p.words ? p.limits.sampleRows : p.limits.sampleRows / 2) / rows);
  // Written into the statement: a bound parameter left a generic plan guessing a third of the rows.
  const hashed = (alias: string, key: string) =>
    share >= 1 ? [] : [Prisma.raw(`hashtext(${alias}.${key}) < ${Math.floor(-(2 ** 31) + share * 2 ** 32)}`)];
  if (onlyWordsCounted(p, countOnly))
    return {
      m: Prisma.sql`SELECT 1 FROM ${Prisma.raw(sampled)} "m" ${whereAll([...hashed(`"m"`, OWNER_KEY[p.catalogue]), documentMatches(p, `"m"`)])}`,
      share,
    };
  // The sampled documents lead, each row then read by its id (LATERAL): planned generically, the
  // sample scan ran again for each row of a near search.
  const columns = Prisma.raw(p.catalogue === "Restaurant" ? `"id", "citySearch", "city"` : `"id"`);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  const documentsSampled = whereAll([...hashed(`"m"`, OWNER_KEY[p.catalogue]), ...documentTests(p, `"m"`)]);
  const rowTested = whereAll([Prisma.sql`${t}."id" = "sampled"."owner"`, ...conditionsOf(afterDocuments(p), true)]);
  const from = p.words
    ? Prisma.sql`FROM (SELECT "m".${owner} AS "owner" FROM ${Prisma.raw(sampled)} "m" ${documentsSampled}) "sampled"
        CROSS JOIN LATERAL (SELECT ${columns} FROM ${t} ${rowTested} OFFSET 0) ${t}`
    : Prisma.sql`FROM ${t} ${whereAll([...hashed(`"${p.catalogue}"`, `"id"`), ...conditionsOf(p, true)])}`;
  return { m: sampleSelect(p, from), share };
}

/** "m" joined to its rows' list values of these kinds, each match's read by its key (LATERAL): the planner otherwise scanned every tag row. */
export function facetTags(p: SearchPlan, kinds: string[]): Prisma.Sql {
  const tags = Prisma.raw(`"${p.catalogue}Tag"`);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  return Prisma.sql`"m" CROSS JOIN LATERAL (SELECT x."kind", x."valueKey", x."value" FROM ${tags} x
          WHERE x.${owner} = "m"."id" AND x."kind" IN (${Prisma.join(kinds)}) OFFSET 0) t`;
}
