// Serves the REST interface's OpenAPI 3.1 document, generated from the route table at start-up,
// at /openapi.json (and under each REST_PREFIXES prefix, /v1/openapi.json by default). Public: it
// describes the interface, not any data.
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { parse, type GraphQLSchema } from "graphql";
import { OPENAPI_PATH } from "../../contract/paths.ts";
import { documentAccess } from "../../graphql/policy/auth.ts";
import { editVariables } from "../requests/empty-edit.ts";
import { openApiDocument } from "./openapi-document.ts";
import { servedPrefixes } from "../plugin.ts";
import type { RestRoute } from "../route-row.ts";

export type OpenApiRouteOptions = {
  /** The schema the routes' documents run against: their directives say who may call them. */
  schema: GraphQLSchema;
  /** The REST route table the document describes. */
  routes: RestRoute[];
  /** REST_PREFIXES: the other roots every path answers under. Default none. */
  prefixes?: string[];
  /** ANONYMOUS_READS: reads marked anonymousReads need no token. Default false. */
  anonymousReads?: boolean;
};

async function openApiRoute(
  app: FastifyInstance,
  { schema, routes, prefixes = [], anonymousReads = false }: OpenApiRouteOptions,
) {
  // The document says which routes answer without a token under this configuration, from the
  // same declarations (@public, @requireAuth(anonymousReads)) that guard the fields they run.
  const tokenNeeded = (row: RestRoute) => {
    const access = documentAccess(schema, parse(row.document));
    return access === "public" ? "no" : access === "anonymousReads" && anonymousReads ? "optional" : "yes";
  };
  const needsAField = (row: RestRoute) => editVariables(schema, parse(row.document)).length > 0;
  const document = JSON.stringify(openApiDocument(routes, { prefixes, tokenNeeded, needsAField }));
  for (const prefix of servedPrefixes(prefixes)) {
    app.get(prefix + OPENAPI_PATH, async (_request, reply) =>
      reply.type("application/json; charset=utf-8").send(document),
    );
  }
}

// Encapsulated: it only adds routes.
export const openApiRoutePlugin = fp(openApiRoute, { name: "openapi-route", fastify: "5.x", encapsulate: true });
