// graphql-js ends many messages with a suggestion built from the schema: `Did you mean "title"?`,
// `Did you mean the enum value "RATING"?`, `Did you mean to use an inline fragment on "X"?`. With
// introspection off (and in production) they would hand out by typos the names introspection
// hides, so every message a client gets has them cut out, whatever step raised it (validation,
// variable coercion, execution) and whichever transport (/graphql or the REST shim) answers.
import type { Config } from "../../config.ts";
import type { ClientError } from "../../contract/errors.ts";

const SUGGESTION = " Did you mean ";

export const suggestionsHidden = (config: Config) => config.env === "production" || !config.graphql.introspection;

/**
 * Cuts each " Did you mean ...?" (graphql-js appends it, with at most 5 names and no "?" in a name)
 * by plain searching: messages echo client input, and a pattern here would have to be proven linear.
 */
export function withoutSuggestions(error: ClientError): ClientError {
  const text = error.message;
  let from = text.indexOf(SUGGESTION);
  if (from < 0) return error;
  const kept: string[] = [];
  let at = 0;
  while (from >= 0) {
    const end = text.indexOf("?", from + SUGGESTION.length);
    if (end < 0) break;
    kept.push(text.slice(at, from));
    at = end + 1;
    from = text.indexOf(SUGGESTION, at);
  }
  kept.push(text.slice(at));
  return { ...error, message: kept.join("") };
}
