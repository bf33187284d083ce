// SQLite reads a search from its own indexes by key: each search row (a restaurant's or grocery's
// "<Catalogue>SearchRow") has an integer key, the rowid its FTS5 word and title tables and its
// R*Tree of places index. The keys an index finds are then joined to their rows.
import { Prisma } from "../../prisma.ts";
import { boxOf, conditionsOf, distanceKm, patternIn, titleLike, within } from "../../search/conditions.ts";
import type { Catalogue, Near, SearchPlan } from "../../search-plan.ts";
import { sampleSelect } from "../../search/totals.ts";
import { number, OWNER_KEY, table, whereAll } from "../../search/sql.ts";

/** The table giving each row its integer key in the search indexes (FTS5, R*Tree). */
export const searchRows = (catalogue: Catalogue) => Prisma.raw(`"${catalogue}SearchRow"`);

/**
 * A key as a bound value: FTS5 seeks to a range of keys only when its bounds are integers, and the
 * driver binds a JavaScript number as a REAL.
 */
export const integerKey = (key: number) => BigInt(key);

/** The FTS5 table of the words. */
export const wordsTable = (catalogue: Catalogue) => Prisma.raw(`"${catalogue}Search"`);

/**
 * bm25's weights of the search columns: title, then lists (cuisines, categories; other name), then
 * the rest; a restaurant's map cells ("place") weigh nothing.
 */
const BM25: Record<Catalogue, string> = { Restaurant: "bm25(10.0, 4.0, 1.0, 0.0)", Grocery: "bm25(10.0, 4.0, 1.0)" };

/**
 * The keys of the rows matching the words, with their bm25 rank (smaller is better) when `ranked`,
 * FTS5 ordering them itself (it ranks every match it reads, without a sort of joined rows);
 * `range` bounds the keys.
 */
export function wordKeys(
  p: SearchPlan,
  { ranked = false, range = Prisma.empty }: { ranked?: boolean; range?: Prisma.Sql } = {},
): Prisma.Sql {
  const fts = wordsTable(p.catalogue);
  // With near, only the matches in the cells covering the circle: FTS5 intersects the two itself.
  // Never when ranked: bm25 weighs each phrase by counting every row that holds it, and a dense
  // city's cells are held by most of the catalogue's rows; the ranked keys are the rank window's,
  // few, and the rows they lead to are tested on the circle anyway (the cells weigh 0: same order).
  const match = p.cells && !ranked ? `${p.words} AND (${p.cells})` : p.words;
  return ranked
    ? Prisma.sql`SELECT "rowid" AS "key", "rank" FROM ${fts} WHERE ${fts} MATCH ${match} ${range} AND "rank" MATCH ${BM25[p.catalogue]} ORDER BY "rank"`
    : Prisma.sql`SELECT "rowid" AS "key" FROM ${fts} WHERE ${fts} MATCH ${match} ${range}`;
}

/** The title's trigram index holds the key as a phrase (its trigrams in a row), which needs 3 characters or more. */
export const trigramUsable = (p: SearchPlan) => p.titleKey != null && [...p.titleKey].length >= 3;

/**
 * Whether the trigram phrase alone says what LIKE says, so a count can skip the rows: an ASCII key
 * (both sides are lower-cased already, and the tokenizer folds only ASCII letters the way LIKE does).
 */
export const trigramExact = (p: SearchPlan) => trigramUsable(p) && /^[\x20-\x7e]+$/.test(p.titleKey!);

/** The keys of the rows whose title holds the key (a phrase of the trigram index). */
export function trigramKeys(p: SearchPlan): Prisma.Sql {
  const fts = Prisma.raw(`"${p.catalogue}TitleTrigrams"`);
  return Prisma.sql`SELECT "rowid" AS "key" FROM ${fts} WHERE ${fts} MATCH ${`"${p.titleKey!.replace(/"/g, '""')}"`}`;
}

/** The title contains the key: first the rows the trigram index finds, unless the page is read row by row. */
export function titleContains(p: SearchPlan, perRow: boolean): Prisma.Sql[] {
  const like = titleLike(p, p.titleKey!);
  if (perRow || !trigramUsable(p)) return [like];
  return [
    Prisma.sql`${table(p.catalogue)}."id" IN (SELECT s.${Prisma.raw(OWNER_KEY[p.catalogue])} FROM (${trigramKeys(p)}) k
      JOIN ${searchRows(p.catalogue)} s ON s."rowid" = k."key")`,
    like,
  ];
}

/** The keys of the restaurants within the circle, from the R*Tree alone (it holds the exact coordinates too). */
export function placeKeys(near: Near, { kept = Prisma.empty }: { kept?: Prisma.Sql } = {}): Prisma.Sql {
  return Prisma.sql`SELECT "rowid" AS "key" FROM "RestaurantPlace" AS "place"
    WHERE ${placeBox(near)} ${kept} AND ${distanceKm(near, `"place"`)} <= ${number(near.radiusKm)}`;
}

/** The R*Tree's test of the box around the circle (the distance, dearer, is tested after it). */
export function placeBox(near: Near): Prisma.Sql {
  const { south, north, spans } = boxOf(near);
  const box = spans.map(([w, e]) => Prisma.sql`("minLongitude" <= ${e} AND "maxLongitude" >= ${w})`);
  return Prisma.sql`"minLatitude" <= ${north} AND "maxLatitude" >= ${south} AND ${box.length === 1 ? box[0] : Prisma.sql`(${Prisma.join(box, " OR ")})`}`;
}

/**
 * "FROM" the rows of these keys (the words' or the R*Tree's), with `joins`, each tested on the
 * conditions of `rest`. Near, the city and open at an instant are tested on the search row's
 * copies of the coordinates, the city key and the opening pattern (migrations
 * 20261126013000_search_row_coordinates, 20261129050000_search_row_filters), before the row
 * itself is read. `rowsRead: false`: the catalogue's row is read only for a condition the search
 * row does not hold (nothing of it is selected: a count, or the matches of matchesOfKeys).
 */
export function rowsOfKeys(
  p: SearchPlan,
  keys: Prisma.Sql,
  rest: SearchPlan = p,
  joins: Prisma.Sql = Prisma.empty,
  { rowsRead = true }: { rowsRead?: boolean } = {},
): Prisma.Sql {
  const t = table(p.catalogue);
  const onRow = onSearchRow(rest);
  const others = offSearchRow(rest);
  const searched = Prisma.sql`FROM (${keys}) "w" JOIN ${searchRows(p.catalogue)} "s" ON "s"."rowid" = "w"."key"`;
  if (!rowsRead && others.length === 0) return Prisma.sql`${searched} ${whereAll(onRow)}`;
  return Prisma.sql`${searched} JOIN ${t} ON ${t}."id" = "s".${Prisma.raw(OWNER_KEY[p.catalogue])} ${joins} ${whereAll([...onRow, ...others])}`;
}

/** The conditions a restaurant's search row holds the columns of: near, the city, open at an instant. */
function onSearchRow(p: SearchPlan): Prisma.Sql[] {
  if (p.catalogue !== "Restaurant") return [];
  return [
    ...(p.near ? within(p, p.near, `"s"`) : []),
    ...(p.cityKey ? [Prisma.sql`"s"."citySearch" = ${p.cityKey}`] : []),
    ...(p.openPatterns ? [patternIn(p.engine, p.openPatterns, false, `"s"`)] : []),
  ];
}

/** The other conditions, tested on the catalogue's row. */
const offSearchRow = (p: SearchPlan): Prisma.Sql[] => conditionsOf(withoutSearchRowConditions(p), true);

/**
 * Ranked keys ("key", "rank") whose search rows pass every condition of `p`, when those rows hold
 * them all: a page can then be cut from the keys, and only its rows read. Undefined when a
 * condition needs the catalogue's row.
 */
export function rankedKeysOnSearchRows(p: SearchPlan, keys: Prisma.Sql): Prisma.Sql | undefined {
  if (offSearchRow(p).length > 0) return undefined;
  return Prisma.sql`SELECT "w"."key" AS "key", "w"."rank" AS "rank" FROM (${keys}) "w"
    JOIN ${searchRows(p.catalogue)} "s" ON "s"."rowid" = "w"."key" ${whereAll(onSearchRow(p))}`;
}

/** The plan without the conditions its search rows hold. */
export const withoutSearchRowConditions = (p: SearchPlan): SearchPlan =>
  p.catalogue === "Restaurant" ? { ...p, near: undefined, cityKey: undefined, openPatterns: undefined } : p;

/** The city a search row holds for the facets (the key; its label comes from the stored counts). */
const SEARCH_ROW_CITY: Record<Catalogue, string> = {
  Restaurant: `"s"."citySearch" AS "cityKey", NULL AS "city"`,
  Grocery: `NULL AS "cityKey", NULL AS "city"`,
};

/**
 * The matches of these keys as a total's or the facets' "m" (id, city key, city), each tested on
 * the conditions of `rest`: from the search rows alone when they hold every condition, so that
 * only the keys' search rows are read, not a wide catalogue row found through its text id each.
 */
export function matchesOfKeys(p: SearchPlan, keys: Prisma.Sql, rest: SearchPlan = p): Prisma.Sql {
  if (offSearchRow(rest).length > 0) return sampleSelect(p, rowsOfKeys(p, keys, rest));
  const id = Prisma.raw(`"s".${OWNER_KEY[p.catalogue]} AS "id", ${SEARCH_ROW_CITY[p.catalogue]}`);
  return Prisma.sql`SELECT ${id} ${rowsOfKeys(p, keys, rest, Prisma.empty, { rowsRead: false })}`;
}
