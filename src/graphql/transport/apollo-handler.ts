// Apollo Server's handler for a request to /graphql, as @as-integrations/fastify's handler takes it,
// except that the operation may be given in place of the one the request carries
// (sent-operation.ts: the text a persisted id names). Whatever Apollo answers (status, headers,
// one body or a stream) goes out as it is.
import { Readable } from "node:stream";
import { HeaderMap, type ApolloServer, type HTTPGraphQLRequest } from "@apollo/server";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Context } from "../data/context.ts";
import type { ApolloRequestParts } from "./sent-operation.ts";

export type ApolloHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  parts?: ApolloRequestParts,
) => Promise<unknown>;

/** Registrations pending on a request Apollo runs: the hash its text goes under once admitted (automatic persisted queries). */
const registrations = new WeakMap<HTTPGraphQLRequest, string>();

/** For Apollo's plugins: the hash to register this request's text under once it is admitted, if any. */
export const registrationOf = (request: HTTPGraphQLRequest | undefined): string | undefined =>
  request && registrations.get(request);

function headersOf(request: FastifyRequest): HeaderMap {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  return headers;
}

export function apolloHandler(
  apollo: ApolloServer<Context>,
  context: (request: FastifyRequest) => Promise<Context>,
): ApolloHandler {
  return async (request, reply, parts = {}) => {
    const at = request.url.indexOf("?");
    const httpGraphQLRequest: HTTPGraphQLRequest = {
      method: request.method.toUpperCase(),
      headers: headersOf(request),
      search: parts.search ?? (at < 0 ? "" : request.url.slice(at)),
      body: "body" in parts ? parts.body : request.body,
    };
    if (parts.register !== undefined) registrations.set(httpGraphQLRequest, parts.register);
    const { status, headers, body } = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest,
      context: () => context(request),
    });
    for (const [name, value] of headers) reply.header(name, value);
    reply.code(status ?? 200);
    if (body.kind === "complete") return body.string;
    return reply.send(Readable.from(body.asyncIterator));
  };
}
