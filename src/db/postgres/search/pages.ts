// PostgreSQL's pages of a search with words: led by the search documents (documents.ts).
import { Prisma } from "../../prisma.ts";
import { conditionsOf, filteredRows } from "../../search/conditions.ts";
import { type Near, type PageShape, type SearchEngine, type SearchPlan } from "../../search-plan.ts";
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
  whereAll,
} from "../../search/sql.ts";
import {
  afterDocuments,
  documentColumns,
  documentConditions,
  documentMatches,
  documentRank,
  documentsAlone,
  documentsTable,
  documentTests,
  rowsLedBy,
} from "./documents.ts";
import { matchingRows } from "./totals.ts";

/**
 * A page by relevance: the first matches the words' index finds (at most the rank window), ranked,
 * best first, then the other matches by id. The ranked ones are tested on the other conditions
 * before the page is cut, so every page is exact in that order; when the documents hold every
 * condition (words, near, the city, open at), the page is cut from the ranked ids (pageOfKeys)
 * before any row is read.
 */
export const relevancePage: SearchEngine["relevancePage"] = async (db, p, shape, window, exactMatches) => {
  const rankWindow = p.limits.rankWindow;
  const t = table(p.catalogue);
  const documents = documentsTable(p.catalogue);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  const id = Prisma.sql`${t}."id"`;
  // MATERIALIZED: computed once, as written. The conditions the documents hold (a near search's
  // circle, the city, open at) are tested on their copies after the window is cut, not in it: the
  // window is the index's first matches.
  const copies = Prisma.raw(
    documentColumns(p)
      .map((column) => `, "m".${column}`)
      .join(""),
  );
  const ranked = Prisma.sql`WITH "ranked" AS MATERIALIZED (SELECT "m".${owner} AS "id", ${documentRank(p, `"m"`)} AS "rank"${copies} FROM ${documents} "m"
    WHERE ${documentMatches(p, `"m"`)} LIMIT ${Prisma.raw(String(rankWindow))})`;
  const onDocument = documentConditions(p, `"ranked"`);
  const passing = onDocument.length
    ? Prisma.sql`(SELECT * FROM "ranked" ${whereAll(onDocument)}) "ranked"`
    : Prisma.raw(`"ranked"`);
  const rankedRows = (s: PageShape, leading = passing) =>
    Prisma.sql`${rowsLedBy(afterDocuments(p), leading, `"ranked"`)} ${s.joins}`;
  const [keys, rowsWindow] = documentsAlone(p)
    ? pageOfKeys(Prisma.sql`SELECT * FROM "ranked" ${whereAll(onDocument)}`, Prisma.raw(`"rank", "id"`), window)
    : [undefined, window];
  const leading = keys ? Prisma.sql`(${keys}) "ranked"` : passing;
  const page = await db.readSearch(
    Prisma.sql`${ranked} ${pageSql(shape, rankedRows(shape, leading), Prisma.sql`"ranked"."rank", ${id}`, rowsWindow)}`,
  );
  if (page.rows.length > window.take) return page;
  const keptRows = documentsAlone(p) ? Prisma.sql`FROM ${passing}` : rankedRows(COUNT_ONLY);
  const counted = (
    await query<{ all: number; kept: number }>(
      db,
      { all: "int", kept: "int" },
      Prisma.sql`${ranked} SELECT (SELECT COUNT(*) FROM "ranked") AS "all", (SELECT COUNT(*) ${keptRows}) AS "kept"`,
    )
  )[0];
  if (!counted || counted.all < rankWindow || (await matchesEndWithin(exactMatches, counted.kept))) return page;
  // With near: led by the documents within the circle, read from the words' and cells' index (as
  // matchingRows). Joined freely, the planner probed every restaurant of the GiST box.
  const unranked = Prisma.sql`"m".${owner} NOT IN (SELECT "id" FROM "ranked")`;
  const unrankedWords = Prisma.sql`(SELECT "m".${owner} AS "id" FROM ${documents} "m" ${whereAll([...documentTests(p, `"m"`), unranked])}) "words"`;
  const rest = p.near
    ? Prisma.sql`${rowsLedBy(afterDocuments(p), unrankedWords, `"words"`)} ${shape.joins}`
    : Prisma.sql`FROM ${t} JOIN ${documents} "m" ON "m".${owner} = ${id} AND ${documentMatches(p, `"m"`)} ${shape.joins}
    ${whereAll([unranked, ...conditionsOf(p, false)])}`;
  return joined(
    page,
    await db.readSearch(Prisma.sql`${ranked} ${pageSql(shape, rest, id, restWindow(window, counted.kept))}`),
  );
};

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
export function unwalkedRows(p: SearchPlan, shape: PageShape): Prisma.Sql {
  const t = table(p.catalogue);
  return p.openPatterns
    ? Prisma.sql`FROM (SELECT ${t}.* FROM ${t} ${whereAll(conditionsOf(p, false))} OFFSET 0) ${t} ${shape.joins}`
    : filteredRows(p, shape.joins);
}
