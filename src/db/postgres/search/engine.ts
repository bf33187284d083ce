// PostgreSQL's search engine: full-text search (tsvector documents ranked by ts_rank, words typed
// without accents by unaccent), pg_trgm for title substrings, a GiST index of points for near.
import { Prisma } from "../../prisma.ts";
import type { SqlReader } from "../../raw-rows.ts";
import { titleLike } from "../../search/conditions.ts";
import type { SearchEngine } from "../../search-plan.ts";
import { number, query } from "../../search/sql.ts";
import { nextPrefix } from "../../search/words.ts";
import { countsWhileRanking, nearRows, relevancePage, unwalkedPage, wordRows } from "./pages.ts";
import { countShortcut, countsInPagePass, facetTags, matches, matchingRows, sample } from "./totals.ts";

/**
 * Whether no stored word but `word` itself starts with it, so that `word:*` matches what `word`
 * matches (the vocabulary holds every word of 4 letters or more): a prefix costs the word index a
 * partial match, in every statement of the search.
 */
async function endsNoOtherWord(db: SqlReader, word: string): Promise<boolean> {
  const rows = await query<{ term: string }>(
    db,
    { term: "text" },
    Prisma.sql`SELECT "term" FROM "SearchTerm" WHERE "term" >= ${word} AND "term" < ${nextPrefix(word)} LIMIT 2`,
  );
  return rows.every((r) => r.term === word);
}

export const postgresSearch: SearchEngine = {
  words: {
    vocabulary: () => Prisma.raw(`"SearchTerm"`),
    term: (word, asPrefix) => `${word}${asPrefix ? ":*" : ""}`,
    any: " | ",
    all: " & ",
    // Typo alternatives are looked for only when no stored word starts with the word (words.ts
    // withTypos): its prefix then matches what the word matches, and in the planner's estimate a
    // partial match of the word index cost so much that a count of a typo read the documents in
    // order (6,606 pages for 1,001 matches at 1M) instead of the ~1,000 its matches are on.
    lastWordWhole: async (db, word, alternatives) => alternatives.length > 1 || (await endsNoOtherWord(db, word)),
    // The tsquery's own text, accents removed once here: in a statement, unaccent (a STABLE
    // function) ran again for every row a filter or a recheck tested. No lexeme left (words the
    // parser drops): the text as it is, which no document holds either.
    finish: async (db, _catalogue, text) => {
      const [row] = await query<{ q: string }>(
        db,
        { q: "text" },
        Prisma.sql`SELECT CAST(to_tsquery('simple', unaccent(${text})) AS TEXT) AS "q"`,
      );
      return row?.q || text;
    },
    cells: (cells) => cells.map((c) => `'${c}'`).join(" | "),
    // Each quoted lexeme of the words' tsquery (letters and digits: no quote inside) prefixed with
    // the cell, as restaurant_word_cells writes them; a prefix ('pizz':*) stays a prefix within the cell.
    wordsInCells: (words, cells) =>
      cells.map((cell) => `(${words.replace(/'([^']*)'/g, (_, lexeme: string) => `'${cell}_${lexeme}'`)})`).join(" | "),
  },
  openPatterns: async (db, at) =>
    (
      await query<{ id: number }>(
        db,
        { id: "int" },
        Prisma.sql`SELECT o."id" FROM "OpeningPattern" o
          CROSS JOIN LATERAL (SELECT to_char(CAST(${at.toISOString()} AS TIMESTAMPTZ) AT TIME ZONE o."timeZone", 'HH24:MI') AS "time") l
          WHERE EXISTS (SELECT 1 FROM unnest(string_to_array(o."periods", ',')) AS p("period")
            CROSS JOIN LATERAL (SELECT split_part(p."period", '-', 1) AS "open", split_part(p."period", '-', 2) AS "close") x
            WHERE x."open" = x."close"
              OR (x."open" < x."close" AND x."open" <= l."time" AND l."time" < x."close")
              OR (x."close" < x."open" AND (l."time" >= x."open" OR l."time" < x."close")))
          ORDER BY o."id"`,
      )
    ).map((row) => row.id),
  conditions: {
    // The planner weighs which index leads by itself.
    offIndex: "",
    // LIKE, which PostgreSQL reads from its pg_trgm index by itself.
    titleContains: (p) => [titleLike(p, p.titleKey!)],
    inBox: (lat, lng, { south, north }, [w, e]) =>
      Prisma.sql`point(${lng}, ${lat}) <@ box(point(${number(w)}, ${number(south)}), point(${number(e)}, ${number(north)}))`,
    inIds: (column, ids) => Prisma.sql`${column} = ANY(CAST(${`{${ids.join(",")}}`} AS INTEGER[]))`,
  },
  // pg_trgm's statistics let the planner judge a substring itself.
  countsTitleMatches: false,
  titleKeys: () => undefined,
  relevancePage,
  countsWhileRanking,
  wordRows,
  nearRows,
  unwalkedPage,
  // A shallow page of the whole catalogue has the same plan whatever its values: on Prisma's pool it
  // is planned once per connection, where the searches' sessions plan every statement for its values.
  readsShallowPagesDirectly: true,
  countsInPagePass,
  matchingRows,
  matches,
  countShortcut,
  sample,
  facetTags,
};
