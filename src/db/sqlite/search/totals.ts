// SQLite's counts and samples: a count or a sample reads the keys of a text or spatial index alone
// when that index holds every condition, and a sample is four windows of keys.
import { Prisma } from "../../prisma.ts";
import type { SqlReader } from "../../raw-rows.ts";
import { conditionsOf, matchingCatalogueRows } from "../../search/conditions.ts";
import { rowTestCount, type Sample, type SearchPlan, type TagCondition } from "../../search-plan.ts";
import { OWNER_KEY, query, table, whereAll } from "../../search/sql.ts";
import { ledCount, onlyWordsCounted, sampleSelect } from "../../search/totals.ts";
import { integerKey, placeKeys, rowsOfKeys, searchRows, trigramExact, trigramKeys, wordKeys } from "./keys.ts";

/**
 * The rows matching every condition, led by the words' FTS5 table (a `range` of its keys, for a
 * sample), else the R*Tree for a near search, each with the other conditions tested row by row;
 * else the catalogue, its conditions in the forms the planner reads from indexes.
 */
export function matchingRows(p: SearchPlan, range: Prisma.Sql = Prisma.empty): Prisma.Sql {
  if (p.words) return rowsOfKeys(p, wordKeys(p, { range }));
  if (p.near) return rowsOfKeys(p, placeKeys(p.near), { ...p, near: undefined });
  return matchingCatalogueRows(p);
}

/** The keys matching every condition from the text indexes alone, when they are the only conditions. */
function textKeysAlone(p: SearchPlan): Prisma.Sql | undefined {
  if (p.tags.length || p.cityKey || p.minRating != null || p.near || rowTestCount(p)) return undefined;
  if (p.titleKey && !trigramExact(p)) return undefined;
  if (p.words && p.titleKey)
    return Prisma.sql`SELECT "w"."key" FROM (${wordKeys(p)}) "w" WHERE "w"."key" IN (${trigramKeys(p)})`;
  return p.words ? wordKeys(p) : p.titleKey ? trigramKeys(p) : undefined;
}

/** The keys within a near search's circle from the R*Tree alone, when it is the only condition. */
function placeKeysAlone(p: SearchPlan): Prisma.Sql | undefined {
  if (!p.near || p.words || p.titleKey || p.tags.length || p.cityKey || p.minRating != null || rowTestCount(p))
    return undefined;
  return placeKeys(p.near);
}

/** The rows of the lead list's values, each other condition tested row by row: DISTINCT streams, and stops at the limit. */
function tagLedRows(p: SearchPlan, lead: TagCondition, rest: SearchPlan): Prisma.Sql {
  const t = table(p.catalogue);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  const tags = Prisma.raw(`"${p.catalogue}Tag"`);
  const value = lead.keys.length === 1 ? Prisma.sql`= ${lead.keys[0]}` : Prisma.sql`IN (${Prisma.join(lead.keys)})`;
  const listed = Prisma.sql`"lead"."kind" = ${lead.kind} AND "lead"."valueKey" ${value}`;
  // A row holds a value once, but may hold several of the values.
  const distinct = Prisma.raw(lead.keys.length > 1 ? "DISTINCT" : "");
  const tested = whereAll([listed, ...conditionsOf(rest, true)]);
  return Prisma.sql`SELECT ${distinct} ${t}."id" FROM ${tags} "lead" JOIN ${t} ON ${t}."id" = "lead".${owner} ${tested}`;
}

/** The keys of an index alone, or the rows led by the rarest list. */
export const countShortcut = (p: SearchPlan): Prisma.Sql | undefined =>
  textKeysAlone(p) ?? placeKeysAlone(p) ?? ledCount(p, tagLedRows);

/**
 * Four windows of keys spread over the key space, read by key: of the words' FTS5 table when there
 * are words (only its matches are read, so it spans 10 times the sample's rows), else of the
 * catalogue table. A catalogue smaller than the sample is one window, whole.
 */
export async function sample(db: SqlReader, p: SearchPlan, { countOnly = false }): Promise<Sample> {
  const t = table(p.catalogue);
  const keyed = Boolean(p.words);
  const keys = keyed ? searchRows(p.catalogue) : t;
  const last =
    (await query<{ n: number }>(db, { n: "int" }, Prisma.sql`SELECT COALESCE(MAX("rowid"), 0) AS "n" FROM ${keys}`))[0]
      ?.n ?? 0;
  const wanted = Math.max(1, Math.ceil((keyed ? 10 * p.limits.sampleRows : p.limits.sampleRows) / 4));
  const whole = 4 * wanted >= last;
  const span = whole ? Math.max(last, 1) : wanted;
  const starts = whole ? [1] : [0, 1, 2, 3].map((k) => Math.floor((k * last) / 4) + 1);
  const share = whole ? 1 : (4 * span) / last;
  const wordsAlone = onlyWordsCounted(p, countOnly);
  const windows = starts.map((start) => {
    const range = Prisma.sql`AND "rowid" BETWEEN ${integerKey(start)} AND ${integerKey(start + span - 1)}`;
    if (wordsAlone) return wordKeys(p, { range });
    return keyed
      ? sampleSelect(p, matchingRows(p, range))
      : sampleSelect(
          p,
          Prisma.sql`FROM ${t} ${whereAll([Prisma.sql`${t}."rowid" BETWEEN ${start} AND ${start + span - 1}`, ...conditionsOf(p, true)])}`,
        );
  });
  return { m: Prisma.join(windows, " UNION ALL "), share };
}

/** "m" joined to its rows' list values of these kinds. */
export function facetTags(p: SearchPlan, kinds: string[]): Prisma.Sql {
  const tags = Prisma.raw(`"${p.catalogue}Tag"`);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  return Prisma.sql`"m" JOIN ${tags} t ON t.${owner} = "m"."id" AND t."kind" IN (${Prisma.join(kinds)})`;
}
