// Every error code a client may see (GraphQL: errors[].extensions.code; REST and the HTTP layer:
// error.code), and all that the transports need to know of each: the HTTP status it answers with on
// /graphql and REST alike, and what it means, in the words the OpenAPI document and the README
// use. The codes are part of the public API: they keep their names, HTTP-born ones included.
//
// src/contract/ is the vocabulary every layer shares and imports nothing of the project: the
// domain names a code, GraphQL decides what passes to a client, REST and HTTP take the status,
// metrics label with the code, the OpenAPI document describes the statuses.

type CodeFacts = { status: number; meaning: string };

export const ERROR_CODES = {
  BAD_USER_INPUT: { status: 400, meaning: "Bad input: the message names the field to fix." },
  BAD_REQUEST: {
    status: 400,
    meaning: "A malformed request: a body that is not JSON, no operation, a path that does not decode.",
  },
  DOCUMENT_NOT_TRUSTED: {
    status: 400,
    meaning:
      "TRUSTED_DOCUMENTS=enforce: only the documents of the service's manifest run, by id or by their exact text.",
  },
  PERSISTED_QUERY_NOT_FOUND: {
    status: 400,
    meaning:
      "No document has the id sent. For an automatic persisted query the answer is 200 with the message PersistedQueryNotFound (Apollo's): send the text with its hash once.",
  },
  UNAUTHENTICATED: { status: 401, meaning: "No access token, or an invalid, expired or revoked one." },
  FORBIDDEN: { status: 403, meaning: "The caller may not do this, e.g. change someone else's resource." },
  NOT_FOUND: { status: 404, meaning: "No such resource, or no route for the path." },
  METHOD_NOT_ALLOWED: { status: 405, meaning: "The path does not take this method (see Allow)." },
  REQUEST_TIMEOUT: {
    status: 408,
    meaning: "The request did not arrive within REQUEST_TIMEOUT, or its body came too slowly.",
  },
  SEARCH_TEXT_TOO_SHORT: {
    status: 400,
    meaning:
      "A part of a title to find (filter.text, filter.title) has fewer than 3 characters: no index finds a shorter one. The legacy REST q and title take any length.",
  },
  CONFLICT: { status: 409, meaning: "Conflicts with existing data, e.g. a taken username." },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: "The body or the file is too large." },
  UPLOAD_QUOTA_EXCEEDED: { status: 413, meaning: "The file would take its owner past their upload quota." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: "Send JSON, a urlencoded form or multipart/form-data." },
  RATE_LIMITED: { status: 429, meaning: "Too many requests (or subscriptions); see Retry-After." },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { status: 431, meaning: "The URL and headers are too large." },
  INTERNAL_SERVER_ERROR: { status: 500, meaning: "A fault of the server; it has been logged." },
  SERVER_BUSY: { status: 503, meaning: "The server has no room for this now; see Retry-After." },
  SERVICE_UNAVAILABLE: { status: 503, meaning: "The database cannot be reached now, or the server is shutting down." },
  STORAGE_UNAVAILABLE: {
    status: 503,
    meaning:
      "The file storage (the upload folder or bucket) cannot be reached now: nothing was saved; see Retry-After.",
  },
  STORAGE_FULL: { status: 507, meaning: "The server is short of disk space: nothing was saved." },
} as const satisfies Record<string, CodeFacts>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (code: unknown): code is ErrorCode =>
  typeof code === "string" && Object.hasOwn(ERROR_CODES, code);

/** The HTTP status of a code (500 for anything that is not one of ours). */
export const statusForCode = (code: string): number => (isErrorCode(code) ? ERROR_CODES[code].status : 500);

/**
 * The code a bare HTTP status is shown with, when Fastify or Node raised it without one of ours
 * (a body that is not JSON: 400, an unknown route: 404): the first code of the table with that status.
 */
export function codeForStatus(status: number): ErrorCode {
  const found = (Object.keys(ERROR_CODES) as ErrorCode[]).find(
    (code) => ERROR_CODES[code].status === status && code !== "BAD_USER_INPUT",
  );
  return found ?? (status >= 500 ? "INTERNAL_SERVER_ERROR" : "BAD_REQUEST");
}

/** The codes of one status, for a document that lists what a status may carry (OpenAPI). */
export const codesWithStatus = (status: number): ErrorCode[] =>
  (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => ERROR_CODES[code].status === status);
