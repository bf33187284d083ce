// GET and POST /graphql for a document the server has already validated (known-documents.ts), answered
// without Apollo's request pipeline. Per request that pipeline hashes the text (SHA-256), copies
// every header into its own map, builds a URL, negotiates media types twice and awaits each
// plugin's hooks: a tenth of the server's CPU on a by-id read. The operation itself takes the
// same steps as on Apollo's handler, from the same runner (operation.ts): charged on arrival by the
// rate-limit hook, then trust (TRUSTED_DOCUMENTS), step 4 (cost, extra @expensive charges) and
// step 5 (execute, ceiling). A document named by id (persisted-request.ts) comes with its text.
//
// Only a clean success is answered here. Whatever else happens (the cost limit, a rate limit, a
// resolver's error, the ceiling) hands the request to Apollo together with what already ran
// (`ranDirectly`): Apollo's handler then skips those steps, reuses the outcome and sends the answer
// it always sends (status, headers, errors formatted by its plugins), so nothing runs or is
// charged twice and error answers stay Apollo's alone. Requests not recognised here
// (uploads, a document not validated yet, extensions, a text to register, a GET that is not a
// preflighted query, an unusual Accept or Content-Type) go to Apollo untouched.
import { getOperationAST, type DocumentNode, type ExecutionResult, type OperationDefinitionNode } from "graphql";
import Negotiator from "negotiator";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Context } from "../data/context.ts";
import type { OperationRunner } from "../execution/operation.ts";
import type { KnownDocuments } from "./known-documents.ts";
import { recordOperation } from "./operation-name.ts";
import type { ApolloHandler } from "./apollo-handler.ts";
import { PREFLIGHTED_HEADERS } from "./headers/csrf-headers.ts";
import type { ReadOperation } from "./persisted-request.ts";

/** What ran before the request was handed to Apollo: the step that threw, or the result with errors. */
export type RanDirectly = { checkError: unknown } | { executeError: unknown } | { result: ExecutionResult };

const RAN = Symbol("ran directly");
const HANDED = Symbol("context handed to Apollo");

type WithRan = Context & { [RAN]?: RanDirectly };
type WithContext = FastifyRequest & { [HANDED]?: Context };

/** For Apollo's handler: what the direct answer already did for this context, if anything. */
export const ranDirectly = (context: Context): RanDirectly | undefined => (context as WithRan)[RAN];

/** For the context function: the context the direct answer built before handing the request over (built once). */
export const contextHandedOver = (request: FastifyRequest): Context | undefined => (request as WithContext)[HANDED];

// Apollo's names of the single-result media types (with the charset it answers in), in the order
// it offers them to the client's Accept header; the third, a callback protocol, is left to Apollo.
const APPLICATION_JSON = "application/json; charset=utf-8";
const GRAPHQL_RESPONSE_JSON = "application/graphql-response+json; charset=utf-8";
const JSON_CALLBACK = "application/json; callbackSpec=1.0; charset=utf-8";
const OFFERED = [APPLICATION_JSON, GRAPHQL_RESPONSE_JSON, JSON_CALLBACK];

/** Distinct Accept headers whose answer is remembered; past that the oldest is forgotten (a client sending made-up headers cannot pin the direct answer shut for new ones). */
const MAX_ACCEPT_VALUES = 64;

/** Content types whose body the server parsed as JSON and Apollo takes as such (others: Apollo). */
const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Extensions beyond the id a document came by (which the direct answer has taken care of). */
const otherExtensions = (extensions: unknown) =>
  extensions != null && !(isRecord(extensions) && Object.keys(extensions).every((key) => key === "persistedQuery"));

/**
 * A GET Apollo would run as it is: no content type but a header a browser preflights (Apollo's
 * CSRF prevention), or JSON's; and no page asked for (a browser's Accept goes to the IDE).
 */
function plainGet(request: FastifyRequest, contentType: string | undefined): boolean {
  if (String(request.headers.accept ?? "").includes("text/html")) return false;
  if (contentType !== undefined) return JSON_CONTENT_TYPE.test(contentType);
  return PREFLIGHTED_HEADERS.some((header) => !!request.headers[header]);
}

type DirectRequest = {
  text: string;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
  mediaType: string;
};

export type DirectAnswerOptions = {
  runner: OperationRunner;
  known: KnownDocuments;
  /** The context of a request, as Apollo's handler builds it. */
  context(request: FastifyRequest): Promise<Context>;
  /** Apollo's handler for everything not answered directly. */
  apollo: ApolloHandler;
  /** Counts each answer by the handler that sent it (the metric's label `road`). */
  observe(road: "direct" | "apollo"): void;
};

export function directAnswer({ runner, known, context: contextOf, apollo: viaApollo, observe }: DirectAnswerOptions) {
  const apollo = (request: FastifyRequest, reply: FastifyReply, operation: ReadOperation) => {
    observe("apollo");
    return viaApollo(request, reply, operation.apollo);
  };
  const mediaTypes = new Map<string, string | null>();

  /** The media type Apollo would answer a single result in (null: leave it to Apollo). */
  function mediaTypeFor(accept: string | undefined): string | null {
    if (!accept) return APPLICATION_JSON;
    let chosen = mediaTypes.get(accept);
    if (chosen !== undefined) return chosen;
    if (mediaTypes.size >= MAX_ACCEPT_VALUES) mediaTypes.delete(mediaTypes.keys().next().value!);
    const preferred = new Negotiator({ headers: { accept } }).mediaType(OFFERED);
    chosen = preferred === APPLICATION_JSON || preferred === GRAPHQL_RESPONSE_JSON ? preferred : null;
    mediaTypes.set(accept, chosen);
    return chosen;
  }

  /** The request as the direct answer takes it, or undefined when Apollo should. */
  function recognised(request: FastifyRequest, { sent, text, apollo }: ReadOperation): DirectRequest | undefined {
    const contentType = request.headers["content-type"];
    const get = request.method === "GET";
    if (get ? !plainGet(request, contentType) : !contentType || !JSON_CONTENT_TYPE.test(contentType)) return undefined;
    if (typeof text !== "string" || otherExtensions(sent.extensions) || apollo?.register !== undefined)
      return undefined;
    const { operationName, variables } = sent;
    if (operationName != null && typeof operationName !== "string") return undefined;
    if (variables != null && !isRecord(variables)) return undefined;
    const document = known.get(text);
    if (!document) return undefined;
    const operation = getOperationAST(document, operationName ?? undefined);
    // GET runs queries only (Apollo answers anything else 405); subscriptions are live transports'.
    if (!operation || operation.operation === "subscription" || (get && operation.operation !== "query"))
      return undefined;
    const mediaType = mediaTypeFor(request.headers.accept);
    if (!mediaType) return undefined;
    return {
      text,
      document,
      operation,
      operationName: operationName ?? undefined,
      variables: variables ?? undefined,
      mediaType,
    };
  }

  /** Hands the request to Apollo, with what already ran for it. */
  function handOver(
    request: FastifyRequest,
    reply: FastifyReply,
    read: ReadOperation,
    context: Context,
    ran: RanDirectly,
  ) {
    Object.defineProperty(context, RAN, { value: ran, enumerable: true });
    (request as WithContext)[HANDED] = context;
    return apollo(request, reply, read);
  }

  return async function answer(request: FastifyRequest, reply: FastifyReply, read: ReadOperation): Promise<unknown> {
    const direct = recognised(request, read);
    if (!direct) return apollo(request, reply, read);
    let context: Context;
    try {
      context = await contextOf(request);
    } catch {
      return apollo(request, reply, read); // Apollo builds it again and answers the failure its way
    }
    const { document, operation, operationName, variables } = direct;
    recordOperation(context, operation);
    const untrusted = runner.trust(direct.text, context.viewer);
    if (untrusted) return handOver(request, reply, read, context, { checkError: untrusted });
    try {
      await runner.check(document, operationName, variables, { chargeRequests: context.chargeRequests, prepaid: true });
    } catch (checkError) {
      return handOver(request, reply, read, context, { checkError });
    }
    let result: ExecutionResult;
    try {
      result = await runner.execute(document, operationName, variables, context);
    } catch (executeError) {
      return handOver(request, reply, read, context, { executeError });
    }
    if (result.errors?.length) return handOver(request, reply, read, context, { result });
    observe("direct");
    // As Apollo writes a single result: its fields in the order errors, data, extensions. A clean
    // GET query may be kept by a cache, as Apollo's handler says (cache-headers.ts); POST never is.
    reply.code(200).header("content-type", direct.mediaType);
    if (request.method === "GET") reply.header("cache-control", runner.cacheControl(document, operationName, context));
    return JSON.stringify({ data: result.data, extensions: result.extensions }) + "\n";
  };
}
