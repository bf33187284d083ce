// Serves the REST interface's OpenAPI 3.1 document, generated from the route table at start-up,
// at /openapi.json (and under each REST_PREFIXES prefix, /v1/openapi.json by default). Public: it
// describes the interface, not any data.
import type { FastifyInstance } from "fastify";
import { openApiDocument, type OpenApiOptions } from "../rest/openapi.ts";
import { servedPrefixes } from "../rest/plugin.ts";
import type { RestRoute } from "../rest/route.ts";

export async function openApiPlugin(app: FastifyInstance, { routes, ...options }: { routes: RestRoute[] } & OpenApiOptions) {
  const document = JSON.stringify(openApiDocument(routes, options));
  for (const prefix of servedPrefixes(options.prefixes)) {
    app.get(`${prefix}/openapi.json`, async (_request, reply) => reply.type("application/json; charset=utf-8").send(document));
  }
}
