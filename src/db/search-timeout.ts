// What a client gets for a search the server stopped for running past SEARCH_STATEMENT_TIMEOUT
// (PostgreSQL cancels the statement; SQLite stops the reader thread running it): SERVER_BUSY,
// 503 with Retry-After, never a 500. The server would not spend more on it now.
import { RetryLaterError } from "../contract/errors.ts";

export const searchTookTooLong = () =>
  new RetryLaterError(
    "SERVER_BUSY",
    "The search took longer than the server allows for one (SEARCH_STATEMENT_TIMEOUT): narrow it (longer words, a smaller radius, fewer facets) or try again shortly.",
    1,
  );
