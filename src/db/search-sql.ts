// The conditions of a search as SQL, each in the forms the two databases read best (searches.ts
// chooses among them; search-totals.ts counts with them):
// - words (`search`): the databases' own full-text engines over derived tables the migrations
//   20261125165728_search and 20261125200000_search_scale keep up to date with triggers (SQLite
//   FTS5 ranked by bm25, PostgreSQL tsvector ranked by ts_rank); a long word missing from the
//   vocabulary is widened to the stored words one typo away;
// - title substring (the legacy `q`): a trigram index (FTS5 trigram / pg_trgm), then LIKE with its
//   wildcards escaped (Prisma's `contains` leaves them live, prisma/orm#19506);
// - list values: read from the (kind, valueKey, id) index, or tested row by row;
// - near: the box around the circle from a spatial index (SQLite R*Tree, PostgreSQL GiST), then
//   the great-circle distance;
// - open at: the wall-clock time in each restaurant's zone against its opening hours.
import type { Dialect } from "./dialect.ts";
import { Prisma } from "./prisma.ts";
import type { SqlReader } from "./raw-rows.ts";
import { rowsOf } from "./reads.ts";
import { coveringCells, type Box } from "./search-cells.ts";
import { PREFIX_MIN_LENGTH, TYPO_MIN_LENGTH, typoPrefixes, withinOneEdit } from "./search-words.ts";

export type Provider = Dialect;
type Db = SqlReader;
export type Catalogue = "Restaurant" | "Grocery";

/** One list condition: the row has at least one of these values (lower-cased search keys). */
export type TagCondition<K extends string = string> = { kind: K; keys: string[] };

export type Near = { latitude: number; longitude: number; radiusKm: number };

/**
 * A search's conditions, kept apart by what can read them: the words and the title substring
 * from the text indexes, the lists and the city from their indexes (and the counts kept of
 * them), near from the spatial index; `rowTests` only row by row.
 */
export type SearchPlan = {
  provider: Provider;
  catalogue: Catalogue;
  /** The words as the engine's query text (an FTS5 expression or a tsquery's text), typos widened. */
  words?: string;
  titleKey?: string;
  tags: TagCondition[];
  cityKey?: string;
  minRating?: number;
  near?: Near;
  /**
   * With words and near: the map cells covering the circle as the engine's query text (FTS5
   * `"g1y1029x1366" OR ...`, a tsquery `'g1y1029x1366' | ...`; search-cells.ts), asked of the word
   * index with the words. Undefined when the circle needs too many cells.
   */
  cells?: string;
  /** Flags. */
  rowTests: Prisma.Sql[];
  /** Open at an instant: the ids of the opening patterns open then (opening-patterns.ts). */
  openPatterns?: number[];
  /**
   * The kept counts of the catalogue, its lists' values and city (search-totals.ts countKey), read
   * when the search names any, or a title substring; up to a few seconds old (planning-counts.ts),
   * so they choose how a search reads and never give an answer.
   */
  keptCounts?: Map<string, number>;
};

export const table = (catalogue: Catalogue) => Prisma.raw(`"${catalogue}"`);
export const OWNER_KEY: Record<Catalogue, string> = { Restaurant: `"restaurantId"`, Grocery: `"groceryId"` };
/** SQLite: the table giving each row its integer key in the search indexes (FTS5, R*Tree). */
export const searchRows = (catalogue: Catalogue) => Prisma.raw(`"${catalogue}SearchRow"`);

/** Every statement of a search runs aside: on SQLite, in a reader thread (client.ts). */
export const query = async <T>(db: Db, columns: Parameters<typeof rowsOf>[0], sql: Prisma.Sql) =>
  rowsOf<T>(columns, await db.readSearch(sql));

export const whereAll = (conditions: Prisma.Sql[]) =>
  conditions.length === 0 ? Prisma.empty : Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`;

export const number = (value: number) => Prisma.sql`CAST(${value} AS DOUBLE PRECISION)`;

/** Whether the plan has no condition at all. */
export const unfiltered = (p: SearchPlan) =>
  !p.words &&
  !p.titleKey &&
  p.tags.length === 0 &&
  !p.cityKey &&
  p.minRating == null &&
  !p.near &&
  rowTestCount(p) === 0;

/** The conditions tested on each row only: the flags, and open at an instant. */
export const rowTestCount = (p: SearchPlan) => p.rowTests.length + (p.openPatterns ? 1 : 0);

// ---- Words -------------------------------------------------------------------------------------

/** Most stored words looked at per misspelt word, and most alternatives kept. */
const VOCABULARY_PROBE = 2000;
const MAX_ALTERNATIVES = 8;

const nextPrefix = (prefix: string) =>
  prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1)! + 1);

/** Stored words that start like `word` (its first two letters, or those two swapped). */
async function wordsLike(db: Db, provider: Provider, catalogue: Catalogue, word: string): Promise<string[]> {
  const ranges = typoPrefixes(word).map((p) => Prisma.sql`("term" >= ${p} AND "term" < ${nextPrefix(p)})`);
  const terms = Prisma.raw(provider === "sqlite" ? `"${catalogue}SearchTerms"` : `"SearchTerm"`);
  const rows = await query<{ term: string }>(
    db,
    { term: "text" },
    Prisma.sql`SELECT "term" FROM ${terms} WHERE ${Prisma.join(ranges, " OR ")} LIMIT ${Prisma.raw(String(VOCABULARY_PROBE))}`,
  );
  return rows.map((r) => r.term);
}

/**
 * Whether a stored word is `word` (or, `asPrefix`, starts with it): one look at the vocabulary's
 * order, before any probe for typos (SQLite's fts5vocab reads each word's matches to count them:
 * probing the 2,000 words that start with "ma" took 12 ms at 1,000,000 restaurants).
 */
async function isStored(
  db: Db,
  provider: Provider,
  catalogue: Catalogue,
  word: string,
  asPrefix: boolean,
): Promise<boolean> {
  const terms = Prisma.raw(provider === "sqlite" ? `"${catalogue}SearchTerms"` : `"SearchTerm"`);
  const range = asPrefix
    ? Prisma.sql`"term" >= ${word} AND "term" < ${nextPrefix(word)}`
    : Prisma.sql`"term" = ${word}`;
  return (
    (
      await query<{ term: string }>(
        db,
        { term: "text" },
        Prisma.sql`SELECT "term" FROM ${terms} WHERE ${range} LIMIT 1`,
      )
    ).length > 0
  );
}

/**
 * Each word with what it may have meant: itself, and when it is long and no stored word is (or,
 * for the last word, starts with) it, the stored words one typo away.
 */
async function withTypos(db: Db, provider: Provider, catalogue: Catalogue, words: string[]): Promise<string[][]> {
  return Promise.all(
    words.map(async (word, i) => {
      if (word.length < TYPO_MIN_LENGTH) return [word];
      if (await isStored(db, provider, catalogue, word, i === words.length - 1)) return [word];
      const stored = await wordsLike(db, provider, catalogue, word);
      return [word, ...stored.filter((s) => withinOneEdit(word, s)).slice(0, MAX_ALTERNATIVES)];
    }),
  );
}

/**
 * PostgreSQL: whether no stored word but `word` itself starts with it, so that `word:*` matches
 * what `word` matches. The vocabulary holds every word of 4 letters or more, so a longer word
 * starting with `word` would be there. A prefix costs the word index a partial match (its
 * posting lists gathered into a bitmap): "pizza:*" 8.8 ms against 3.5 ms for "pizza" at
 * 1,000,000 restaurants, in every statement of the search.
 */
async function endsNoOtherWord(db: Db, word: string): Promise<boolean> {
  const rows = await query<{ term: string }>(
    db,
    { term: "text" },
    Prisma.sql`SELECT "term" FROM "SearchTerm" WHERE "term" >= ${word} AND "term" < ${nextPrefix(word)} LIMIT 2`,
  );
  return rows.every((r) => r.term === word);
}

/**
 * The words as an FTS5 query (`"pizz" *` for the last) or a tsquery (`pizz:*`); alternatives OR'ed.
 * PostgreSQL: the tsquery's own text, accents removed (`unaccent`, as the documents were) once
 * here: in a statement, unaccent (a STABLE function) runs again for every row a filter or a
 * recheck tests (16 of the 20 ms of a 10,000-row sample of "pizza margherita").
 */
export async function wordsQuery(db: Db, provider: Provider, catalogue: Catalogue, words: string[]): Promise<string> {
  const alternatives = await withTypos(db, provider, catalogue, words);
  const lastWord = words.at(-1)!;
  const lastIsWhole =
    [...lastWord].length < PREFIX_MIN_LENGTH ||
    (provider === "postgres" && alternatives.at(-1)!.length === 1 && (await endsNoOtherWord(db, lastWord)));
  // Words hold only letters and digits (searchWords), so they need no escaping in either syntax.
  const text = alternatives
    .map((options, i) => {
      const last = i === alternatives.length - 1;
      // The word as typed is the prefix; its typo alternatives are whole words.
      const prefixed = (j: number) => last && j === 0 && !lastIsWhole;
      const terms = options.map((w, j) =>
        provider === "sqlite" ? `"${w}"${prefixed(j) ? " *" : ""}` : `${w}${prefixed(j) ? ":*" : ""}`,
      );
      return terms.length === 1 ? terms[0] : `(${terms.join(provider === "sqlite" ? " OR " : " | ")})`;
    })
    .join(provider === "sqlite" ? " AND " : " & ");
  // A restaurant's document holds its map cells in a column of their own ("place",
  // search-cells.ts), which the users' words must never reach: a word or prefix typed ("g1y10")
  // would otherwise match every restaurant in the cells it spells.
  if (provider === "sqlite") return catalogue === "Restaurant" ? `${WORD_COLUMNS} : (${text})` : text;
  const [row] = await query<{ q: string }>(
    db,
    { q: "text" },
    Prisma.sql`SELECT CAST(to_tsquery('simple', unaccent(${text})) AS TEXT) AS "q"`,
  );
  // No lexeme left (words the parser drops): the text as it is, which no document holds either.
  return row?.q || text;
}

/** SQLite: the columns of a restaurant's FTS5 document the users' words are matched against (not "place"). */
const WORD_COLUMNS = "{title tags body}";

/**
 * The cells covering a near search's circle as the engine's query text (SearchPlan.cells), or
 * undefined when it needs too many.
 */
export function cellsQuery(provider: Provider, near: Near): string | undefined {
  const cells = coveringCells(boxOf(near));
  if (!cells) return undefined;
  return provider === "sqlite" ? cells.map((c) => `"${c}"`).join(" OR ") : cells.map((c) => `'${c}'`).join(" | ");
}

/**
 * bm25's weights of the search columns: title, then lists (cuisines, categories; other name), then
 * the rest; a restaurant's map cells ("place") weigh nothing.
 */
const BM25: Record<Catalogue, string> = { Restaurant: "bm25(10.0, 4.0, 1.0, 0.0)", Grocery: "bm25(10.0, 4.0, 1.0)" };

/**
 * SQLite: a key (rowid) as a bound value. FTS5 seeks to a range of keys only when its bounds are
 * integers; the driver binds a JavaScript number as a REAL, and the four sample windows of "pizza
 * margherita" at 1,000,000 restaurants then took 8.3 ms instead of 3.0.
 */
export const keyValue = (key: number) => BigInt(key);

/** SQLite: the FTS5 table of the words. */
export const wordsTable = (catalogue: Catalogue) => Prisma.raw(`"${catalogue}Search"`);

/**
 * SQLite: the keys (FTS5 rowids) of the rows matching the words, with their bm25 rank (smaller is
 * better) when `ranked`, FTS5 ordering them itself (it ranks every match it reads, without a sort
 * of joined rows); `range` bounds the keys.
 */
export function wordKeys(
  p: SearchPlan,
  { ranked = false, range = Prisma.empty }: { ranked?: boolean; range?: Prisma.Sql } = {},
): Prisma.Sql {
  const fts = wordsTable(p.catalogue);
  // With near, only the matches in the cells covering the circle: FTS5 intersects the two itself.
  const match = p.cells ? `${p.words} AND (${p.cells})` : p.words;
  return ranked
    ? Prisma.sql`SELECT "rowid" AS "key", "rank" FROM ${fts} WHERE ${fts} MATCH ${match} ${range} AND "rank" MATCH ${BM25[p.catalogue]} ORDER BY "rank"`
    : Prisma.sql`SELECT "rowid" AS "key" FROM ${fts} WHERE ${fts} MATCH ${match} ${range}`;
}

/** PostgreSQL: the words as a tsquery (wordsQuery gave its text), and the test of a search document against it. */
export const tsQuery = (p: SearchPlan) => Prisma.sql`CAST(${p.words} AS tsquery)`;
export const documentMatches = (p: SearchPlan, alias: string) =>
  Prisma.sql`${Prisma.raw(alias)}."document" @@ ${tsQuery(p)}`;
/**
 * PostgreSQL: the tests of a search document that leads a search with words: the words, and a near
 * search's circle on the document's copy of the restaurant's coordinates (migration
 * 20261126020000_search_document_coordinates), so only the restaurants within it are read ("pizza"
 * near Lisbon at 1,000,000 restaurants: 19,414 restaurants read to keep about 2,200). The rows it
 * leads test the other conditions (`afterDocuments`).
 */
export const documentTests = (p: SearchPlan, alias: string): Prisma.Sql[] => [
  documentMatches(p, alias),
  ...(p.cells ? [documentInCells(p, alias)] : []),
  ...(p.near ? within(p, p.near, alias) : []),
];
/**
 * PostgreSQL: the document's coordinates lie in one of the cells covering the circle (migration
 * 20261126040000_search_cells): the second column of the words' GIN index, so one index scan keeps
 * only the documents with the words in those cells. The expression is the index's, as written.
 */
const documentInCells = (p: SearchPlan, alias: string) =>
  Prisma.sql`restaurant_cells(${Prisma.raw(alias)}."latitude", ${Prisma.raw(alias)}."longitude") @@ CAST(${p.cells} AS tsquery)`;
/** PostgreSQL: the conditions left to test on the rows the search documents lead (documentTests took near). */
export const afterDocuments = (p: SearchPlan): SearchPlan => ({ ...p, near: undefined });
/** PostgreSQL: the rank of a matching document, smaller is better (as bm25). */
export const documentRank = (p: SearchPlan, alias: string) =>
  Prisma.sql`-ts_rank(${Prisma.raw(alias)}."document", ${tsQuery(p)})`;

// ---- Title substring ---------------------------------------------------------------------------

// "!" escapes LIKE's wildcards: unlike a backslash, it means the same in SQLite and in
// PostgreSQL whatever standard_conforming_strings says.
const likeLiteral = (key: string) => `%${key.replace(/[!%_]/g, (c) => `!${c}`)}%`;

export const titleLike = (p: SearchPlan, key: string) =>
  Prisma.sql`${table(p.catalogue)}."titleSearch" LIKE ${likeLiteral(key)} ESCAPE '!'`;

/** SQLite: the title's trigram index holds the key as a phrase (its trigrams in a row), which needs 3 characters or more. */
export const trigramUsable = (p: SearchPlan) =>
  p.provider === "sqlite" && p.titleKey != null && [...p.titleKey].length >= 3;

/**
 * SQLite: whether the trigram phrase alone says what LIKE says, so a count can skip the rows: an
 * ASCII key (both sides are lower-cased already, and the tokenizer folds only ASCII letters the
 * same way LIKE does).
 */
export const trigramExact = (p: SearchPlan) => trigramUsable(p) && /^[\x20-\x7e]+$/.test(p.titleKey!);

/** SQLite: the keys of the rows whose title holds the key (a phrase of the trigram index). */
export function trigramKeys(p: SearchPlan): Prisma.Sql {
  const fts = Prisma.raw(`"${p.catalogue}TitleTrigrams"`);
  return Prisma.sql`SELECT "rowid" AS "key" FROM ${fts} WHERE ${fts} MATCH ${`"${p.titleKey!.replace(/"/g, '""')}"`}`;
}

/**
 * The title contains the key. PostgreSQL reads LIKE from its pg_trgm index by itself; SQLite first
 * takes the rows the trigram index finds, unless the page is read row by row.
 */
export function titleContains(p: SearchPlan, perRow: boolean): Prisma.Sql[] {
  const like = titleLike(p, p.titleKey!);
  if (perRow || !trigramUsable(p)) return [like];
  return [
    Prisma.sql`${table(p.catalogue)}."id" IN (SELECT s.${Prisma.raw(OWNER_KEY[p.catalogue])} FROM (${trigramKeys(p)}) k
      JOIN ${searchRows(p.catalogue)} s ON s."rowid" = k."key")`,
    like,
  ];
}

// ---- Lists -------------------------------------------------------------------------------------

/**
 * The row has one of the values. `perRow`: tested row by row, for a page read in its order's
 * index: a scalar subquery, which PostgreSQL cannot turn into a semi-join (it hashed every match
 * of each list, then sorted: any of two cuisines + a price range by rating, 300 ms -> 10 ms at
 * 200,000); otherwise `id IN` the tag rows, which the planner may read from the tag index.
 */
export function hasTag(catalogue: Catalogue, { kind, keys }: TagCondition, perRow = false) {
  const tags = Prisma.raw(`"${catalogue}Tag"`);
  const owner = Prisma.raw(OWNER_KEY[catalogue]);
  const value = keys.length === 1 ? Prisma.sql`= ${keys[0]}` : Prisma.sql`IN (${Prisma.join(keys)})`;
  if (perRow) {
    return Prisma.sql`(SELECT TRUE FROM ${tags} t WHERE t.${owner} = ${table(catalogue)}."id" AND t."kind" = ${kind} AND t."valueKey" ${value} LIMIT 1)`;
  }
  return Prisma.sql`${table(catalogue)}."id" IN (SELECT t.${owner} FROM ${tags} t WHERE t."kind" = ${kind} AND t."valueKey" ${value})`;
}

// ---- Near --------------------------------------------------------------------------------------

const EARTH_RADIUS_KM = 6371.0088;
const KM_PER_DEGREE = (Math.PI * EARTH_RADIUS_KM) / 180;

/** Great-circle distance in km from the point to the coordinates (haversine; same functions on both databases). */
export function distanceKm({ latitude, longitude }: Near, at = `"Restaurant"`): Prisma.Sql {
  const lat = Prisma.raw(`${at}."latitude"`);
  const lng = Prisma.raw(`${at}."longitude"`);
  return Prisma.sql`(${number(2 * EARTH_RADIUS_KM)} * asin(sqrt(
    power(sin(radians(${lat} - ${number(latitude)}) / 2), 2)
    + cos(radians(${number(latitude)})) * cos(radians(${lat})) * power(sin(radians(${lng} - ${number(longitude)}) / 2), 2))))`;
}

/** Degrees added around a circle's box: the distance is computed in SQL and may round the other way at its edge. */
const BOX_MARGIN = 1e-9;

/**
 * The box around the circle: south, north, and one or two west-east spans (split where it crosses
 * ±180°). On the sphere the distances are measured on, the circle's widest longitude is
 * asin(sin(d) / cos(latitude)) away (d its angular radius), a little more than d / cos(latitude)
 * (which missed points near the box's east and west edges at high latitudes); a circle that holds
 * a pole spans every longitude.
 */
export function boxOf(near: Near): Box {
  const dLat = near.radiusKm / KM_PER_DEGREE;
  const south = Math.max(-90, near.latitude - dLat - BOX_MARGIN);
  const north = Math.min(90, near.latitude + dLat + BOX_MARGIN);
  const ratio = Math.sin((dLat * Math.PI) / 180) / Math.cos((near.latitude * Math.PI) / 180);
  const dLng = south <= -90 || north >= 90 || !(ratio < 1) ? 360 : (Math.asin(ratio) * 180) / Math.PI + BOX_MARGIN;
  const west = near.longitude - dLng;
  const east = near.longitude + dLng;
  const spans: [number, number][] =
    dLng >= 180 || (west < -180 && east > 180)
      ? [[-180, 180]]
      : west < -180
        ? [
            [west + 360, 180],
            [-180, east],
          ]
        : east > 180
          ? [
              [west, 180],
              [-180, east - 360],
            ]
          : [[west, east]];
  return { south, north, spans };
}

/**
 * The rows within the circle, tested on the row's own coordinates: PostgreSQL reads the box from
 * its GiST index of points; on SQLite this is a row test (near searches read the R*Tree instead,
 * placeKeys).
 */
export function within(p: SearchPlan, near: Near, at = `"Restaurant"`): Prisma.Sql[] {
  const { south, north, spans } = boxOf(near);
  const [lat, lng] = [Prisma.raw(`${at}."latitude"`), Prisma.raw(`${at}."longitude"`)];
  const box =
    p.provider === "postgres"
      ? spans.map(
          ([w, e]) =>
            Prisma.sql`point(${lng}, ${lat}) <@ box(point(${number(w)}, ${number(south)}), point(${number(e)}, ${number(north)}))`,
        )
      : spans.map(
          ([w, e]) =>
            Prisma.sql`(${lat} BETWEEN ${number(south)} AND ${number(north)} AND ${lng} BETWEEN ${number(w)} AND ${number(e)})`,
        );
  return [
    box.length === 1 ? box[0] : Prisma.sql`(${Prisma.join(box, " OR ")})`,
    Prisma.sql`${distanceKm(near, at)} <= ${number(near.radiusKm)}`,
  ];
}

/**
 * SQLite: the keys of the restaurants within the circle, from the R*Tree alone (its auxiliary
 * columns hold the exact coordinates the distance is measured from).
 */
export function placeKeys(near: Near): Prisma.Sql {
  const { south, north, spans } = boxOf(near);
  const box = spans.map(([w, e]) => Prisma.sql`("minLongitude" <= ${e} AND "maxLongitude" >= ${w})`);
  return Prisma.sql`SELECT "rowid" AS "key" FROM "RestaurantPlace" AS "place"
    WHERE "minLatitude" <= ${north} AND "maxLatitude" >= ${south} AND ${box.length === 1 ? box[0] : Prisma.sql`(${Prisma.join(box, " OR ")})`}
      AND ${distanceKm(near, `"place"`)} <= ${number(near.radiusKm)}`;
}

/**
 * SQLite: "FROM" the rows of these keys (the words' or the R*Tree's), with `joins`, each tested on
 * the conditions of `rest`. A near condition is tested on the search row's copy of the coordinates
 * (migration 20261126013000_search_row_coordinates), before the restaurant is read: "pizza" near
 * Lisbon, 5 km, at 1,000,000 restaurants read all 19,414 matches' restaurants; now only the 2,208
 * within the circle (its words and box: 66 -> 16 ms).
 */
export function rowsOfKeys(
  p: SearchPlan,
  keys: Prisma.Sql,
  rest: SearchPlan = p,
  joins: Prisma.Sql = Prisma.empty,
): Prisma.Sql {
  const t = table(p.catalogue);
  const near = rest.near ? within(rest, rest.near, `"s"`) : [];
  return Prisma.sql`FROM (${keys}) "w" JOIN ${searchRows(p.catalogue)} "s" ON "s"."rowid" = "w"."key"
    JOIN ${t} ON ${t}."id" = "s".${Prisma.raw(OWNER_KEY[p.catalogue])} ${joins} ${whereAll([...near, ...conditionsOf({ ...rest, near: undefined }, true)])}`;
}

// ---- Open at ----------------------------------------------------------------------------------

/**
 * Open at an instant: the restaurant's opening pattern is one of the open ones (opening-patterns.ts),
 * one bound value whatever their number (a JSON array for SQLite, an array for PostgreSQL), read
 * from the index on the pattern. `unindexed` (SQLite, a page walked in its order's index): kept off
 * that index ("+"), or SQLite read every restaurant of the open patterns and sorted them ("open
 * now" in Lisbon at 13:00 UTC at 1,000,000: 1.2 s against 4 ms walking). None open: no restaurant.
 */
export function patternIn(provider: Provider, ids: number[], unindexed = false): Prisma.Sql {
  if (ids.length === 0) return Prisma.raw("1 = 0");
  const column = Prisma.raw(`${unindexed ? "+" : ""}"Restaurant"."openingPattern"`);
  return provider === "sqlite"
    ? Prisma.sql`${column} IN (SELECT "value" FROM json_each(${JSON.stringify(ids)}))`
    : Prisma.sql`${column} = ANY(CAST(${`{${ids.join(",")}}`} AS INTEGER[]))`;
}

// ---- The conditions together -------------------------------------------------------------------

/**
 * PostgreSQL: "FROM" the catalogue's rows whose ids `leading` gives (its column "id", under
 * `alias`), each read by its id and tested on every condition but the words. LATERAL keeps
 * `leading` first whatever the planner guesses of the others: it estimates a near search's box at
 * 0.1% of the rows, so the box led and 22,658 restaurants were probed for 447 matches of "pizza"
 * near Lisbon (200,000 restaurants: 171 ms against ~10 ms led by the words).
 */
export function rowsLedBy(p: SearchPlan, leading: Prisma.Sql, alias: string): Prisma.Sql {
  const t = table(p.catalogue);
  const tests = whereAll([Prisma.sql`${t}."id" = ${Prisma.raw(alias)}."id"`, ...conditionsOf(p, true)]);
  return Prisma.sql`FROM ${leading} CROSS JOIN LATERAL (SELECT ${t}.* FROM ${t} ${tests} OFFSET 0) ${t}`;
}

/**
 * Every condition but the words as SQL over the catalogue's row. `perRow`: in the forms tested row
 * by row (a page read in its order's index, or rows already found by another index): list values
 * by a scalar subquery, the title by LIKE, and on SQLite the city and rating kept off their indexes
 * ("+"). Otherwise in the forms the planner may read from an index. `sortedBy`: the order whose
 * index the rows come from (its own column's test may use it).
 */
export function conditionsOf(p: SearchPlan, perRow: boolean, sortedBy?: string): Prisma.Sql[] {
  const unindexed = (column: string) => Prisma.raw(perRow && p.provider === "sqlite" && sortedBy !== column ? "+" : "");
  const t = table(p.catalogue);
  const conditions: Prisma.Sql[] = [];
  if (p.titleKey) conditions.push(...titleContains(p, perRow));
  for (const tag of p.tags) conditions.push(hasTag(p.catalogue, tag, perRow));
  if (p.cityKey) conditions.push(Prisma.sql`${unindexed("city")}${t}."citySearch" = ${p.cityKey}`);
  if (p.minRating != null)
    conditions.push(Prisma.sql`${unindexed("rating")}${t}."ratingAvg" >= ${number(p.minRating)}`);
  if (p.near) conditions.push(...within(p, p.near));
  if (p.openPatterns) conditions.push(patternIn(p.provider, p.openPatterns, perRow && p.provider === "sqlite"));
  conditions.push(...p.rowTests);
  return conditions;
}
