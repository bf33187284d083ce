// REST error answers: {"error": {"code", "message", "details"?}}; the status for the code comes
// from src/http/error-status.ts.
import type { ClientError } from "../graphql/client-errors.ts";

export function errorBody(error: ClientError) {
  return { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } };
}
