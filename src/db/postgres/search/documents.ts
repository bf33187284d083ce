// PostgreSQL reads a search with words from its search documents ("<Catalogue>Search": a tsvector
// of the row's words in a GIN index, and a copy of a restaurant's coordinates, opening pattern and
// city key), then each row the documents lead by its id, behind LATERAL so that the documents lead
// whatever the planner guesses of the other conditions.
import { Prisma } from "../../prisma.ts";
import { conditionsOf, patternIn, within } from "../../search/conditions.ts";
import { wordsAlone, type Catalogue, type SearchPlan } from "../../search-plan.ts";
import { table, whereAll } from "../../search/sql.ts";

/** The search documents of a catalogue. */
export const documentsTable = (catalogue: Catalogue) => Prisma.raw(`"${catalogue}Search"`);

/** The words as a tsquery (its text is the plan's), and the test of a search document against it. */
const tsQuery = (p: SearchPlan) => Prisma.sql`CAST(${p.words} AS tsquery)`;
export const documentMatches = (p: SearchPlan, alias: string) =>
  Prisma.sql`${Prisma.raw(alias)}."document" @@ ${tsQuery(p)}`;

/**
 * The document's coordinates lie in one of the cells covering the circle (migration
 * 20261126040000_search_cells): the second column of the words' GIN index, so one index scan keeps
 * only the documents with the words in those cells. The expression is the index's, as written.
 */
const documentInCells = (p: SearchPlan, alias: string) =>
  Prisma.sql`restaurant_cells(${Prisma.raw(alias)}."latitude", ${Prisma.raw(alias)}."longitude") @@ CAST(${p.cells} AS tsquery)`;

/**
 * The document's words lie within one of the cells covering the circle (migration
 * 20261130020000_words_in_cells): the index of each word within its cell gives exactly those
 * documents, where the words and the cells apart intersected two entry lists, the cells' holding
 * most of a dense city. The expression is the index's, as written.
 */
const documentWordsInCells = (p: SearchPlan, alias: string) =>
  Prisma.sql`restaurant_word_cells(${Prisma.raw(alias)}."document", ${Prisma.raw(alias)}."latitude", ${Prisma.raw(alias)}."longitude") @@ CAST(${p.wordCells} AS tsquery)`;

/**
 * The conditions but the words a search document holds the columns of: a near search's circle on
 * its copy of the coordinates (migration 20261126020000_search_document_coordinates), and a
 * restaurant's city and open at an instant on its copies of the city key and the opening pattern
 * (20261129053000_search_document_opening), so only the rows that pass them are read.
 */
export const documentConditions = (p: SearchPlan, alias: string): Prisma.Sql[] => [
  ...(p.near ? within(p, p.near, alias) : []),
  ...(p.catalogue === "Restaurant" && p.cityKey ? [Prisma.sql`${Prisma.raw(alias)}."citySearch" = ${p.cityKey}`] : []),
  ...(p.catalogue === "Restaurant" && p.openPatterns ? [patternIn(p.engine, p.openPatterns, false, alias)] : []),
];

/** The columns of a document documentConditions reads, to carry beside its id (`"m".` each). */
export const documentColumns = (p: SearchPlan): string[] => [
  ...(p.near ? [`"latitude"`, `"longitude"`] : []),
  ...(p.catalogue === "Restaurant" && p.cityKey ? [`"citySearch"`] : []),
  ...(p.catalogue === "Restaurant" && p.openPatterns ? [`"openingPattern"`] : []),
];

/**
 * The tests of a search document that leads a search with words: the words and the cells, and the
 * conditions it holds (documentConditions). The rows it leads test the others (`afterDocuments`).
 * Led by the word index, the words within the cells when indexed so; `perDocument` (documents led
 * by another index, a sample's hash), the words and the cells apart, cheap to test on each.
 */
export const documentTests = (p: SearchPlan, alias: string, perDocument = false): Prisma.Sql[] => [
  ...(p.wordCells && !perDocument
    ? [documentWordsInCells(p, alias)]
    : [documentMatches(p, alias), ...(p.cells ? [documentInCells(p, alias)] : [])]),
  ...documentConditions(p, alias),
];

/** The conditions left to test on the rows the search documents lead (documentTests took the rest). */
export const afterDocuments = (p: SearchPlan): SearchPlan =>
  p.catalogue === "Restaurant"
    ? { ...p, near: undefined, cityKey: undefined, openPatterns: undefined }
    : { ...p, near: undefined };

/** Whether the search documents alone answer which rows match: words, and only conditions they hold. */
export const documentsAlone = (p: SearchPlan) => wordsAlone(afterDocuments(p));

/** The rank of a matching document, smaller is better (as bm25). */
export const documentRank = (p: SearchPlan, alias: string) =>
  Prisma.sql`-ts_rank(${Prisma.raw(alias)}."document", ${tsQuery(p)})`;

/**
 * "FROM" the catalogue's rows whose ids `leading` gives (its column "id", under `alias`), each read
 * by its id and tested on every condition but the words. LATERAL keeps `leading` first: the planner
 * estimates a near search's box at 0.1% of the rows and led with it otherwise.
 */
export function rowsLedBy(p: SearchPlan, leading: Prisma.Sql, alias: string): Prisma.Sql {
  const t = table(p.catalogue);
  const tests = whereAll([Prisma.sql`${t}."id" = ${Prisma.raw(alias)}."id"`, ...conditionsOf(p, true)]);
  return Prisma.sql`FROM ${leading} CROSS JOIN LATERAL (SELECT ${t}.* FROM ${t} ${tests} OFFSET 0) ${t}`;
}

/**
 * What a search document gives the totals' and facets' "m" beside its owner's id: the city key and
 * the facet keys (migration 20261129120000_search_document_facets) of a restaurant; nothing of a
 * grocery. The city's spelling is left to the facets' label (facets.ts reads it for a city without one).
 */
export const documentFacetColumns = (p: SearchPlan, alias: string) =>
  Prisma.raw(
    p.catalogue === "Restaurant"
      ? `${alias}."citySearch" AS "cityKey", CAST(NULL AS TEXT) AS "city", ${alias}."facetKeys"`
      : `CAST(NULL AS TEXT) AS "cityKey", CAST(NULL AS TEXT) AS "city"`,
  );

/** The columns of a restaurant's document documentFacetColumns reads, to carry beside its id. */
export const facetColumnsCarried = (p: SearchPlan): string[] =>
  p.catalogue === "Restaurant" ? [`"citySearch"`, `"facetKeys"`] : [];
