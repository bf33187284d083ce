// PostgreSQL reads a search with words from its search documents ("<Catalogue>Search": a tsvector
// of the row's words in a GIN index, and a copy of its coordinates), then each row the documents
// lead by its id, behind LATERAL so that the documents lead whatever the planner guesses of the
// other conditions.
import { Prisma } from "../../prisma.ts";
import { conditionsOf, within } from "../../search/conditions.ts";
import type { Catalogue, SearchPlan } from "../../search-plan.ts";
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
 * The tests of a search document that leads a search with words: the words, the cells, and a near
 * search's circle on the document's copy of the coordinates (migration
 * 20261126020000_search_document_coordinates), so only the rows within it are read. The rows it
 * leads test the other conditions (`afterDocuments`).
 */
export const documentTests = (p: SearchPlan, alias: string): Prisma.Sql[] => [
  documentMatches(p, alias),
  ...(p.cells ? [documentInCells(p, alias)] : []),
  ...(p.near ? within(p, p.near, alias) : []),
];

/** The conditions left to test on the rows the search documents lead (documentTests took near). */
export const afterDocuments = (p: SearchPlan): SearchPlan => ({ ...p, near: undefined });

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
