// One mapping from any error raised while executing an operation to what a client may see:
// a code, a message that helps, optional details. Unknown errors become INTERNAL_SERVER_ERROR
// with a fixed message (the original is logged, never sent: no stack traces, no SQL).
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { isErrorCode } from "../../contract/error-codes.ts";
import { DomainError, INTERNAL, type ClientError } from "../../contract/errors.ts";
import { databaseUnavailable } from "../../domain/prisma-errors.ts";
import { withoutSuggestions } from "./suggestions.ts";

/** Apollo Server's own code for a persisted query it does not take (its own APQ is off: src/graphql/persisted), shown as it is. */
const APOLLO_CODES = new Set(["PERSISTED_QUERY_NOT_SUPPORTED"]);
/** Apollo's names for a document that does not parse, validate or hold the operation: shown as BAD_USER_INPUT. */
const AS_BAD_INPUT = new Set(["GRAPHQL_PARSE_FAILED", "GRAPHQL_VALIDATION_FAILED", "OPERATION_RESOLUTION_FAILURE"]);

/** The code a client sees for an error carrying `code`: ours (src/contract/error-codes.ts) as they are, but never a claim of a fault of ours. */
function knownCode(code: unknown): string | undefined {
  if (typeof code !== "string" || code === "INTERNAL_SERVER_ERROR") return undefined;
  if (isErrorCode(code) || APOLLO_CODES.has(code)) return code;
  return AS_BAD_INPUT.has(code) ? "BAD_USER_INPUT" : undefined;
}

export function toClientError(error: unknown): ClientError | null {
  const original = error instanceof GraphQLError ? error.originalError : error;
  // A database failure is the server's condition (503/507). GraphQL's own errors are never one:
  // their messages may quote the client's text.
  const known =
    original instanceof DomainError
      ? original
      : original instanceof GraphQLError
        ? null
        : databaseUnavailable(original);
  if (known) return { code: known.code, message: known.message, ...(known.details ? { details: known.details } : {}) };
  if (!(error instanceof GraphQLError)) return null;
  // The outer error's message is the one to show: plugins (e.g. the suggestion mask) edit it in place.
  const code = knownCode(error.extensions?.code);
  if (code) return { code, message: error.message };
  if (error.extensions?.code !== undefined) return null;
  // graphql-js's own errors (unknown field, bad variable) carry no code and wrap nothing...
  if (!original) return { code: "BAD_USER_INPUT", message: error.message };
  // ...or wrap graphql-js's or a scalar's error about a bad variable: keep the outer, fuller message.
  if (original instanceof GraphQLError) {
    const inner = original.extensions?.code === undefined ? "BAD_USER_INPUT" : knownCode(original.extensions.code);
    if (inner) return { code: inner, message: error.message };
  }
  return null;
}

/**
 * Apollo's formatError: keeps path/locations, replaces everything else with the client-safe shape.
 * `hideSuggestions`: cut graphql-js's "Did you mean ..." out of every message (suggestions.ts).
 */
export function formatError(onInternal: (error: unknown) => void, { hideSuggestions = false } = {}) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const known = toClientError(error);
    const safe = known ? (hideSuggestions ? withoutSuggestions(known) : known) : (onInternal(error), INTERNAL);
    return {
      message: safe.message,
      ...(formatted.locations ? { locations: formatted.locations } : {}),
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions: { code: safe.code, ...(safe.details ? { details: safe.details } : {}) },
    };
  };
}
