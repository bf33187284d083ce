// Serves the route table: one Fastify route per method + path (with and without /v1), picking
// the first row whose `when` accepts the request when several operations share a method + path.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { GraphQLSchema } from "graphql";
import type { Context } from "../graphql/context.ts";
import { tokenFromRequest } from "../http/token.ts";
import { errorBody } from "./errors.ts";
import { compileRoutes, runRoute, type CompiledRoute } from "./execute.ts";
import { restRequest } from "./request.ts";
import type { RestRoute } from "./route.ts";

export type RestPluginOptions = {
  schema: GraphQLSchema;
  routes: RestRoute[];
  createContext: (token: string | undefined) => Promise<Context>;
};

function groupByMethodAndPath(routes: CompiledRoute[]): Map<string, CompiledRoute[]> {
  const groups = new Map<string, CompiledRoute[]>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    groups.set(key, [...(groups.get(key) ?? []), route]);
  }
  return groups;
}

export async function restPlugin(app: FastifyInstance, options: RestPluginOptions) {
  const compiled = compileRoutes(options.schema, options.routes);

  for (const rows of groupByMethodAndPath(compiled).values()) {
    const { method, path } = rows[0];
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const req = restRequest(request);
      const row = rows.find((r) => !r.when || r.when(req)) ?? rows[rows.length - 1];
      const context = await options.createContext(tokenFromRequest(request));
      const outcome = await runRoute(options.schema, row, req, context);
      if (!outcome.ok) {
        if (outcome.internal) request.log.error({ err: outcome.internal, operation: row.operation }, "REST operation failed");
        return reply.code(outcome.status).send(errorBody(outcome.error));
      }
      reply.code(outcome.status);
      return outcome.body === undefined ? reply.send() : reply.send(outcome.body);
    };
    for (const prefix of ["", "/v1"]) app.route({ method, url: prefix + path, handler });
  }
}
