// /graphql over HTTP: Apollo Server behind Fastify. The context is built by the same factory the
// REST shim uses, with the token from the Authorization header or the access_token query parameter.
// GET /graphql also takes WebSocket upgrades (subscriptions, websocket.ts); plain GETs go to Apollo.
import { ApolloServer, HeaderMap, type ApolloServerPlugin } from "@apollo/server";
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from "@apollo/server/plugin/disabled";
import { fastifyApolloDrainPlugin } from "@as-integrations/fastify";
import type { WebsocketHandler } from "@fastify/websocket";
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import fp from "fastify-plugin";
import type { GraphQLError } from "graphql";
import { tokenFromRequest } from "../../http/token.ts";
import { releaseAfterAnswer, releaseResultPlugin } from "./release-after-answer.ts";
import { databaseFailureStatusPlugin, contextFailure } from "../execution/database-failures.ts";
import { checkedAuthentication } from "../../http/token-before-body.ts";
import type { Context, ContextFactory } from "../data/context.ts";
import { explorerLandingPage } from "./explorer-landing.ts";
import { operationNamePlugin, rememberContext } from "./operation-name.ts";
import type { OperationRunner } from "../execution/operation.ts";
import { PREFLIGHTED_HEADERS } from "./headers/csrf-headers.ts";
import { registerGraphqlUploads, type UploadLimits } from "./multipart-request.ts";
import { retryLaterPlugin } from "./headers/retry-later.ts";
import { readsJsonOnly } from "./headers/request-error-status.ts";
import { executorGateway } from "../execution/apollo-executor.ts";
import { contextHandedOver, directAnswer, ranDirectly } from "./direct-answer.ts";
import type { KnownDocuments } from "./known-documents.ts";
import { apolloHandler, registrationOf } from "./apollo-handler.ts";
import { persistedRequest } from "./persisted-request.ts";
import { cacheHeadersPlugin } from "./headers/cache-headers.ts";
import { httpCaching } from "../../http/answers/http-caching.ts";

export type ApolloOptions = {
  /** The admission path every transport shares: Apollo parses and validates with its options, then hands over. */
  runner: OperationRunner;
  /** Where documents that passed validation are remembered for the direct answer (direct-answer.ts). */
  known: KnownDocuments;
  introspection: boolean;
  /** Whether a browser's GET /graphql is sent to the IDE; without it, no landing page at all. */
  explorer: boolean;
  /** More Apollo plugins (metrics, ...). */
  plugins: ApolloServerPlugin<Context>[];
};

/**
 * Apollo as the HTTP transport of the runner (operation.ts): the request was charged on arrival (the
 * rate-limit hook) and Apollo parses with the runner's token limit; then the runner validates
 * (Apollo's own validation is off: it would run graphql-js's rules before ours could refuse a
 * document whose validation is the attack, see repeated-fields.ts), costs and executes.
 */
const admissionPlugin = (
  runner: OperationRunner,
  known: KnownDocuments,
  format: ReturnType<OperationRunner["formatError"]>,
): ApolloServerPlugin<Context> => ({
  async requestDidStart() {
    let invalid: readonly GraphQLError[] = [];
    return {
      async didResolveOperation({ document, operationName, request, source, contextValue }) {
        // Handed over by the direct answer: step 4 ran there (its refusal, if any, is answered here).
        const ran = ranDirectly(contextValue);
        if (ran) {
          if ("checkError" in ran) throw ran.checkError;
          return;
        }
        const untrusted = runner.trust(source, contextValue.viewer);
        if (untrusted) throw untrusted;
        invalid = runner.validated(document);
        if (invalid.length > 0) return;
        if (typeof request.query === "string") known.remember(request.query, document);
        await runner.check(document, operationName, request.variables, {
          chargeRequests: contextValue.chargeRequests,
          prepaid: true,
        });
        const hash = registrationOf(request.http); // sent with its hash: kept for the hash alone next time
        if (hash !== undefined) runner.register(hash, source, contextValue);
      },
      // Every validation error goes back (a hook that throws could carry only one), with the
      // status GraphQL over HTTP gives a document that does not validate (request-error-status.ts).
      async responseForOperation({ request }) {
        if (invalid.length === 0) return null;
        const errors = invalid.map((error) => format(error.toJSON(), error));
        const status = readsJsonOnly(request.http?.headers.get("accept")) ? 200 : 400;
        return { http: { status, headers: new HeaderMap() }, body: { kind: "single", singleResult: { errors } } };
      },
    };
  },
});

export async function createApollo(app: FastifyInstance, options: ApolloOptions) {
  const { runner } = options;
  const formatError = runner.formatError((error) => app.log.error({ err: error }, "GraphQL operation failed"));
  const apollo = new ApolloServer<Context>({
    gateway: executorGateway(runner),
    plugins: [
      fastifyApolloDrainPlugin(app),
      options.explorer ? explorerLandingPage() : ApolloServerPluginLandingPageDisabled(),
      // Its per-field hooks never run under compiled execution or the direct answer: the runner
      // reads the @cacheControl hints statically instead (cache-headers.ts).
      ApolloServerPluginCacheControlDisabled(),
      // A subgraph schema would turn on Apollo's inline tracing: any request sending
      // `apollo-federation-include-trace: ftv1` (@apollo/gateway does) would get every field's
      // timings back, and every resolver would be timed for it. Nothing here reports to GraphOS.
      ApolloServerPluginInlineTraceDisabled(),
      cacheHeadersPlugin(runner),
      operationNamePlugin,
      admissionPlugin(runner, options.known, formatError),
      databaseFailureStatusPlugin(),
      retryLaterPlugin(),
      releaseResultPlugin,
      ...options.plugins,
    ],
    // A signed-in GET query (urql's default) carries Authorization: no forgery, it passes.
    csrfPrevention: { requestHeaders: PREFLIGHTED_HEADERS },
    // Ours instead, bounded and shared through Redis, for every transport (src/graphql/persisted).
    persistedQueries: false,
    dangerouslyDisableValidation: true, // the runner validates (admissionPlugin)
    parseOptions: runner.parseOptions,
    formatError,
    includeStacktraceInErrorResponses: false,
    introspection: options.introspection,
  });
  await apollo.start();
  return apollo;
}

export type GraphqlPluginOptions = {
  apollo: ApolloServer<Context>;
  /** The same runner and known documents Apollo was created with: the direct answer's (direct-answer.ts). */
  runner: OperationRunner;
  known: KnownDocuments;
  /** Counts GET and POST /graphql answers by road (metrics). */
  observeAnswer(road: "direct" | "apollo"): void;
  /** Counts refusals of a persisted id or hash by code (metrics): persisted-request.ts answers them. */
  observeRefusal(code: string): void;
  createContext: ContextFactory;
  /** Multipart file uploads (GraphQL multipart request spec). */
  uploads: UploadLimits;
  /** Serves WebSocket upgrades of GET /graphql (graphql-ws); @fastify/websocket must be registered first. */
  webSocket: { handler: WebsocketHandler; beforeUpgrade: preHandlerAsyncHookHandler };
};

async function graphql(app: FastifyInstance, options: GraphqlPluginOptions) {
  registerGraphqlUploads(app, options.uploads, options.createContext.authenticate);
  // The answer to a GET depends on its token and on the media type asked for (Accept).
  httpCaching(app, { vary: ["authorization", "accept"] });
  // GraphQL reads the token from the header or query string only: the body is the operation.
  const context = async (request: FastifyRequest) => {
    const handed = contextHandedOver(request);
    if (handed) return handed;
    const token = tokenFromRequest(request, {});
    try {
      const context = await options.createContext(token, {
        clientAddress: request.ip,
        chargeRequests: (units) => app.chargeRequests(request, units),
        known: checkedAuthentication(request, token),
      });
      rememberContext(request, context);
      releaseAfterAnswer(request, context);
      return context;
    } catch (error) {
      throw contextFailure(error);
    }
  };
  const viaApollo = apolloHandler(options.apollo, context);
  // GET and POST: the text an id names first; then a document validated before is answered
  // directly when all goes well, else by Apollo.
  const answer = persistedRequest({
    runner: options.runner,
    observeRefusal: options.observeRefusal,
    next: directAnswer({
      runner: options.runner,
      known: options.known,
      context,
      apollo: viaApollo,
      observe: options.observeAnswer,
    }),
  });
  app.route({ method: "POST", url: "/graphql", handler: answer });
  app.route({ method: "OPTIONS", url: "/graphql", handler: (request, reply) => viaApollo(request, reply) });
  // @fastify/websocket serves a route's upgrades only when the route is GET alone, hence its own route.
  app.route({
    method: "GET",
    url: "/graphql",
    preHandler: options.webSocket.beforeUpgrade,
    handler: answer,
    wsHandler: options.webSocket.handler,
  });
}

// Encapsulated: the multipart parser of GraphQL uploads applies to /graphql only. Needs the
// WebSocket upgrades (graphqlWebSocket), app.chargeRequests (rate-limit) and the server's UTF-8 JSON parser.
export const graphqlPlugin = fp(graphql, {
  name: "graphql",
  fastify: "5.x",
  encapsulate: true,
  dependencies: ["@fastify/websocket", "rate-limit", "json-body"],
});
