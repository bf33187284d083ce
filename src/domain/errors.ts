// The error vocabulary of the domain. Resolvers let these through; GraphQL puts `code` in
// errors[].extensions.code and the REST shim turns it into an HTTP status.
export type ErrorCode =
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "BAD_USER_INPUT"
  | "CONFLICT"
  | "RATE_LIMITED"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "STORAGE_FULL"
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

export const unauthenticated = (message = "A valid access token is required (Authorization: Bearer, or access_token).") =>
  new DomainError("UNAUTHENTICATED", message);
export const forbidden = (message: string) => new DomainError("FORBIDDEN", message);
export const notFound = (what: string, id: string) => new DomainError("NOT_FOUND", `${what} ${JSON.stringify(id)} does not exist.`, { id });
export const badInput = (message: string, details?: Record<string, unknown>) => new DomainError("BAD_USER_INPUT", message, details);
export const conflict = (message: string, details?: Record<string, unknown>) => new DomainError("CONFLICT", message, details);
