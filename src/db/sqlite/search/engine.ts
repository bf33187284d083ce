// SQLite's search engine: FTS5 for words (bm25) and title substrings (trigrams), an R*Tree for
// places, all read by key (keys.ts); the planner told which index not to lead with ("+").
import { Prisma } from "../../prisma.ts";
import type { SearchEngine } from "../../search-plan.ts";
import { query } from "../../search/sql.ts";
import { inRanges } from "../../search/conditions.ts";
import { titleContains, trigramKeys, trigramUsable } from "./keys.ts";
import { nearRows, relevancePage, unwalkedPage, wordRows } from "./pages.ts";
import { countShortcut, facetTags, matches, matchingRows, sample } from "./totals.ts";

/** The columns of a restaurant's FTS5 document the users' words are matched against: never "place", its map cells. */
const WORD_COLUMNS = "{title tags body}";

export const sqliteSearch: SearchEngine = {
  words: {
    vocabulary: (catalogue) => Prisma.raw(`"${catalogue}SearchTerms"`),
    term: (word, asPrefix) => `"${word}"${asPrefix ? " *" : ""}`,
    any: " OR ",
    all: " AND ",
    lastWordWhole: async () => false,
    // A word or prefix typed ("g1y10") must never match the cells a restaurant's document holds.
    finish: async (_db, catalogue, text) => (catalogue === "Restaurant" ? `${WORD_COLUMNS} : (${text})` : text),
    cells: (cells) => cells.map((c) => `"${c}"`).join(" OR "),
  },
  // open_pattern is registered on every connection that searches (local-time.mjs).
  openPatterns: async (db, at) =>
    (
      await query<{ id: number }>(
        db,
        { id: "int" },
        Prisma.sql`SELECT "id" FROM "OpeningPattern" WHERE open_pattern("timeZone", ${at.getTime()}, "periods") ORDER BY "id"`,
      )
    ).map((row) => row.id),
  conditions: {
    // Without "+", SQLite read every row of a city, a rating or the open patterns and sorted them,
    // where the page walked in its order's index finds its rows among the first it reads.
    offIndex: "+",
    titleContains,
    // The R*Tree serves near searches by key; on a row, the box is two ranges.
    inBox: inRanges,
    inIds: (column, ids) => Prisma.sql`${column} IN (SELECT "value" FROM json_each(${JSON.stringify(ids)}))`,
  },
  countsTitleMatches: true,
  titleKeys: (p) => (trigramUsable(p) ? trigramKeys(p) : undefined),
  relevancePage,
  countsWhileRanking: () => false,
  wordRows,
  nearRows,
  unwalkedPage,
  // Every search statement reads in a reader thread, off the event loop.
  readsShallowPagesDirectly: false,
  countsInPagePass: () => false,
  matchingRows,
  matches: (p) => matches(p),
  countShortcut,
  sample,
  facetTags,
};
