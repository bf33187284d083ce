// The error vocabulary of the domain: what went wrong, never how a face answers it. Resolvers let
// these through; GraphQL puts `code` in errors[].extensions.code, and the status each code gets over
// HTTP (/graphql and REST alike) is decided in one place, src/http/error-status.ts. The codes are
// part of the public API (clients see them), so they keep their names, HTTP-born ones included.
export type ErrorCode =
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "BAD_USER_INPUT"
  | "CONFLICT"
  | "RATE_LIMITED"
  | "SERVER_BUSY"
  | "PAYLOAD_TOO_LARGE"
  | "UPLOAD_QUOTA_EXCEEDED"
  | "STORAGE_FULL"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "SERVICE_UNAVAILABLE"
  | "INTERNAL_SERVER_ERROR";

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
 * The one answer, on every face, to a caller who must be signed in and is not. It depends only on
 * whether a token came: one that is invalid, expired or revoked tells the client to sign in again.
 */
export const signInRequired = (tokenSent: boolean) =>
  new DomainError(
    "UNAUTHENTICATED",
    tokenSent
      ? "The access token is invalid, expired or revoked; sign in again for a new one."
      : "An access token is required: send Authorization: Bearer <token> (get one from the login mutation or POST /auth/token).",
  );
export const forbidden = (message: string) => new DomainError("FORBIDDEN", message);
export const notFound = (what: string, id: string) => new DomainError("NOT_FOUND", `${what} ${JSON.stringify(id)} does not exist.`, { id });
export const badInput = (message: string, details?: Record<string, unknown>) => new DomainError("BAD_USER_INPUT", message, details);
export const conflict = (message: string, details?: Record<string, unknown>) => new DomainError("CONFLICT", message, details);

/**
 * "Not now, try again in n seconds": RATE_LIMITED for a caller over a limit, SERVER_BUSY when the
 * server has no room. `details.retryAfterSeconds` (whole seconds, at least 1) becomes the answer's
 * Retry-After on both faces (src/rest/plugin.ts, src/graphql/retry-later.ts).
 */
export class RetryLaterError extends DomainError {
  declare readonly details: { retryAfterSeconds: number };
  constructor(code: "RATE_LIMITED" | "SERVER_BUSY", message: string, retryAfterSeconds: number) {
    super(code, message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}
