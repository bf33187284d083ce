// GET and POST /graphql, first step: the operation the request carries (sent-operation.ts) and,
// when it names its document by id, the text that id names (the runner's step 2:
// src/graphql/persisted). Then either handler takes it: the direct answer (direct-answer.ts) or
// Apollo, handed the text in place of the id. An id that names nothing, a malformed id or a
// hash that is not its text's is answered here, with the errors shape, media type and status
// Apollo gives a refusal before execution; nothing ran, and no cache may keep the answer.
import Negotiator from "negotiator";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { GraphQLError } from "graphql";
import type { OperationRunner } from "../execution/operation.ts";
import { forApollo, sentOperation, type ApolloRequestParts, type SentOperation } from "./sent-operation.ts";

/** The operation as both handlers take it: as sent, its text (the id's, if it came by id), and what Apollo must read instead of the request (if anything). */
export type ReadOperation = { sent: SentOperation; text: unknown; apollo?: ApolloRequestParts };

export type OperationHandler = (
  request: FastifyRequest,
  reply: FastifyReply,
  operation: ReadOperation,
) => Promise<unknown>;

const APPLICATION_JSON = "application/json; charset=utf-8";
const GRAPHQL_RESPONSE_JSON = "application/graphql-response+json; charset=utf-8";

/** The media type of a refusal, as Apollo picks a single result's (application/json when the client takes neither). */
function mediaTypeOf(accept: string | undefined): string {
  if (!accept) return APPLICATION_JSON;
  return (
    new Negotiator({ headers: { accept } }).mediaType([APPLICATION_JSON, GRAPHQL_RESPONSE_JSON]) ?? APPLICATION_JSON
  );
}

export type PersistedRequestOptions = {
  runner: OperationRunner;
  /** The next handler (the direct answer, which hands to Apollo what it does not answer). */
  next: OperationHandler;
  /** Counts each refusal answered here by its code (metrics). */
  observeRefusal(code: string): void;
};

/** What the handlers get for a request this step does not read (a batch, parameters Apollo refuses): Apollo reads it. */
const UNREAD: ReadOperation = { sent: {}, text: undefined };

export function persistedRequest({ runner, next, observeRefusal }: PersistedRequestOptions) {
  function refuse(request: FastifyRequest, reply: FastifyReply, error: GraphQLError) {
    const formatted = runner.formatError(() => {})(error.toJSON(), error);
    const code = String(formatted.extensions?.code);
    observeRefusal(code);
    const status = (error.extensions.http as { status?: number } | undefined)?.status ?? 400;
    reply.code(status).header("content-type", mediaTypeOf(request.headers.accept)).header("cache-control", "no-store");
    return JSON.stringify({ errors: [formatted] }) + "\n";
  }

  return async function read(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const sent = sentOperation(request);
    if (!sent) return next(request, reply, UNREAD);
    const looked = runner.textOf(sent);
    const found = looked instanceof Promise ? await looked : looked;
    if ("refused" in found) return refuse(request, reply, found.refused);
    if (!found.named) return next(request, reply, { sent, text: found.text });
    const apolloReads = forApollo(request, sent, found.text, found.register);
    return next(request, reply, { sent, text: found.text, apollo: apolloReads });
  };
}
