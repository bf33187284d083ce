// One mapping from any error raised while executing an operation to what a client may see:
// a code, a message that helps, optional details. Unknown errors become INTERNAL_SERVER_ERROR
// with a fixed message (the original is logged, never sent: no stack traces, no SQL).
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { DomainError, type ErrorCode } from "../domain/errors.ts";

export type ClientError = { code: ErrorCode | string; message: string; details?: Record<string, unknown> };

const PASS_THROUGH = new Set(["GRAPHQL_PARSE_FAILED", "GRAPHQL_VALIDATION_FAILED", "BAD_USER_INPUT", "BAD_REQUEST",
  "PERSISTED_QUERY_NOT_FOUND", "PERSISTED_QUERY_NOT_SUPPORTED", "OPERATION_RESOLUTION_FAILURE", "RATE_LIMITED",
  "PAYLOAD_TOO_LARGE", "UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"]);

export function toClientError(error: unknown): ClientError | null {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (original instanceof DomainError) {
    return { code: original.code, message: original.message, ...(original.details ? { details: original.details } : {}) };
  }
  if (original instanceof GraphQLError) {
    const code = original.extensions?.code;
    if (typeof code === "string" && PASS_THROUGH.has(code)) return { code, message: original.message };
    // Errors graphql-js raises itself (bad variables, unknown fields) carry no code and no original error.
    if (code === undefined && !original.originalError) return { code: "BAD_USER_INPUT", message: original.message };
  }
  return null;
}

export const INTERNAL: ClientError = { code: "INTERNAL_SERVER_ERROR", message: "Internal server error; it has been logged." };

/** Apollo's formatError: keeps path/locations, replaces everything else with the client-safe shape. */
export function formatError(onInternal: (error: unknown) => void) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const safe = toClientError(error) ?? (onInternal(error), INTERNAL);
    return {
      message: safe.message,
      ...(formatted.locations ? { locations: formatted.locations } : {}),
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions: { code: safe.code, ...(safe.details ? { details: safe.details } : {}) },
    };
  };
}
