// Where a request's access token may be: Authorization: Bearer, then the access_token query
// parameter, then an access_token body (or multipart) field. First found wins.
import type { FastifyRequest } from "fastify";

function firstString(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  return undefined;
}

export function tokenFromRequest(request: FastifyRequest, body?: unknown): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match) return match[1];
  }
  const fromQuery = firstString((request.query as Record<string, unknown> | undefined)?.access_token);
  if (fromQuery) return fromQuery;
  const source = body ?? request.body;
  if (source && typeof source === "object") return firstString((source as Record<string, unknown>).access_token);
  return undefined;
}
