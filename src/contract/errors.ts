// The error vocabulary: what went wrong, never how a transport answers it. The domain (and storage)
// throw these; resolvers let them through; GraphQL puts `code` in errors[].extensions.code, REST
// in its error body, and the status each code gets over HTTP (/graphql and REST alike) is the
// table's, src/contract/error-codes.ts.
import type { ErrorCode } from "./error-codes.ts";

export type { ErrorCode };

/** What a client is told of an error, on any transport: a code, a message that helps, details (e.g. which field). */
export type ClientError = { code: ErrorCode | string; message: string; details?: Record<string, unknown> };

/** What a client is told of a fault of ours (the fault itself is logged, never sent: no stack traces, no SQL). */
export const INTERNAL: ClientError = {
  code: "INTERNAL_SERVER_ERROR",
  message: "Internal server error; it has been logged.",
};

/** The REST interface's (and the HTTP layer's) error body: {"error": {"code", "message", "details"?}}. */
export function errorBody(error: ClientError) {
  return { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } };
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

/**
 * The one answer, on every transport, to a caller who must be signed in and is not. It depends only on
 * whether a token came: one that is invalid, expired or revoked tells the client to sign in again,
 * in the words of `reason` when there is more to say (why an identity provider's token is refused).
 */
export const signInRequired = (tokenSent: boolean, reason?: string) =>
  new DomainError(
    "UNAUTHENTICATED",
    tokenSent
      ? (reason ?? "The access token is invalid, expired or revoked; sign in again for a new one.")
      : "An access token is required: send Authorization: Bearer <token> (get one from the login mutation or POST /auth/token).",
  );
/**
 * What a caller is told when its token could not be checked now: the identity provider's keys
 * cannot be had (that error's own words), or the database is away.
 */
export const tokenUncheckable = (error: unknown): string =>
  error instanceof DomainError && error.code === "SERVICE_UNAVAILABLE"
    ? error.message
    : "The access token could not be checked now; try again later.";

/** Why a token is refused: the check's own words (an identity provider's token), else the usual ones. */
export const tokenRefusal = (reason: string | undefined): string =>
  reason ?? "The access token is invalid, expired or revoked; sign in again.";

export const forbidden = (message: string) => new DomainError("FORBIDDEN", message);
export const notFound = (what: string, id: string) =>
  new DomainError("NOT_FOUND", `${what} ${JSON.stringify(id)} does not exist.`, { id });
export const badInput = (message: string, details?: Record<string, unknown>) =>
  new DomainError("BAD_USER_INPUT", message, details);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new DomainError("CONFLICT", message, details);

/**
 * "Not now, try again in n seconds": RATE_LIMITED for a caller over a limit, SERVER_BUSY when the
 * server has no room, STORAGE_UNAVAILABLE when the file storage fails. `details.retryAfterSeconds` (whole seconds, at least 1) becomes the answer's
 * Retry-After on REST and GraphQL alike (src/rest/plugin.ts, src/graphql/transport/headers/retry-later.ts).
 */
export class RetryLaterError extends DomainError {
  declare readonly details: { retryAfterSeconds: number };
  constructor(
    code: "RATE_LIMITED" | "SERVER_BUSY" | "STORAGE_UNAVAILABLE",
    message: string,
    retryAfterSeconds: number,
  ) {
    super(code, message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}
