// The bound on a part of a title to find (filter.text, filter.title): the title indexes (SQLite's
// trigram FTS5 table, PostgreSQL's pg_trgm) find a part of 3 characters or more; a shorter one is
// tested on every title, the one search whose work grows with the catalogue rather than its page.
// The legacy REST shim's q and title keep their meaning at every length (the legacy contract):
// theirs stay bounded by each client's fair share of the readers and, on PostgreSQL only, the
// searches' statement timeout (docs/limits.md).
import { DomainError } from "../../contract/errors.ts";

/** The fewest characters of a part of a title to find, outside the legacy REST shim. */
export const MIN_TITLE_PART = 3;

/** Refuses a part of a title shorter than the bound (an empty one means no filter), unless `anyLength`. */
export function checkTitlePart(field: string, value: string | null | undefined, anyLength: boolean): void {
  if (!value || anyLength || [...value].length >= MIN_TITLE_PART) return;
  throw new DomainError(
    "SEARCH_TEXT_TOO_SHORT",
    `${field} must have at least ${MIN_TITLE_PART} characters: no index finds a shorter part of a title (a search of words, filter.search, takes any length)`,
    { field, minimum: MIN_TITLE_PART },
  );
}
