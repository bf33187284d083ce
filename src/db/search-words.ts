// What a search text means: the words both databases index (accents removed, lower case,
// letters and digits only), which of them may be misspelt, and whether a stored word is one typo
// away from a query word. The SQL that looks the words up is in searches.ts; the domain reads
// a search text with searchWords.

/** Words of a search text that count; more are ignored (each adds work to every search). */
export const MAX_SEARCH_WORDS = 8;
/** Words this long or longer tolerate one typo (shorter ones have too many neighbours). */
export const TYPO_MIN_LENGTH = 5;
const MAX_WORD_LENGTH = 40;
/**
 * The last word is matched as a prefix from this length: a one-letter prefix is most of the
 * catalogue (every word starting with that letter, which SQLite's prefix index of 2 and 3 letters
 * does not hold): "a" typed last cost 179 ms in each of a search's statements at 1,000,000
 * restaurants, for results no one reads.
 */
export const PREFIX_MIN_LENGTH = 2;

/**
 * The words of `text` as the indexes hold them: "Crème brûlée!" -> ["creme", "brulee"]. The last
 * word is the one being typed: searches match it as a prefix as well (from PREFIX_MIN_LENGTH).
 */
export function searchWords(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => word.slice(0, MAX_WORD_LENGTH))
    .slice(0, MAX_SEARCH_WORDS);
}

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
