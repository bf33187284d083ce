// PostgreSQL's pages of a search with words: led by the search documents (documents.ts).
import { Prisma } from "../../prisma.ts";
import { conditionsOf, filteredRows } from "../../search/conditions.ts";
import type { RawRows } from "../../raw-rows.ts";
import { facetCounts } from "../../search/facets.ts";
import {
  type AllMatches,
  type CountRow,
  type FacetSpec,
  type Near,
  type PageShape,
  type RelevancePage,
  type SearchEngine,
  type SearchPlan,
  type Window,
  wordsAlone,
} from "../../search-plan.ts";
import {
  COUNT_ONLY,
  joined,
  matchesEndWithin,
  OWNER_KEY,
  pageOfKeys,
  pageSql,
  query,
  restWindow,
  table,
  takeColumn,
  whereAll,
  windowSql,
} from "../../search/sql.ts";
import {
  afterDocuments,
  documentColumns,
  documentConditions,
  documentFacetColumns,
  documentMatches,
  documentRank,
  documentsAlone,
  documentsTable,
  documentTests,
  facetColumnsCarried,
  rowsLedBy,
} from "./documents.ts";
import { matchingRows } from "./totals.ts";

/**
 * A page by relevance: the first matches the words' index finds (at most the rank window), ranked,
 * best first, then the other matches by id. With near, the window is the first matches of every
 * condition the documents hold (the words in the circle's cells, the circle, the city, open at),
 * as the total and the facets count them; otherwise of the words alone, each ranked document then
 * tested on those conditions. The ranked ones are tested on the other conditions before the page
 * is cut, so every page is exact in that order; when the documents hold every condition, the page
 * is cut from the ranked ids (pageOfKeys) before any row is read, and the same statement counts
 * the ranked documents: every one a match, they answer the total up to the exact-count limit
 * (`matchesCounted`) when the window is larger than that limit.
 */
export const relevancePage: SearchEngine["relevancePage"] = async (db, p, shape, window, exactMatches, facets) => {
  const rankWindow = p.limits.rankWindow;
  const t = table(p.catalogue);
  const documents = documentsTable(p.catalogue);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  const id = Prisma.sql`${t}."id"`;
  // A circle's cells bound the documents read to find the window (the count and facets read the
  // same ones); without them, a condition few documents pass (open now at night) would read every
  // document of the words: those conditions are then tested after the window is cut.
  const [inWindow, afterWindow] = p.near
    ? [documentTests(p, `"m"`), []]
    : [[documentMatches(p, `"m"`)], documentConditions(p, `"ranked"`)];
  // With facets asked, the window carries what they count (facetsInWindow).
  const faceted = facets && countsWhileRanking(p) ? facets : undefined;
  const copies = Prisma.raw(
    [...(afterWindow.length ? documentColumns(p) : []), ...(faceted ? facetColumnsCarried(p) : [])]
      .map((column) => `, "m".${column}`)
      .join(""),
  );
  // MATERIALIZED: computed once, as written.
  const ranked = Prisma.sql`WITH "ranked" AS MATERIALIZED (SELECT "m".${owner} AS "id", ${documentRank(p, `"m"`)} AS "rank"${copies} FROM ${documents} "m"
    ${whereAll(inWindow)} LIMIT ${Prisma.raw(String(rankWindow))})`;
  const passing = afterWindow.length
    ? Prisma.sql`(SELECT * FROM "ranked" ${whereAll(afterWindow)}) "ranked"`
    : Prisma.raw(`"ranked"`);
  const rankedRows = (s: PageShape, leading = passing) =>
    Prisma.sql`${rowsLedBy(afterDocuments(p), leading, `"ranked"`)} ${s.joins}`;
  const [keys, rowsWindow] = documentsAlone(p)
    ? pageOfKeys(Prisma.sql`SELECT * FROM ${passing}`, Prisma.raw(`"rank", "id"`), window)
    : [undefined, window];
  // In the page's order before their rows are read: each row is then read and tested in turn until
  // the page is full, where a join to every ranked document's row came before the sort (2,000
  // restaurants probed for a cuisine, "pizza" near 50 km at 1M: 18,330 buffers).
  const leading = keys
    ? Prisma.sql`(${keys}) "ranked"`
    : Prisma.sql`(SELECT * FROM ${passing} ORDER BY "rank", "id") "ranked"`;
  const countColumn = Prisma.raw(`, (SELECT COUNT(*) FROM "ranked") AS "${RANKED_COUNT}"`);
  const [withFacets, facetsColumn] = faceted ? facetsInWindow(p, faceted) : [Prisma.empty, Prisma.empty];
  const [carried, uncounted] = takeColumn(
    await db.readSearch(
      Prisma.sql`${ranked}${withFacets} ${pageSql(shape, rankedRows(shape, leading), Prisma.sql`"ranked"."rank", "ranked"."id"`, rowsWindow, countsWhileRanking(p) ? Prisma.sql`${countColumn}${facetsColumn}` : Prisma.empty)}`,
    ),
    RANKED_COUNT,
  );
  const [carriedFacets, page] = takeColumn(uncounted, WINDOW_FACETS);
  // No row to carry the count: none ranked when the page starts at the first.
  const rankedMatches =
    carried !== undefined ? Number(carried) : countsWhileRanking(p) && window.skip === 0 ? 0 : undefined;
  // A window that is not full holds every match.
  const allMatches: AllMatches | undefined =
    rankedMatches !== undefined && rankedMatches < rankWindow
      ? {
          count: rankedMatches,
          facets: faceted ? (carried === undefined ? [] : windowFacetRows(carriedFacets)) : undefined,
        }
      : undefined;
  // As the count up to the limit would give (boundedCountSql): past the limit, the total is estimated.
  const limit = p.limits.exactCountLimit;
  const matchesCounted =
    rankedMatches !== undefined && (rankedMatches < rankWindow || rankWindow > limit)
      ? Math.min(rankedMatches, limit + 1)
      : undefined;
  const answer = (rows: RawRows): RelevancePage => ({ ...rows, matchesCounted, allMatches });
  if (page.rows.length > window.take) return answer(page);
  const keptRows = documentsAlone(p) ? Prisma.sql`FROM ${passing}` : rankedRows(COUNT_ONLY);
  const counted =
    rankedMatches !== undefined
      ? { all: rankedMatches, kept: rankedMatches }
      : (
          await query<{ all: number; kept: number }>(
            db,
            { all: "int", kept: "int" },
            Prisma.sql`${ranked} SELECT (SELECT COUNT(*) FROM "ranked") AS "all", (SELECT COUNT(*) ${keptRows}) AS "kept"`,
          )
        )[0];
  if (!counted || counted.all < rankWindow || (await matchesEndWithin(exactMatches, counted.kept))) return answer(page);
  // With near: led by the documents within the circle, read from the words' and cells' index (as
  // matchingRows). Joined freely, the planner probed every restaurant of the GiST box.
  const unranked = Prisma.sql`"m".${owner} NOT IN (SELECT "id" FROM "ranked")`;
  const unrankedWords = Prisma.sql`(SELECT "m".${owner} AS "id" FROM ${documents} "m" ${whereAll([...documentTests(p, `"m"`), unranked])}) "words"`;
  const rest = p.near
    ? Prisma.sql`${rowsLedBy(afterDocuments(p), unrankedWords, `"words"`)} ${shape.joins}`
    : Prisma.sql`FROM ${t} JOIN ${documents} "m" ON "m".${owner} = ${id} AND ${documentMatches(p, `"m"`)} ${shape.joins}
    ${whereAll([unranked, ...conditionsOf(p, false)])}`;
  return answer(
    joined(
      page,
      await db.readSearch(Prisma.sql`${ranked} ${pageSql(shape, rest, id, restWindow(window, counted.kept))}`),
    ),
  );
};

/**
 * Whether the window holds nothing but matches (the documents hold every condition, and it was
 * cut from the documents that pass them): the page's statement then counts it.
 */
export const countsWhileRanking = (p: SearchPlan) => documentsAlone(p) && (Boolean(p.near) || wordsAlone(p));

/** The column of a page statement that counts the ranked documents (taken out of the page's rows). */
const RANKED_COUNT = "rankedCount";

/** The column of a page statement that holds the facets' counts of its window, when that is every match. */
const WINDOW_FACETS = "windowFacets";

/**
 * The facets of the ranked window, counted in the page's statement when the window is not full (it
 * then holds every match): "m" as facetCounts reads it, and the column of their rows as JSON. A
 * statement of their own read the same documents again from the words' index.
 */
function facetsInWindow(p: SearchPlan, facets: FacetSpec): [Prisma.Sql, Prisma.Sql] {
  const rows = Prisma.sql`SELECT json_agg(json_build_array(f."kind", f."valueKey", f."value", f."n")) FROM (${facetCounts(p, facets)}) f`;
  return [
    // NOT MATERIALIZED: each reference reads "ranked" itself rather than a copy of every match's
    // facet keys.
    Prisma.sql`, "m" AS NOT MATERIALIZED (SELECT "id", ${documentFacetColumns(p, `"ranked"`)} FROM "ranked")`,
    Prisma.sql`, CASE WHEN (SELECT COUNT(*) FROM "ranked") < ${Prisma.raw(String(p.limits.rankWindow))} THEN (${rows}) END AS "${Prisma.raw(WINDOW_FACETS)}"`,
  ];
}

/** The facets' rows a page statement carried (as JSON: PostgreSQL's driver parses it, or not). */
function windowFacetRows(carried: unknown): CountRow[] {
  const rows = (typeof carried === "string" ? JSON.parse(carried) : carried) as
    [string, string, string, number][] | null;
  return (rows ?? []).map(([kind, valueKey, value, n]) => ({ kind, valueKey, value, n: Number(n) }));
}

/**
 * The rows matching the words and every other condition, for another order than relevance; with
 * near, led by the documents within the circle (the GiST box led otherwise, estimated far too small).
 */
export function wordRows(p: SearchPlan, shape: PageShape): Prisma.Sql {
  const t = table(p.catalogue);
  if (p.near) return Prisma.sql`${matchingRows(p)} ${shape.joins}`;
  const [owner, documents] = [Prisma.raw(OWNER_KEY[p.catalogue]), documentsTable(p.catalogue)];
  return Prisma.sql`FROM ${t} JOIN ${documents} "m" ON "m".${owner} = ${t}."id" AND ${documentMatches(p, `"m"`)}
    ${shape.joins} ${whereAll(conditionsOf(p, false))}`;
}

/** The restaurants within `circle`, from the GiST index of their points, tested on every other condition. */
export const nearRows = (p: SearchPlan, circle: Near, shape: PageShape) =>
  Prisma.sql`FROM "Restaurant" ${shape.joins} ${whereAll(conditionsOf({ ...p, near: circle }, false))}`;

/**
 * The rows of a page not walked in its order's index. With open patterns, read from the filters'
 * indexes behind OFFSET 0, then sorted: PostgreSQL takes a city and the open patterns to be
 * independent, expected many open where none was, and walked the order's index through them all.
 */
function unwalkedRows(p: SearchPlan): Prisma.Sql {
  const t = table(p.catalogue);
  return p.openPatterns
    ? Prisma.sql`FROM (SELECT ${t}.* FROM ${t} ${whereAll(conditionsOf(p, false))} OFFSET 0) ${t}`
    : filteredRows(p, Prisma.empty);
}

/**
 * A page not walked in its order's index: the window cut from the matches' keys (and the total
 * counted over them) before any row is read, then their rows and joins (a page with neither reads
 * its rows as before). Cut after the joins, the owner was read for every match (65 in a city, for
 * a page of 21), and no match came from an index alone: city by rating read 953 buffers, cut
 * first 143 (docs/performance.md).
 */
export function unwalkedPage(p: SearchPlan, shape: PageShape, order: Prisma.Sql, window: Window, total?: Prisma.Sql) {
  const t = table(p.catalogue);
  // Nothing joined and nothing counted: the page's own rows are all it reads either way.
  if (!total && shape.joins.text.trim() === "") return pageSql(shape, unwalkedRows(p), order, window);
  const keys = Prisma.sql`SELECT ${t}."id"${total ?? Prisma.empty} ${unwalkedRows(p)} ORDER BY ${order} ${windowSql(window)}`;
  const carried = total ? Prisma.raw(`, "page"."totalCount"`) : Prisma.empty;
  return Prisma.sql`SELECT ${shape.select}${carried} FROM (${keys}) "page" JOIN ${t} ON ${t}."id" = "page"."id" ${shape.joins} ORDER BY ${order}`;
}
