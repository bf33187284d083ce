// What a search text means: the words both databases index (accents removed, lower case,
// letters and digits only), which of them may be misspelt and what they may have meant (stored
// words one typo away), and the words as the engine's query (wordsQuery). The domain reads a
// search text with searchWords.
import { Prisma } from "../prisma.ts";
import type { SqlReader } from "../raw-rows.ts";
import { boxOf } from "./conditions.ts";
import { coveringCells, WORD_CELL_LEVELS } from "./cells.ts";
import type { Catalogue, Near, SearchEngine } from "../search-plan.ts";
import { query } from "./sql.ts";

/** Words of a search text that count; more are ignored (each adds work to every search). */
export const MAX_SEARCH_WORDS = 8;
/** Words this long or longer tolerate one typo (shorter ones have too many neighbours). */
export const TYPO_MIN_LENGTH = 5;
/** Longer words are cut: no word anyone looks for is longer, and a client's huge "word" is never read whole. */
const MAX_WORD_LENGTH = 40;
/**
 * The last word is matched as a prefix from this length: a one-letter prefix is most of the
 * catalogue, which no prefix index holds, for results no one reads.
 */
export const PREFIX_MIN_LENGTH = 2;

/**
 * The words of `text` as the indexes hold them: "Crème brûlée!" -> ["creme", "brulee"]. The last
 * word is the one being typed: searches match it as a prefix as well (from PREFIX_MIN_LENGTH).
 */
export function searchWords(text: string): string[] {
  return folded(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => word.slice(0, MAX_WORD_LENGTH))
    .slice(0, MAX_SEARCH_WORDS);
}

/** Accents and case folded: "Crème" -> "creme" (compatibility-decomposed, combining marks removed, lower case). */
const folded = (text: string) => text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

/** Letters decomposition leaves whole, as TITLE order spells them. */
const SPELLED: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", đ: "d", ð: "d", ł: "l", þ: "th", ı: "i" };

/**
 * The key TITLE order compares (Restaurant."titleOrder", migration 20261128214426_title_order):
 * the trimmed title folded, a few letters spelled out, so "João's" sorts with "Joao's", between
 * "Joana" and "Jonas's". Both databases compare it by character code (SQLite's BINARY, PostgreSQL's
 * COLLATE "C"), then the id: one order on both, whatever a PostgreSQL server's locale. The service
 * writes it with the title; SQL cannot compute it (SQLite has no Unicode tables), so the migration
 * appliers key the rows that lack one (migrations.ts).
 */
export const titleOrderKey = (title: string) => folded(title.trim()).replace(/[ßæœøđðłþı]/g, (c) => SPELLED[c]!);

/** The first letters a stored word must share with a misspelt query word to be considered. */
export const typoPrefixes = (word: string): string[] => [...new Set([word.slice(0, 2), word[1] + word[0]])];

/**
 * Whether `a` becomes `b` with at most one edit: a letter inserted, removed, replaced, or two
 * neighbours swapped ("pizzaria" -> "pizzeria", "itlaian" -> "italian").
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // replaced
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2); // swapped
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1); // removed or inserted
}

// ---- The words as the engine's query --------------------------------------------------------------

/** Most stored words looked at per misspelt word, and most alternatives kept. */
const VOCABULARY_PROBE = 2000;
const MAX_ALTERNATIVES = 8;

/** The first text after every text starting with `prefix`. */
export const nextPrefix = (prefix: string) =>
  prefix.slice(0, -1) + String.fromCodePoint(prefix.codePointAt(prefix.length - 1)! + 1);

/** Stored words that start like `word` (its first two letters, or those two swapped). */
async function wordsLike(db: SqlReader, engine: SearchEngine, catalogue: Catalogue, word: string): Promise<string[]> {
  const ranges = typoPrefixes(word).map((p) => Prisma.sql`("term" >= ${p} AND "term" < ${nextPrefix(p)})`);
  const rows = await query<{ term: string }>(
    db,
    { term: "text" },
    Prisma.sql`SELECT "term" FROM ${engine.words.vocabulary(catalogue)} WHERE ${Prisma.join(ranges, " OR ")} LIMIT ${Prisma.raw(String(VOCABULARY_PROBE))}`,
  );
  return rows.map((r) => r.term);
}

/**
 * Whether a stored word is `word` (or, `asPrefix`, starts with it): one look at the vocabulary's
 * order, before any probe for typos, which reads many more words.
 */
async function isStored(
  db: SqlReader,
  engine: SearchEngine,
  catalogue: Catalogue,
  word: string,
  asPrefix: boolean,
): Promise<boolean> {
  const range = asPrefix
    ? Prisma.sql`"term" >= ${word} AND "term" < ${nextPrefix(word)}`
    : Prisma.sql`"term" = ${word}`;
  return (
    (
      await query<{ term: string }>(
        db,
        { term: "text" },
        Prisma.sql`SELECT "term" FROM ${engine.words.vocabulary(catalogue)} WHERE ${range} LIMIT 1`,
      )
    ).length > 0
  );
}

/**
 * Each word with what it may have meant: itself, and when it is long and no stored word is (or,
 * for the last word, starts with) it, the stored words one typo away.
 */
async function withTypos(
  db: SqlReader,
  engine: SearchEngine,
  catalogue: Catalogue,
  words: string[],
): Promise<string[][]> {
  return Promise.all(
    words.map(async (word, i) => {
      if (word.length < TYPO_MIN_LENGTH) return [word];
      if (await isStored(db, engine, catalogue, word, i === words.length - 1)) return [word];
      const stored = await wordsLike(db, engine, catalogue, word);
      return [word, ...stored.filter((s) => withinOneEdit(word, s)).slice(0, MAX_ALTERNATIVES)];
    }),
  );
}

/** The words as the engine's query: every word (alternatives OR'ed), the last one also as a prefix. */
export async function wordsQuery(
  db: SqlReader,
  engine: SearchEngine,
  catalogue: Catalogue,
  words: string[],
): Promise<string> {
  const alternatives = await withTypos(db, engine, catalogue, words);
  const lastWord = words.at(-1)!;
  const lastIsWhole =
    [...lastWord].length < PREFIX_MIN_LENGTH || (await engine.words.lastWordWhole(db, lastWord, alternatives.at(-1)!));
  // Words hold only letters and digits (searchWords), so they need no escaping in either syntax.
  const text = alternatives
    .map((options, i) => {
      const last = i === alternatives.length - 1;
      // The word as typed is the prefix; its typo alternatives are whole words.
      const terms = options.map((w, j) => engine.words.term(w, last && j === 0 && !lastIsWhole));
      return terms.length === 1 ? terms[0] : `(${terms.join(engine.words.any)})`;
    })
    .join(engine.words.all);
  return engine.words.finish(db, catalogue, text);
}

/**
 * The cells covering a near search's circle as the engine's query (SearchPlan.cells), and the words
 * within those cells when the engine indexes them so (SearchPlan.wordCells); neither when the
 * circle needs too many cells.
 */
export function cellsQueries(engine: SearchEngine, words: string, near: Near): { cells?: string; wordCells?: string } {
  const covering = coveringCells(boxOf(near));
  if (!covering) return {};
  const inCells = engine.words.wordsInCells && covering.level < WORD_CELL_LEVELS;
  return {
    cells: engine.words.cells(covering.cells),
    wordCells: inCells ? engine.words.wordsInCells!(words, covering.cells) : undefined,
  };
}
