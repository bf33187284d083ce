// Totals and facets of a search, bounded: their cost does not grow with the catalogue.
// - The counts the migration 20261125200000_search_scale keeps per list value and city (and of the
//   whole catalogue) answer exactly, without counting rows, a search of the whole catalogue or of
//   one value, and facets of the whole catalogue.
// - Otherwise the matches are counted one by one up to EXACT_COUNT_LIMIT, from the text or spatial
//   index alone when nothing else is asked; past that, the total and the facets are estimated from
//   a fixed sample and said to be (`totalCountIsEstimate`, `facets.exact`).
import { Prisma } from "./prisma.ts";
import type { SqlReader as Db } from "./raw-rows.ts";
import {
  afterDocuments,
  conditionsOf,
  documentMatches,
  documentTests,
  keyValue,
  OWNER_KEY,
  placeKeys,
  query,
  rowsLedBy,
  rowsOfKeys,
  rowTestCount,
  searchRows,
  table,
  trigramExact,
  trigramKeys,
  unfiltered,
  whereAll,
  wordKeys,
  type Catalogue,
  type SearchPlan,
  type TagCondition,
} from "./search-sql.ts";

/** Matches counted one by one at most; past this, the total and the facets are estimated. */
export const EXACT_COUNT_LIMIT = 1_000;
/** Rows of the catalogue a sample holds (about). */
const SAMPLE_ROWS = 10_000;
/**
 * PostgreSQL: rows of the catalogue a sample without words holds (about). Each is tested against
 * every condition (a tag test is an index probe), so half the documents' sample: "any of 2
 * cuisines, min rating 4, price $$" at 1,000,000 restaurants took 41 ms to estimate from 10,000
 * rows, 13-20 ms from 5,000 (192 and 102 matches sampled: 19,200 and 20,400 estimated, about ±10%).
 */
const POSTGRES_ROW_SAMPLE = 5_000;
/**
 * SQLite: keys a sample of word or title matches spans: the text index finds the matches among
 * them by itself (only those are read), so it can be wider than a sample of rows.
 */
const SAMPLE_KEYS = 100_000;
/** Values each facet lists, most frequent first. */
export const FACET_VALUES = 20;

export type Total = { count: number; estimate: boolean };
export type FacetValue = { value: string; count: number };
export type Facets = { exact: boolean; lists: Record<string, FacetValue[]> };

/** The lists a facet counts: a tag kind, or the city column. */
type FacetSpec = Record<string, string>;
export const RESTAURANT_FACETS: FacetSpec = {
  cuisines: "CUISINE",
  categories: "CATEGORY",
  priceRanges: "PRICE_RANGE",
  cities: "CITY",
};
export const GROCERY_FACETS: FacetSpec = { categories: "CATEGORY" };

// ---- The kept counts -----------------------------------------------------------------------------

type CountRow = { kind: string; valueKey: string; value: string; n: number };
const COUNT_ROW = { kind: "text", valueKey: "text", value: "text", n: "int" } as const;
const counts = (catalogue: Catalogue) => Prisma.raw(`"${catalogue}FacetCount"`);

/** The kept counts of these (kind, key) pairs ('ALL', '' for the catalogue). */
export async function keptCounts(
  db: Db,
  catalogue: Catalogue,
  pairs: [string, string][],
): Promise<Map<string, number>> {
  if (pairs.length === 0) return new Map();
  const rows = await query<CountRow>(
    db,
    COUNT_ROW,
    Prisma.sql`SELECT "kind", "valueKey", "value", "n" FROM ${counts(catalogue)}
      WHERE ${Prisma.join(
        pairs.map(([kind, key]) => Prisma.sql`("kind" = ${kind} AND "valueKey" = ${key})`),
        " OR ",
      )}`,
  );
  return new Map(rows.map((r) => [`${r.kind}\u0000${r.valueKey}`, r.n]));
}
export const countKey = (kind: string, key: string) => `${kind}\u0000${key}`;

/** The one kept count that is a search's exact total, if its conditions are one value or none. */
function keptTotalOf(p: SearchPlan): [string, string] | undefined {
  const others = p.words || p.titleKey || p.minRating != null || p.near || rowTestCount(p) > 0;
  if (others) return undefined;
  if (p.tags.length === 0 && !p.cityKey) return ["ALL", ""];
  if (p.tags.length === 1 && p.tags[0].keys.length === 1 && !p.cityKey) return [p.tags[0].kind, p.tags[0].keys[0]];
  if (p.tags.length === 0 && p.cityKey) return ["CITY", p.cityKey];
  return undefined;
}

// ---- Which rows match ----------------------------------------------------------------------------

/**
 * The rows matching every condition, as "FROM ... WHERE ...", led by the index that narrows them
 * best. SQLite: the words' FTS5 table (a `range` of its keys, for a sample), else the R*Tree for
 * a near search, each with the other conditions tested row by row; else the catalogue, its
 * conditions in the forms the planner reads from indexes. PostgreSQL plans its own way: the
 * catalogue joined to its search documents when there are words.
 */
export function matchingRows(p: SearchPlan, range: Prisma.Sql = Prisma.empty): Prisma.Sql {
  const t = table(p.catalogue);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  if (p.provider === "postgres") {
    if (!p.words) return Prisma.sql`FROM ${t} ${whereAll(conditionsOf(p, false))}`;
    const words = Prisma.sql`(SELECT "m".${owner} AS "id" FROM ${Prisma.raw(`"${p.catalogue}Search"`)} "m" ${whereAll(documentTests(p, `"m"`))}) "words"`;
    return rowsLedBy(afterDocuments(p), words, `"words"`);
  }
  if (p.words) return rowsOfKeys(p, wordKeys(p, { range }));
  if (p.near) return rowsOfKeys(p, placeKeys(p.near), { ...p, near: undefined });
  return Prisma.sql`FROM ${t} ${whereAll(conditionsOf(p, false))}`;
}

/** SQLite: the keys matching every condition from the text indexes alone, when they are the only conditions. */
function textKeysAlone(p: SearchPlan): Prisma.Sql | undefined {
  if (p.provider !== "sqlite" || p.tags.length || p.cityKey || p.minRating != null || p.near || rowTestCount(p))
    return undefined;
  if (p.titleKey && !trigramExact(p)) return undefined;
  if (p.words && p.titleKey)
    return Prisma.sql`SELECT "w"."key" FROM (${wordKeys(p)}) "w" WHERE "w"."key" IN (${trigramKeys(p)})`;
  return p.words ? wordKeys(p) : p.titleKey ? trigramKeys(p) : undefined;
}

/** SQLite: the keys within a near search's circle from the R*Tree alone, when it is the only condition. */
function placeKeysAlone(p: SearchPlan): Prisma.Sql | undefined {
  if (
    p.provider !== "sqlite" ||
    !p.near ||
    p.words ||
    p.titleKey ||
    p.tags.length ||
    p.cityKey ||
    p.minRating != null ||
    rowTestCount(p)
  )
    return undefined;
  return placeKeys(p.near);
}

/** The (kind, key) pairs of the kept counts of a plan's list values and city. */
export const listPairsOf = (p: Pick<SearchPlan, "tags" | "cityKey">): [string, string][] => [
  ...p.tags.flatMap((c) => c.keys.map((k): [string, string] => [c.kind, k])),
  ...(p.cityKey ? [["CITY", p.cityKey] as [string, string]] : []),
];

/**
 * The list or city condition with the fewest rows, by the kept counts, when lists or the city are
 * the only conditions an index reads. A count led by it reads its rows from its index and tests
 * the others on each, so it stops after about (limit / share of matches) rows whatever the
 * catalogue's size: `id IN (...)` of every list gathered all the rows of the commonest one first
 * (any of 2 cuisines + price $$ + min rating: SQLite at 1,000,000 130 -> 19 ms; PostgreSQL hashed
 * the 90,915 restaurants priced $$ at 200,000: 111 -> 81 ms, and that part grows with the catalogue).
 */
function rarestCondition(p: SearchPlan): TagCondition | "city" | undefined {
  if (!p.keptCounts || p.words || p.titleKey || p.near) return undefined;
  const rowsOf = (kind: string, keys: string[]) =>
    keys.reduce((sum, k) => sum + (p.keptCounts!.get(countKey(kind, k)) ?? 0), 0);
  let rarest: { condition: TagCondition | "city"; rows: number } | undefined;
  let listed = 0;
  for (const tag of p.tags) {
    const rows = rowsOf(tag.kind, tag.keys);
    listed += rows;
    if (!rarest || rows < rarest.rows) rarest = { condition: tag, rows };
  }
  const cityRows = p.cityKey ? rowsOf("CITY", [p.cityKey]) : 0;
  listed += cityRows;
  if (p.cityKey && (!rarest || cityRows < rarest.rows)) rarest = { condition: "city", rows: cityRows };
  // Lists this short are gathered faster than their rows are read one by one by id (cuisine +
  // city at 2,000 restaurants: led, 20% fewer searches a second).
  return listed >= LEAD_FROM_ROWS ? rarest?.condition : undefined;
}

/** Rows of the lists and the city together from which a count is led by the rarest of them. */
const LEAD_FROM_ROWS = 5_000;

/** The matches, led by `lead`'s index, each other condition tested row by row. */
function ledRows(p: SearchPlan, lead: TagCondition | "city"): Prisma.Sql {
  const t = table(p.catalogue);
  if (lead === "city") return Prisma.sql`SELECT 1 AS "x" FROM ${t} ${whereAll(conditionsOf(p, true, "city"))}`;
  const rest: SearchPlan = { ...p, tags: p.tags.filter((c) => c !== lead) };
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  const tags = Prisma.raw(`"${p.catalogue}Tag"`);
  const value = lead.keys.length === 1 ? Prisma.sql`= ${lead.keys[0]}` : Prisma.sql`IN (${Prisma.join(lead.keys)})`;
  const listed = Prisma.sql`"lead"."kind" = ${lead.kind} AND "lead"."valueKey" ${value}`;
  // A row holds a value once, but may hold several of the values. SQLite's DISTINCT streams (and
  // stops at the limit); PostgreSQL hashed every row of the values first (121,000 at 1,000,000
  // restaurants), so there each value's rows follow the one before, less the rows that have an
  // earlier value.
  if (p.provider === "postgres") {
    const each = lead.keys.map((key, i) => {
      const earlier = lead.keys.slice(0, i);
      const unseen = earlier.length
        ? Prisma.sql`AND NOT EXISTS (SELECT 1 FROM ${tags} "e" WHERE "e".${owner} = "lead".${owner} AND "e"."kind" = ${lead.kind} AND "e"."valueKey" IN (${Prisma.join(earlier)}))`
        : Prisma.empty;
      return Prisma.sql`SELECT "lead".${owner} AS "id" FROM ${tags} "lead" WHERE "lead"."kind" = ${lead.kind} AND "lead"."valueKey" = ${key} ${unseen}`;
    });
    return Prisma.sql`SELECT 1 AS "x" ${rowsLedBy(rest, Prisma.sql`(${Prisma.join(each, " UNION ALL ")}) "lead"`, `"lead"`)}`;
  }
  const distinct = Prisma.raw(lead.keys.length > 1 ? "DISTINCT" : "");
  return Prisma.sql`SELECT ${distinct} ${t}."id" FROM ${tags} "lead" JOIN ${t} ON ${t}."id" = "lead".${owner} ${whereAll([listed, ...conditionsOf(rest, true)])}`;
}

/**
 * What a count up to the limit can read instead of the matching rows themselves: the keys of the
 * text or spatial index alone, the rows led by the rarest list, or PostgreSQL's search documents.
 */
function countShortcut(p: SearchPlan): Prisma.Sql | undefined {
  const alone = textKeysAlone(p) ?? placeKeysAlone(p);
  if (alone) return alone;
  const lead = rarestCondition(p);
  if (lead) return ledRows(p, lead);
  if (p.provider === "postgres" && p.words && unfiltered({ ...p, words: undefined })) {
    return Prisma.sql`SELECT 1 FROM ${Prisma.raw(`"${p.catalogue}Search"`)} "m" WHERE ${documentMatches(p, `"m"`)}`;
  }
  return undefined;
}

/** Counts the matches up to one more than the exact limit: the work stops there. */
function boundedCountSql(p: SearchPlan): Prisma.Sql {
  const limit = Prisma.raw(`LIMIT ${EXACT_COUNT_LIMIT + 1}`);
  return Prisma.sql`SELECT COUNT(*) AS "n" FROM (${countShortcut(p) ?? Prisma.sql`SELECT 1 AS "x" ${matchingRows(p)}`} ${limit}) "bounded"`;
}

// ---- Samples -------------------------------------------------------------------------------------

/**
 * "m", the matches among a fixed sample (its id, and for restaurants its city), and the share of
 * the catalogue the sample is. Fixed, so that the same search gives the same estimate from one
 * page to the next. SQLite: four windows of keys spread over the key space, read by key: of the
 * words' FTS5 table when there are words (wide: only its matches are read), else of the catalogue
 * table. PostgreSQL: TABLESAMPLE SYSTEM with a fixed seed (whole pages) of the search documents
 * when there are words, else of the catalogue. `countOnly`: "m" is only counted, and may then
 * hold only the words' keys when the words are the only condition.
 */
async function sampleOf(db: Db, p: SearchPlan, { countOnly = false } = {}): Promise<{ m: Prisma.Sql; share: number }> {
  const t = table(p.catalogue);
  const city =
    p.catalogue === "Restaurant"
      ? Prisma.raw(`"Restaurant"."citySearch" AS "cityKey", "Restaurant"."city" AS "city"`)
      : Prisma.raw(`NULL AS "cityKey", NULL AS "city"`);
  const select = (from: Prisma.Sql) => Prisma.sql`SELECT ${t}."id" AS "id", ${city} ${from}`;
  // Counting matches of the words alone needs their index, not the rows ("olive oil" among
  // 2,000,000 groceries: 13 ms with every match's row read).
  const wordsAlone = countOnly && p.words && !p.titleKey && conditionsOf(p, true).length === 0;
  if (p.provider === "sqlite") {
    const keyed = Boolean(p.words);
    const keys = keyed ? searchRows(p.catalogue) : t;
    const last =
      (
        await query<{ n: number }>(db, { n: "int" }, Prisma.sql`SELECT COALESCE(MAX("rowid"), 0) AS "n" FROM ${keys}`)
      )[0]?.n ?? 0;
    const wanted = Math.max(1, Math.ceil((keyed ? SAMPLE_KEYS : SAMPLE_ROWS) / 4));
    // Four windows that never overlap; a catalogue smaller than the sample is one window, whole.
    const whole = 4 * wanted >= last;
    const span = whole ? Math.max(last, 1) : wanted;
    const starts = whole ? [1] : [0, 1, 2, 3].map((k) => Math.floor((k * last) / 4) + 1);
    const share = whole ? 1 : (4 * span) / last;
    const windows = starts.map((start) => {
      const range = Prisma.sql`AND "rowid" BETWEEN ${keyValue(start)} AND ${keyValue(start + span - 1)}`;
      if (wordsAlone) return wordKeys(p, { range });
      return keyed
        ? select(matchingRows(p, range))
        : select(
            Prisma.sql`FROM ${t} ${whereAll([Prisma.sql`${t}."rowid" BETWEEN ${start} AND ${start + span - 1}`, ...conditionsOf(p, true)])}`,
          );
    });
    return { m: Prisma.join(windows, " UNION ALL "), share };
  }
  const sampled = p.words ? `"${p.catalogue}Search"` : `"${p.catalogue}"`;
  const rows =
    (
      await query<{ n: number }>(
        db,
        { n: "float" },
        Prisma.sql`SELECT GREATEST(reltuples, 1) AS "n" FROM pg_class WHERE oid = ${sampled}::regclass`,
      )
    )[0]?.n ?? 1;
  const percent = Math.min(100, (100 * (p.words ? SAMPLE_ROWS : POSTGRES_ROW_SAMPLE)) / rows);
  const sample = Prisma.raw(`TABLESAMPLE SYSTEM (${percent.toFixed(6)}) REPEATABLE (31)`);
  if (wordsAlone)
    return {
      m: Prisma.sql`SELECT 1 FROM ${Prisma.raw(sampled)} "m" ${sample} WHERE ${documentMatches(p, `"m"`)}`,
      share: percent / 100,
    };
  // The sampled documents lead, each row then read by its id (LATERAL): planned generically,
  // PostgreSQL put the sample scan inside a nested loop under the rows of a near search, scanning
  // it again for each (the most expensive search at 200,000: minutes, still running after its
  // client had gone).
  const columns = Prisma.raw(p.catalogue === "Restaurant" ? `"id", "citySearch", "city"` : `"id"`);
  const from = p.words
    ? Prisma.sql`FROM (SELECT "m".${Prisma.raw(OWNER_KEY[p.catalogue])} AS "owner" FROM ${Prisma.raw(sampled)} "m" ${sample} ${whereAll(documentTests(p, `"m"`))}) "sampled"
        CROSS JOIN LATERAL (SELECT ${columns} FROM ${t} ${whereAll([Prisma.sql`${t}."id" = "sampled"."owner"`, ...conditionsOf(afterDocuments(p), true)])} OFFSET 0) ${t}`
    : Prisma.sql`FROM ${t} ${sample} ${whereAll(conditionsOf(p, true))}`;
  return { m: select(from), share: percent / 100 };
}

// ---- Totals --------------------------------------------------------------------------------------

/**
 * The statement of a search's total as a page statement can carry it (a scalar subquery the
 * database computes once): the kept count, or the matches counted up to one past the limit.
 */
export function totalSql(p: SearchPlan): Prisma.Sql {
  const kept = keptTotalOf(p);
  const sql = kept
    ? Prisma.sql`SELECT "n" FROM ${counts(p.catalogue)} WHERE "kind" = ${kept[0]} AND "valueKey" = ${kept[1]}`
    : boundedCountSql(p);
  return Prisma.sql`COALESCE((${sql}), 0)`;
}

/**
 * PostgreSQL: whether the page statement counts the matches in its own pass over them
 * (`COUNT(*) OVER ()`) instead of carrying totalSql, a count that reads them all again. Only when
 * the kept counts bound the matches within the limit (the rarest list value, or the city, has at
 * most EXACT_COUNT_LIMIT restaurants): the page then reads every match anyway to sort them, and
 * the count stays bounded. Cuisine + city by rating at 2,000 restaurants: one pass over the
 * city's rows instead of two.
 */
export function countedInPass(p: SearchPlan): boolean {
  if (p.provider !== "postgres" || !p.keptCounts || p.words || p.titleKey || p.near || keptTotalOf(p)) return false;
  const kept = p.keptCounts;
  const bounds = p.tags.map((c) => c.keys.reduce((sum, k) => sum + (kept.get(countKey(c.kind, k)) ?? 0), 0));
  if (p.cityKey) bounds.push(kept.get(countKey("CITY", p.cityKey)) ?? 0);
  return bounds.length > 0 && Math.min(...bounds) <= EXACT_COUNT_LIMIT;
}

/**
 * A search's total: kept, counted up to the limit, or estimated from the sample (and said so).
 * `carried`: what totalSql gave, when a page statement carried it.
 */
async function totalOf(db: Db, p: SearchPlan, carried?: number, sampled = () => sampledTotal(db, p)): Promise<Total> {
  const kept = keptTotalOf(p);
  if (kept)
    return {
      count: carried ?? (await keptCounts(db, p.catalogue, [kept])).get(countKey(...kept)) ?? 0,
      estimate: false,
    };
  // Expected far past the limit: the sample first, trusted unless it says the total is near it.
  const early = carried === undefined && farPastLimit(p) ? await sampled() : undefined;
  if (early !== undefined && early >= TRUSTED_ESTIMATE) return { count: Math.round(early), estimate: true };
  const bounded = carried ?? (await query<{ n: number }>(db, { n: "int" }, boundedCountSql(p)))[0]?.n ?? 0;
  if (bounded <= EXACT_COUNT_LIMIT) return { count: bounded, estimate: false };
  return { count: Math.max(Math.round(early ?? (await sampled())), EXACT_COUNT_LIMIT + 1), estimate: true };
}

/** The matches in the sample, scaled to the catalogue. */
async function sampledTotal(db: Db, p: SearchPlan): Promise<number> {
  const { m, share } = await sampleOf(db, p, { countOnly: true });
  const sampled =
    (await query<{ n: number }>(db, { n: "int" }, Prisma.sql`SELECT COUNT(*) AS "n" FROM (${m}) "m"`))[0]?.n ?? 0;
  return sampled / share;
}

/**
 * The share of the catalogue a search's lists and city keep, by the kept counts, each other
 * condition taken to keep half (words, a title substring and near are not judged here).
 */
export function keptShare(p: SearchPlan): number {
  const kept = p.keptCounts;
  if (!kept) return 1;
  const all = Math.max(1, kept.get(countKey("ALL", "")) ?? 0);
  let share = p.cityKey ? (kept.get(countKey("CITY", p.cityKey)) ?? 0) / all : 1;
  for (const c of p.tags)
    share *= Math.min(1, c.keys.reduce((sum, k) => sum + (kept.get(countKey(c.kind, k)) ?? 0), 0) / all);
  return share * 0.5 ** (rowTestCount(p) + (p.minRating != null ? 1 : 0));
}

/** Matches expected (keptShare) from which a total is estimated from the sample before any count. */
const FAR_PAST_LIMIT = 5 * EXACT_COUNT_LIMIT;
/** An early estimate below this is checked by counting (the matches may be within the limit). */
const TRUSTED_ESTIMATE = 3 * EXACT_COUNT_LIMIT;

/**
 * Whether the kept counts say a search of lists and a city matches far more rows than are counted
 * one by one. Counting up to the limit first read them row by row: any of 2 cuisines + price $$ +
 * min rating 4 at 1,000,000 restaurants read ~22,000 restaurants for 19 ms (SQLite), and the
 * sample then estimated it anyway.
 */
export function farPastLimit(p: SearchPlan): boolean {
  if (!p.keptCounts || p.words || p.titleKey || p.near || keptTotalOf(p)) return false;
  return keptShare(p) * (p.keptCounts.get(countKey("ALL", "")) ?? 0) >= FAR_PAST_LIMIT;
}

// ---- Facets --------------------------------------------------------------------------------------

/**
 * Per list value, how many of "m" have it. Each match's list rows are read by its key:
 * PostgreSQL otherwise chose to scan every tag row and hash the matches (1.6 s at 200,000
 * restaurants against 0.2 s), hence its LATERAL with OFFSET 0.
 */
function facetCounts(p: SearchPlan, spec: FacetSpec, only: Prisma.Sql = Prisma.raw("TRUE")): Prisma.Sql {
  const kinds = Object.values(spec).filter((k) => k !== "CITY");
  const tags = Prisma.raw(`"${p.catalogue}Tag"`);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  const lists =
    p.provider === "sqlite"
      ? Prisma.sql`"m" JOIN ${tags} t ON t.${owner} = "m"."id" AND t."kind" IN (${Prisma.join(kinds)})`
      : Prisma.sql`"m" CROSS JOIN LATERAL (SELECT x."kind", x."valueKey", x."value" FROM ${tags} x
          WHERE x.${owner} = "m"."id" AND x."kind" IN (${Prisma.join(kinds)}) OFFSET 0) t`;
  const parts = [
    Prisma.sql`SELECT CAST(t."kind" AS TEXT) AS "kind", t."valueKey" AS "valueKey", MIN(t."value") AS "value", COUNT(*) AS "n"
      FROM ${lists} WHERE ${only} GROUP BY t."kind", t."valueKey"`,
  ];
  if (Object.values(spec).includes("CITY")) {
    parts.push(
      Prisma.sql`SELECT 'CITY' AS "kind", "cityKey" AS "valueKey", MIN("city") AS "value", COUNT(*) AS "n" FROM "m" WHERE "cityKey" IS NOT NULL AND ${only} GROUP BY "cityKey"`,
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

/** The kind of the row that counts the matches in matchedFacets' statement. */
const MATCHES = "MATCHES";

async function matchedFacets(db: Db, p: SearchPlan, spec: FacetSpec): Promise<MatchedFacets> {
  const city =
    p.catalogue === "Restaurant"
      ? `"Restaurant"."citySearch" AS "cityKey", "Restaurant"."city" AS "city"`
      : `NULL AS "cityKey", NULL AS "city"`;
  const m = Prisma.sql`SELECT ${table(p.catalogue)}."id" AS "id", ${Prisma.raw(city)} ${matchingRows(p)} LIMIT ${Prisma.raw(String(EXACT_COUNT_LIMIT + 1))}`;
  const rows = await query<CountRow>(
    db,
    COUNT_ROW,
    // The lists are read only when the matches are within the limit: past it, the facets come
    // from the sample, and reading the lists of 1,001 matches was a third of the statement ("pizza"
    // near Lisbon, 5 km, open at 20:00, at 1,000,000 restaurants).
    Prisma.sql`WITH "m" AS (${m}) ${facetCounts(p, spec, Prisma.sql`(SELECT COUNT(*) FROM "m") <= ${EXACT_COUNT_LIMIT}`)}
      UNION ALL SELECT ${MATCHES} AS "kind", '' AS "valueKey", '' AS "value", COUNT(*) AS "n" FROM "m"`,
  );
  return { count: rows.find((r) => r.kind === MATCHES)?.n ?? 0, lists: facetLists(spec, rows, 1) };
}

/**
 * Facets of a search: of the whole catalogue, from the kept counts; exact over the matches when
 * the total is exact and within the limit; otherwise counted over the matches in the sample and
 * scaled to the catalogue, and said so (`exact: false`).
 */
async function facetsOf(
  db: Db,
  p: SearchPlan,
  spec: FacetSpec,
  total: () => Promise<Total>,
  matched: () => Promise<MatchedFacets>,
  sampled: () => Promise<SampledFacets>,
): Promise<Facets> {
  if (unfiltered(p)) {
    const rows = await query<CountRow>(
      db,
      COUNT_ROW,
      Prisma.sql`SELECT "kind", "valueKey", "value", "n" FROM ${counts(p.catalogue)}
      WHERE "kind" IN (${Prisma.join(Object.values(spec))})`,
    );
    return { exact: true, lists: facetLists(spec, rows, 1) };
  }
  const { count, estimate } = await total();
  if (!estimate && count <= EXACT_COUNT_LIMIT) return { exact: true, lists: (await matched()).lists };
  return { exact: false, lists: (await sampled()).lists };
}

/** The matches in the sample, counted and faceted, both scaled to the catalogue. */
type SampledFacets = { total: number; lists: Record<string, FacetValue[]> };

/**
 * The sample's matches counted and their facets, in one statement: a search whose total and facets
 * are both estimated read the sample twice ("pizza" near Lisbon, 5 km, open at 20:00, at 1,000,000
 * restaurants: two statements of 9 to 17 ms).
 */
async function sampledFacets(db: Db, p: SearchPlan, spec: FacetSpec): Promise<SampledFacets> {
  const { m, share } = await sampleOf(db, p);
  const rows = await query<CountRow>(
    db,
    COUNT_ROW,
    Prisma.sql`WITH "m" AS (${m}) ${facetCounts(p, spec)} UNION ALL SELECT ${MATCHES} AS "kind", '' AS "valueKey", '' AS "value", COUNT(*) AS "n" FROM "m"`,
  );
  return { total: (rows.find((r) => r.kind === MATCHES)?.n ?? 0) / share, lists: facetLists(spec, rows, 1 / share) };
}

/**
 * A search's total and facets, each read when first asked (`carried`: the total a page statement
 * carried, see totalSql). When facets are asked and the total has to be counted over the matching
 * rows themselves (no kept count, no shortcut), one statement reads those rows up to the limit and
 * answers both: the two statements read the same rows (facets of "pizza" near Lisbon, open now,
 * at 1,000,000 restaurants: 85 + 88 ms on SQLite). Past the limit, one statement over the sample
 * estimates both.
 */
export function searchSummary(
  db: Db,
  p: SearchPlan,
  spec: FacetSpec,
  { carried, facetsAsked = false }: { carried?: () => number | undefined; facetsAsked?: boolean } = {},
) {
  const together = facetsAsked && !keptTotalOf(p) && !countShortcut(p);
  const matched = once(() => matchedFacets(db, p, spec));
  const sampled = once(() => sampledFacets(db, p, spec));
  // With facets asked, an estimated total comes from the same statement as the sampled facets.
  const fromSample = facetsAsked ? async () => (await sampled()).total : undefined;
  const count = once(async () =>
    totalOf(db, p, carried?.() ?? (together ? (await matched()).count : undefined), fromSample),
  );
  // The exact number of matches, when the one statement for the total and facets counts them all.
  const exactMatches = together
    ? async () => {
        const { count: n } = await matched();
        return n <= EXACT_COUNT_LIMIT ? n : undefined;
      }
    : undefined;
  return { count, facets: once(() => facetsOf(db, p, spec, count, matched, sampled)), exactMatches };
}

/** The promise of the first call, shared by the later ones. */
const once = <T>(compute: () => Promise<T>) => {
  let result: Promise<T> | undefined;
  return () => (result ??= compute());
};
