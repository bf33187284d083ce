// graphql-js ends many messages with a suggestion built from the schema: `Did you mean "title"?`,
// `Did you mean the enum value "RATING"?`, `Did you mean to use an inline fragment on "X"?`. With
// introspection off (and in production) they would hand out by typos the names introspection
// hides, so every message a client gets has them cut out, whatever step raised it (validation,
// variable coercion, execution) and whichever face (/graphql or the REST shim) answers.
import type { Config } from "../config.ts";
import type { ClientError } from "./errors.ts";

// graphql-js appends " Did you mean ...?" with at most 5 names (no "?" in a name). The bound keeps
// the pattern linear on messages that echo client input.
const SUGGESTION = / Did you mean [^?]{0,1000}\?/g;

export const suggestionsHidden = (config: Config) => config.env === "production" || !config.graphql.introspection;

export function withoutSuggestions(error: ClientError): ClientError {
  const message = error.message.replace(SUGGESTION, "");
  return message === error.message ? error : { ...error, message };
}
