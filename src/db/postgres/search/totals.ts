// PostgreSQL's counts and samples: words led by the search documents, a list value's rows one value
// after another, and samples of rows by their id's hash.
import { Prisma } from "../../prisma.ts";
import type { SqlReader } from "../../raw-rows.ts";
import { conditionsOf, matchingCatalogueRows } from "../../search/conditions.ts";
import { rowTestCount, wordsAlone, type Sample, type SearchPlan, type TagCondition } from "../../search-plan.ts";
import { OWNER_KEY, query, table, whereAll } from "../../search/sql.ts";
import { countKey, storedTotalOf } from "../../search/stored-counts.ts";
import { leadRows, leadSample, ledCount, sampleSelect } from "../../search/totals.ts";
import {
  afterDocuments,
  documentFacetColumns,
  documentsAlone,
  documentsTable,
  documentTests,
  rowsLedBy,
} from "./documents.ts";

/** The rows matching every condition: with words, led by the search documents; else as the planner reads them. */
export function matchingRows(p: SearchPlan): Prisma.Sql {
  if (!p.words) return matchingCatalogueRows(p);
  const [owner, documents] = [Prisma.raw(OWNER_KEY[p.catalogue]), documentsTable(p.catalogue)];
  const words = Prisma.sql`(SELECT "m".${owner} AS "id" FROM ${documents} "m" ${whereAll(documentTests(p, `"m"`))}) "words"`;
  return rowsLedBy(afterDocuments(p), words, `"words"`);
}

/**
 * The matching documents as a total's or the facets' "m", when they hold every condition: no row
 * of the catalogue read. `sampled`: a sample's test of the hash, which leads; each document then tests the rest.
 */
const documentMatchesOnly = (p: SearchPlan, sampled: Prisma.Sql[] = []) =>
  Prisma.sql`SELECT "m".${Prisma.raw(OWNER_KEY[p.catalogue])} AS "id", ${documentFacetColumns(p, `"m"`)}
    FROM ${documentsTable(p.catalogue)} "m" ${whereAll([...sampled, ...documentTests(p, `"m"`, sampled.length > 0)])}`;

/** Every match as "m": from the search documents alone when they hold every condition. */
export const matches = (p: SearchPlan): Prisma.Sql =>
  documentsAlone(p) ? documentMatchesOnly(p) : sampleSelect(p, matchingRows(p));

/**
 * The rows of the lead list's values, each other condition tested row by row (leadRows: each
 * value's rows follow the one before). DISTINCT made PostgreSQL hash every row of the values before
 * the first count.
 */
const tagLedRows = (p: SearchPlan, lead: TagCondition, rest: SearchPlan): Prisma.Sql =>
  Prisma.sql`SELECT 1 AS "x" ${rowsLedBy(rest, Prisma.sql`(${leadRows(p, lead)}) "lead"`, `"lead"`)}`;

/**
 * A circle alone: its rows in the order of the (latitude, longitude) index, the box as two ranges,
 * read from that index alone until the count's limit. From the GiST index the count first built a
 * bitmap of every row of the box (500,000 around a dense city: 4,215 buffers, ~290 ms).
 */
function placeRowsAlone(p: SearchPlan): Prisma.Sql | undefined {
  if (!p.near || p.words || p.titleKey || p.tags.length || p.cityKey || p.minRating != null || rowTestCount(p))
    return undefined;
  return Prisma.sql`SELECT 1 AS "x" FROM "Restaurant" ${whereAll(conditionsOf(p, true))} ORDER BY "Restaurant"."latitude"`;
}

/**
 * The rows led by the rarest list, or the search documents alone when they hold every condition
 * (joined to their restaurants, "pizza" within 50 km of Lisbon counted 1,001 documents and probed
 * the restaurants' key for each: 4,070 buffers, 3,004 of them the probes); not beside the facets
 * but for words alone, as their one statement reads the documents once for both. Or a circle's
 * rows alone.
 */
export const countShortcut = (p: SearchPlan, besideFacets = false): Prisma.Sql | undefined =>
  ledCount(p, tagLedRows) ??
  (documentsAlone(p) && !(besideFacets && !wordsAlone(p))
    ? Prisma.sql`SELECT 1 FROM ${documentsTable(p.catalogue)} "m" ${whereAll(documentTests(p, `"m"`))}`
    : placeRowsAlone(p));

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
 * 20261128180000_uniform_sample), of the search documents when there are words, of the lead list's
 * rows when a list leads (leadSample), else of the catalogue: each row is in it or not by its own
 * id, so rows loaded city by city are sampled as evenly as shuffled ones. The same rows from one
 * page to the next.
 */
export async function sample(db: SqlReader, p: SearchPlan): Promise<Sample> {
  // A tag row's owner hashes as its row: the rows the catalogue's sample keeps among the lead's.
  const led = leadSample(p, p.limits.sampleRows / 2, INDEX_ENTRIES_PER_ROW);
  if (led) {
    const kept = Prisma.sql`(${leadRows(p, led.lead, hashedUnder(led.share, `"lead".${OWNER_KEY[p.catalogue]}`))}) "lead"`;
    return { m: sampleSelect(p, rowsLedBy(led.rest, kept, `"lead"`)), share: led.share };
  }
  const t = table(p.catalogue);
  const sampled = p.words ? `"${p.catalogue}Search"` : `"${p.catalogue}"`;
  // The table's estimated rows, as recently read: a statement of its own in every sampled search,
  // queued behind the search's others in its client's share, for a figure that changes when the
  // table is analyzed.
  const estimated = async () =>
    new Map([
      [
        sampled,
        (
          await query<{ n: number }>(
            db,
            { n: "float" },
            Prisma.sql`SELECT GREATEST(reltuples, 1) AS "n" FROM pg_class WHERE oid = ${sampled}::regclass`,
          )
        )[0]?.n ?? 1,
      ],
    ]);
  const rows =
    (await (p.recentCounts ? p.recentCounts(`pg_class\u0000${sampled}`, estimated) : estimated())).get(sampled) ?? 1;
  // Without words, half the rows: each is tested against every condition (a tag test is an index
  // probe), and 10,000 rows cost twice main's sample of contiguous pages.
  const share = Math.min(1, (p.words ? p.limits.sampleRows : p.limits.sampleRows / 2) / rows);
  const hashed = (alias: string, key: string) => hashedUnder(share, `${alias}.${key}`);
  if (documentsAlone(p)) return { m: documentMatchesOnly(p, hashed(`"m"`, OWNER_KEY[p.catalogue])), share };
  // The sampled documents lead, each row then read by its id (LATERAL): planned generically, the
  // sample scan ran again for each row of a near search.
  const columns = Prisma.raw(p.catalogue === "Restaurant" ? `"id", "citySearch", "city"` : `"id"`);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  const documentsSampled = whereAll([...hashed(`"m"`, OWNER_KEY[p.catalogue]), ...documentTests(p, `"m"`, true)]);
  const rowTested = whereAll([Prisma.sql`${t}."id" = "sampled"."owner"`, ...conditionsOf(afterDocuments(p), true)]);
  const from = p.words
    ? Prisma.sql`FROM (SELECT "m".${owner} AS "owner" FROM ${Prisma.raw(sampled)} "m" ${documentsSampled}) "sampled"
        CROSS JOIN LATERAL (SELECT ${columns} FROM ${t} ${rowTested} OFFSET 0) ${t}`
    : p.catalogue === "Restaurant" && !p.titleKey
      ? Prisma.sql`FROM (SELECT ${SAMPLED_COLUMNS} FROM ${t} ${whereAll(hashed(`"${p.catalogue}"`, `"id"`))} OFFSET 0) ${t}
          ${whereAll(conditionsOf(p, true))}`
      : Prisma.sql`FROM ${t} ${whereAll([...hashed(`"${p.catalogue}"`, `"id"`), ...conditionsOf(p, true)])}`;
  return { m: sampleSelect(p, from), share };
}

/**
 * The columns of a restaurant the catalogue's sample tests and counts, all in "Restaurant_id_hash_idx"
 * (migration 20261129051000_sample_covering_index): the sampled rows are read from that index
 * alone, first, whatever the conditions (behind OFFSET 0). Left to itself the planner ANDed the
 * hash with another index's bitmap (a minimum rating's 334,121 entries) and read the table's pages.
 */
const SAMPLED_COLUMNS = Prisma.raw(
  [
    "id",
    "latitude",
    "longitude",
    "citySearch",
    "city",
    "openingPattern",
    "ratingAvg",
    "canHomeDeliver",
    "acceptsReservations",
  ]
    .map((column) => `"Restaurant"."${column}"`)
    .join(", "),
);

/**
 * Index entries of a list read for the cost of one row of the catalogue's sample: none but the
 * kept ones, which its index holds by their owner's hash (migration 20261129081000_tag_hash_index).
 */
const INDEX_ENTRIES_PER_ROW = Infinity;

/**
 * The key hashes under the share (none when the share is whole). Written into the statement: a
 * bound parameter left a generic plan guessing a third of the rows.
 */
const hashedUnder = (share: number, key: string) =>
  share >= 1 ? [] : [Prisma.raw(`hashtext(${key}) < ${Math.floor(-(2 ** 31) + share * 2 ** 32)}`)];

/** The list kinds a restaurant's search document copies as "facetKeys" (migration 20261129120000_search_document_facets). */
const DOCUMENT_FACET_KINDS = ["CUISINE", "CATEGORY", "PRICE_RANGE"];

/**
 * The list values of these kinds of "m"'s rows, as t (kind, valueKey, value, n: how many rows have
 * it). When "m" is search documents (documentMatchesOnly), counted from their "facetKeys"
 * ('KIND:valueKey'; the label is the stored one, facets.ts), each key grouped before it is split
 * (splitting every key cost more than the grouping): probing "RestaurantTag" for every match and
 * kind cost several times the matches' own reads (docs/performance.md, "Facets counted while
 * ranked"). Otherwise each match's values are read by its key (LATERAL): the planner otherwise
 * scanned every tag row.
 */
export function facetTags(p: SearchPlan, kinds: string[]): Prisma.Sql {
  if (p.catalogue === "Restaurant" && documentsAlone(p) && kinds.every((k) => DOCUMENT_FACET_KINDS.includes(k))) {
    const kind = Prisma.sql`split_part(k."key", ':', 1)`;
    const valueKey = Prisma.sql`substr(k."key", strpos(k."key", ':') + 1)`;
    // OFFSET 0: the kinds are tested on each value counted, not pushed down to each key (many
    // times as many).
    return Prisma.sql`(SELECT ${kind} AS "kind", ${valueKey} AS "valueKey", ${valueKey} AS "value", k."n"
          FROM (SELECT "key", COUNT(*) AS "n" FROM (SELECT unnest("m"."facetKeys") AS "key" FROM "m") u GROUP BY "key" OFFSET 0) k
          WHERE ${kind} IN (${Prisma.join(kinds)})) t`;
  }
  const tags = Prisma.raw(`"${p.catalogue}Tag"`);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  return Prisma.sql`"m" CROSS JOIN LATERAL (SELECT x."kind", x."valueKey", x."value", 1 AS "n" FROM ${tags} x
          WHERE x.${owner} = "m"."id" AND x."kind" IN (${Prisma.join(kinds)}) OFFSET 0) t`;
}
