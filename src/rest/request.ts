// Builds the RestRequest a row reads from a Fastify request: path params, query and body fields.
import type { FastifyRequest } from "fastify";
import type { RestRequest } from "./route.ts";

const asRecord = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export function restRequest(request: FastifyRequest, body: Record<string, unknown> = asRecord(request.body)): RestRequest {
  const query = asRecord(request.query);
  const has = (name: string) => Object.hasOwn(query, name) || Object.hasOwn(body, name);
  return {
    params: asRecord(request.params) as Record<string, string>,
    query,
    body,
    has,
    field: (name) => (Object.hasOwn(body, name) ? body[name] : query[name]),
  };
}
