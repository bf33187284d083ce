// GraphQL over Server-Sent Events (the graphql-sse protocol, "distinct connections" mode) on
// /graphql/stream: subscriptions for networks that break WebSockets (proxies that buffer or drop
// upgrades), as plain HTTP responses that never end. One request per subscription: POST (or GET
// with ?query=) with `Accept: text/event-stream` and the token in the Authorization header.
// Each subscription is checked exactly as over WebSocket (subscriptions/admission.ts): the same
// token check and session cache, validation rules, cost limit, rate-limit buckets and
// per-token quota; a revoked or expired token (or a changed role) ends the stream within
// SESSION_CACHE_TTL; on shutdown every stream is ended so clients reconnect elsewhere.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ExecutionArgs, GraphQLError, GraphQLFormattedError, GraphQLSchema } from "graphql";
import fp from "fastify-plugin";
import { createHandler } from "graphql-sse/lib/use/fastify";
import type { Config } from "../config.ts";
import { signInRequired } from "../domain/errors.ts";
import { hashToken } from "../domain/tokens.ts";
import type { PublishedEvent } from "../events/live-event.ts";
import type { Metrics } from "../http/metrics.ts";
import { tokenFromRequest } from "../http/token.ts";
import type { Context, ContextFactory } from "./context.ts";
import type { OperationLimits } from "./limits.ts";
import { refusal, subscriptionAdmission } from "./subscriptions/admission.ts";
import { executeSubscription } from "./subscriptions/execute.ts";
import type { SubscriptionQuota } from "./subscriptions/quota.ts";
import type { TokenWatch } from "./subscriptions/token-watch.ts";

export const SSE_PATH = "/graphql/stream";

export type GraphqlSseOptions = {
  schema: GraphQLSchema;
  limits: OperationLimits;
  createContext: ContextFactory;
  config: Pick<Config, "live" | "graphql">;
  metrics: Metrics;
  /** Ends a stream whose token is revoked or whose role changed (shared with the WebSocket transport). */
  watchToken: TokenWatch;
  /** Subscriptions per token (or address), shared with the WebSocket transport. */
  quota: SubscriptionQuota;
  /** The same error formatting as HTTP (client-safe codes and messages). */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
};

/** What one stream knows of its caller and how it ends. */
type Stream = { token?: string; clientAddress: string; release?: () => void; stopWatching?: () => void };

/** A JSON answer in graphql-sse's Response form: [body, init]. */
const answer = (status: number, errors: readonly GraphQLFormattedError[]) =>
  [JSON.stringify({ errors }), { status, statusText: "", headers: { "content-type": "application/json; charset=utf-8" } }] as const;

async function graphqlSse(app: FastifyInstance, options: GraphqlSseOptions) {
  const { schema, limits, createContext, config, metrics, quota } = options;
  const checkedDocument = subscriptionAdmission(schema, limits, config.graphql.maxCost, "Server-Sent Events");
  const streams = new Map<FastifyRequest, Stream>();
  const streamOf = new WeakMap<Context, Stream>();
  const formatted = (errors: readonly GraphQLError[]) => errors.map((error) => options.formatError(error.toJSON(), error));
  let closing = false;

  const handler = createHandler<Context>({
    // Our own check, before the stream is accepted: an unusable token is a 401, as on every face.
    async authenticate(req) {
      const request = req.raw as FastifyRequest;
      const token = tokenFromRequest(request, {});
      let auth;
      try {
        auth = await createContext.authenticate(token);
      } catch {
        return answer(503, [{ message: "The access token could not be checked now; try again later.", extensions: { code: "SERVICE_UNAVAILABLE" } }]);
      }
      if (token && auth.state !== "valid") {
        const { code, message } = signInRequired(true);
        return answer(401, [{ message, extensions: { code } }]);
      }
      streams.set(request, { token, clientAddress: request.ip });
      return null; // distinct connections only: no reservation tokens
    },
    async onSubscribe(req, params) {
      const request = req.raw as FastifyRequest;
      const stream = streams.get(request)!;
      if (closing) return answer(503, [{ message: "The server is shutting down; subscribe again shortly.", extensions: { code: "SERVICE_UNAVAILABLE" } }]);
      const checked = checkedDocument(params);
      if (!("document" in checked)) return answer(400, formatted(checked));
      try {
        await app.chargeRequests(request, 1);
      } catch (error) {
        return answer(429, formatted(refusal("RATE_LIMITED", (error as Error).message)));
      }
      const holder = stream.token ? `t:${hashToken(stream.token)}` : `a:${request.ip}`;
      const release = quota.admit(holder);
      if (!release) {
        const message = `At most ${config.live.maxSubscriptionsPerToken} subscriptions may run for one access token (WS_MAX_SUBSCRIPTIONS_PER_TOKEN); end some first.`;
        return answer(429, formatted(refusal("RATE_LIMITED", message)));
      }
      stream.release = release;
      metrics.live.subscriptions.inc();
      const contextValue = await createContext(stream.token, { clientAddress: request.ip });
      streamOf.set(contextValue, stream);
      const end = () => request.raw.socket?.end();
      stream.stopWatching = options.watchToken({
        token: stream.token,
        auth: contextValue.auth,
        onEnd: end,
      });
      const args: ExecutionArgs = { schema, document: checked.document, operationName: params.operationName, variableValues: params.variables, contextValue };
      return args as ExecutionArgs & { contextValue: Context };
    },
    subscribe: (args) =>
      executeSubscription(args, {
        eventContext: () => {
          const first = args.contextValue as Context;
          const stream = streamOf.get(first)!;
          return createContext(stream.token, { clientAddress: stream.clientAddress, known: first.auth });
        },
        delivered: (event: PublishedEvent) => {
          metrics.live.delivered.inc({ topic: event.topic });
          metrics.live.lag.observe({ topic: event.topic }, Math.max(0, Date.now() - event.publishedAt) / 1000);
        },
      }),
    onNext(_ctx, _req, result) {
      if (!result.errors?.length) return;
      return { ...result, errors: formatted(result.errors) as unknown as GraphQLError[] };
    },
  });

  /** Ends the stream of `request`: releases its quota and stops its token watch. */
  function forget(request: FastifyRequest) {
    const stream = streams.get(request);
    if (!stream) return;
    streams.delete(request);
    stream.release?.();
    stream.stopWatching?.();
    if (stream.release) metrics.live.subscriptions.dec();
  }

  async function handle(request: FastifyRequest, reply: FastifyReply) {
    reply.hijack(); // the handler writes the response itself (headers set so far are kept)
    reply.raw.once("close", () => forget(request));
    try {
      await handler(request, reply);
    } catch (error) {
      request.log.error({ err: error }, "GraphQL event stream failed");
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { "content-type": "application/json; charset=utf-8" });
      reply.raw.end(JSON.stringify({ errors: [{ message: "Internal server error", extensions: { code: "INTERNAL_SERVER_ERROR" } }] }));
    } finally {
      forget(request);
    }
  }

  app.route({ method: ["GET", "POST"], url: SSE_PATH, handler: handle });
  // Shutdown: open streams never end by themselves; end them so clients reconnect elsewhere.
  app.addHook("preClose", async () => {
    closing = true;
    for (const request of streams.keys()) request.raw.socket?.end();
  });
}

// Encapsulated: it only adds its route. Needs app.chargeRequests (rate-limit) and the server's
// UTF-8 JSON parser for its POST body.
export const graphqlSsePlugin = fp(graphqlSse, {
  name: "graphql-sse",
  fastify: "5.x",
  encapsulate: true,
  dependencies: ["rate-limit", "json-body"],
});
