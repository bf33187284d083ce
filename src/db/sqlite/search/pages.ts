// SQLite's pages of a search: the rows come from the keys an index finds (keys.ts), joined to their
// rows and tested there on the other conditions.
import { Prisma } from "../../prisma.ts";
import { filteredRows } from "../../search/conditions.ts";
import {
  wordsAlone,
  type Near,
  type PageShape,
  type SearchEngine,
  type SearchPlan,
  type Window,
} from "../../search-plan.ts";
import {
  COUNT_ONLY,
  countOf,
  joined,
  matchesEndWithin,
  pageOfKeys,
  pageSql,
  query,
  restWindow,
} from "../../search/sql.ts";
import {
  integerKey,
  placeKeys,
  rankedKeysOnSearchRows,
  rowsOfKeys,
  withoutSearchRowConditions,
  wordKeys,
  wordsTable,
} from "./keys.ts";

/**
 * A page by relevance: the matches FTS5 ranks (at most the rank window: the first keys it holds),
 * best first, then the other matches in key order. The ranked ones are tested on the other
 * conditions before the page is cut, so every page is exact in that order; words alone, or with
 * conditions the search rows hold, cut it from the keys (pageOfKeys) and read only its rows.
 */
export const relevancePage: SearchEngine["relevancePage"] = async (db, p, shape, window, exactMatches) => {
  const rankWindow = p.limits.rankWindow;
  const alone = wordsAlone(p);
  const fts = wordsTable(p.catalogue);
  // The key of the last match ranked (FTS5 reads keys in order): the ranking stops there.
  const ceiling = (
    await query<{ key: number }>(
      db,
      { key: "int" },
      Prisma.sql`SELECT "rowid" AS "key" FROM ${fts} WHERE ${fts} MATCH ${p.words} ORDER BY "rowid" LIMIT 1 OFFSET ${rankWindow - 1}`,
    )
  )[0]?.key;
  const upTo = ceiling === undefined ? Prisma.empty : Prisma.sql`AND "rowid" <= ${integerKey(ceiling)}`;
  const rankedKeys = wordKeys(p, { ranked: true, range: upTo });
  // Every ranked key a match (words alone), or tested on its search row alone: the page is cut from them.
  const tested = alone ? rankedKeys : rankedKeysOnSearchRows(p, rankedKeys);
  const [keys, rowsWindow] = tested ? pageOfKeys(tested, Prisma.raw(`"rank", "key"`), window) : [rankedKeys, window];
  const rest = tested ? withoutSearchRowConditions(p) : p;
  const ranked = await db.readSearch(
    pageSql(shape, rowsOfKeys(p, keys, rest, shape.joins), Prisma.sql`"w"."rank", "w"."key"`, rowsWindow),
  );
  if (ceiling === undefined || ranked.rows.length > window.take) return ranked;
  // The ranked matches: a short page that reached its offset holds the last of them, so they are
  // counted only when it came back empty past an offset.
  const before = alone
    ? rankWindow
    : ranked.rows.length > 0 || window.skip === 0
      ? window.skip + ranked.rows.length
      : await countOf(db, Prisma.sql`SELECT 1 ${rowsOfKeys(p, wordKeys(p, { range: upTo }), p, COUNT_ONLY.joins)}`);
  if (await matchesEndWithin(exactMatches, before)) return ranked;
  const after = Prisma.sql`AND "rowid" > ${integerKey(ceiling)}`;
  return joined(
    ranked,
    await db.readSearch(
      pageSql(
        shape,
        rowsOfKeys(p, wordKeys(p, { range: after }), p, shape.joins),
        Prisma.sql`"w"."key"`,
        restWindow(window, before),
      ),
    ),
  );
};

/** The rows matching the words and every other condition, from the words' keys. */
export const wordRows = (p: SearchPlan, shape: PageShape) => rowsOfKeys(p, wordKeys(p), p, shape.joins);

/** The rows within `circle`, from the R*Tree's keys, tested on every other condition. */
export const nearRows = (p: SearchPlan, circle: Near, shape: PageShape) =>
  rowsOfKeys(p, placeKeys(circle), { ...p, near: undefined }, shape.joins);

/** A page not walked in its order's index, sorted: a near search's rows from the R*Tree. */
export const unwalkedPage = (p: SearchPlan, shape: PageShape, order: Prisma.Sql, window: Window, total?: Prisma.Sql) =>
  pageSql(shape, p.near ? nearRows(p, p.near, shape) : filteredRows(p, shape.joins), order, window, total);
