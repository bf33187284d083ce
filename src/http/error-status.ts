// The HTTP status of each error code a client may see, on /graphql and the REST interface alike:
// the one place where a code meets HTTP. The domain names what went wrong (src/domain/errors.ts)
// and knows nothing of statuses; the REST shim, the GraphQL plugins (availability.ts,
// retry-later.ts) and the error handler all ask here.
const STATUS_BY_CODE: Record<string, number> = {
  BAD_USER_INPUT: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  GRAPHQL_PARSE_FAILED: 400,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UPLOAD_QUOTA_EXCEEDED: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  SERVER_BUSY: 503,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  STORAGE_FULL: 507,
};

export const statusForCode = (code: string) => STATUS_BY_CODE[code] ?? 500;
