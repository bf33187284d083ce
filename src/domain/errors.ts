// The error vocabulary of the domain. Resolvers let these through; GraphQL puts `code` in
// errors[].extensions.code and the REST shim turns it into an HTTP status.
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
 * "Not now, try again in n seconds": RATE_LIMITED (429) for a caller over a limit, SERVER_BUSY (503)
 * when the server has no room. `details.retryAfterSeconds` becomes the REST answer's Retry-After;
 * `extensions.http` is how Apollo Server sets the GraphQL answer's status and header from a resolver.
 */
export class RetryLaterError extends DomainError {
  readonly extensions: { http: { status: number; headers: Map<string, string> } };
  constructor(code: "RATE_LIMITED" | "SERVER_BUSY", message: string, retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(code, message, { retryAfterSeconds: seconds });
    this.extensions = {
      http: { status: code === "RATE_LIMITED" ? 429 : 503, headers: new Map([["retry-after", String(seconds)]]) },
    };
  }
}
