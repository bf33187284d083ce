// GraphQL over WebSocket (the graphql-ws protocol, `graphql-transport-ws`) on /graphql: what
// Apollo Client, urql and Relay speak for subscriptions. The socket carries subscriptions only
// (queries and mutations stay on HTTP, with their rate limits and status codes), each checked
// like an HTTP operation: the same token check and session cache, context factory, parser token
// limit, validation rules (depth, aliases, directives, @expensive max), cost limit, and rate-limit
// buckets (each subscribe counts one request). On top: subscriptions per connection and per token,
// a connection_init timeout, a largest message, keep-alive pings, and the token re-checked while
// the connection lives, so a revoked or expired token (or a changed role) ends its subscriptions
// within SESSION_CACHE_TTL: the socket is closed with 4403.
import websocket, { type WebSocket } from "@fastify/websocket";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ExecutionArgs, GraphQLFormattedError, GraphQLSchema } from "graphql";
import type { Context as WsContext } from "graphql-ws";
import { makeHandler, type Extra } from "graphql-ws/use/@fastify/websocket";
import type { Config } from "../config.ts";
import { hashToken, type Authentication } from "../domain/tokens.ts";
import type { PublishedEvent } from "../events/live-event.ts";
import type { Metrics } from "../http/metrics.ts";
import { rememberConnectionToken } from "../http/rate-limit.ts";
import type { Context, ContextFactory } from "./context.ts";
import type { OperationLimits } from "./limits.ts";
import { executeSubscription } from "./subscriptions/execute.ts";
import type { SubscriptionQuota } from "./subscriptions/quota.ts";
import { refusal, subscriptionAdmission } from "./subscriptions/admission.ts";
import type { TokenWatch } from "./subscriptions/token-watch.ts";

/** Close codes this transport uses besides graphql-ws's own (4400, 4408, 4409, 4429, ...). */
export const CLOSE = {
  /** connection_init carried a bad token, or the token was revoked, expired or the account's role changed. */
  FORBIDDEN: 4403,
  /** The server is shutting down (RFC 6455 "going away"): reconnect, to another instance. */
  GOING_AWAY: 1001,
  /** The token could not be checked (database unreachable): try again later (RFC 6455 1013). */
  TRY_AGAIN_LATER: 1013,
} as const;

/** How long shutdown waits for events being executed before closing the sockets. */
const SHUTDOWN_WAIT_MS = 5_000;
/** A peer that does not answer the close handshake is cut off after this. */
const CLOSE_GRACE_MS = 2_000;

export type GraphqlWebSocketOptions = {
  schema: GraphQLSchema;
  limits: OperationLimits;
  createContext: ContextFactory;
  /** Only the settings it reads: WS_*, SHUTDOWN_TIMEOUT, SESSION_CACHE_TTL and GRAPHQL_MAX_COST. */
  config: Pick<Config, "live" | "shutdownTimeoutMs" | "sessionCacheTtlMs" | "graphql">;
  metrics: Metrics;
  /** Ends a subscription whose token is revoked or whose role changed (shared with the other transports). */
  watchToken: TokenWatch;
  /** Subscriptions per token (or address), shared with the other transports. */
  quota: SubscriptionQuota;
  /** The same error formatting as HTTP (client-safe codes and messages, suggestions hidden when asked). */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
};

/** What one connection knows of its caller. */
type Connection = {
  token?: string;
  auth: Authentication;
  /** Release functions of this connection's active subscriptions, by operation id. */
  releases: Map<string, () => void>;
  stopWatching?: () => void;
};

type Ctx = WsContext<Record<string, unknown>, Extra>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The token of connection_init: `authorization` in any letter case ("Bearer x"), or `token` ("x"),
 * at the top or inside a `headers` object (`{ headers: { Authorization } }`, as some clients nest them).
 */
export function tokenFromConnectionParams(params: Record<string, unknown> | undefined): string | undefined {
  if (!isObject(params)) return undefined;
  const headerName = Object.keys(params).find((key) => key.toLowerCase() === "authorization");
  const header = headerName === undefined ? undefined : params[headerName];
  if (typeof header === "string") return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? (header.trim() || undefined);
  if (typeof params.token === "string" && params.token.trim()) return params.token.trim();
  return isObject(params.headers) ? tokenFromConnectionParams(params.headers) : undefined;
}

/**
 * The token a subscribe message carries in `extensions.headers`: GraphiQL (and graphql-tools'
 * executors) send the Headers pane there, not in connection_init, whose payload stays empty.
 */
export function tokenFromSubscribeExtensions(extensions: unknown): string | undefined {
  return isObject(extensions) && isObject(extensions.headers) ? tokenFromConnectionParams(extensions.headers) : undefined;
}

const OTHER_TOKEN = "This connection is signed in with another access token; open a new connection to use this one.";

/**
 * Registers @fastify/websocket (max message size, shutdown with 1001) and returns the handler of
 * WebSocket upgrades on GET /graphql (see graphqlPlugin). Register it before any route.
 */
export async function graphqlWebSocket(app: FastifyInstance, options: GraphqlWebSocketOptions) {
  const { schema, limits, createContext, config, metrics } = options;
  const live = config.live;
  const connections = new WeakMap<WebSocket, Connection>();
  const eventContexts = new WeakMap<Context, () => Promise<Context>>();
  const perToken = options.quota;
  let closing = false;
  let inFlight = 0;

  await app.register(websocket, {
    options: { maxPayload: live.maxMessageBytes },
    // Shutdown: no new subscriptions, the events being executed are sent, then every socket is
    // closed with 1001 (going away) so clients reconnect (to another instance).
    preClose: async function closeSockets(this: FastifyInstance) {
      closing = true;
      const deadline = Date.now() + Math.min(SHUTDOWN_WAIT_MS, config.shutdownTimeoutMs / 2);
      while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      for (const client of this.websocketServer.clients) {
        client.close(CLOSE.GOING_AWAY, "The server is shutting down; reconnect.");
        setTimeout(() => client.terminate(), CLOSE_GRACE_MS).unref();
      }
      await new Promise<void>((resolve) => this.websocketServer.close(() => resolve()));
    },
  });

  function watch(socket: WebSocket, connection: Connection) {
    connection.stopWatching = options.watchToken({
      token: connection.token,
      auth: connection.auth,
      onEnd: (why) =>
        socket.close(CLOSE.FORBIDDEN, why === "revoked" ? "The access token was revoked or has expired; sign in again." : "The account's role changed; reconnect."),
      onValid: (auth) => (connection.auth = auth),
    });
  }

  function releaseAll(connection: Connection | undefined) {
    if (!connection) return;
    connection.stopWatching?.();
    for (const release of connection.releases.values()) release();
    connection.releases.clear();
  }

  /**
   * A token in a subscribe message's extensions.headers signs in a connection whose connection_init
   * carried none (GraphiQL's way); from then on the connection is that token's, watched like one
   * given in connection_init. Errors for a bad token or one other than the connection's.
   */
  async function adoptSubscribeToken(socket: WebSocket, request: FastifyRequest, connection: Connection, token: string | undefined) {
    if (!token || token === connection.token) return undefined;
    if (connection.token) {
      return refusal("BAD_USER_INPUT", OTHER_TOKEN);
    }
    let auth: Authentication;
    try {
      auth = await createContext.authenticate(token);
    } catch {
      return refusal("SERVICE_UNAVAILABLE", "The access token could not be checked now; try again later.");
    }
    if (auth.state !== "valid") return refusal("UNAUTHENTICATED", "The access token is invalid, expired or revoked; sign in again.");
    // Another subscribe on this connection may have signed it in while this one was checked.
    if (connection.token === token) return undefined;
    if (connection.token) return refusal("BAD_USER_INPUT", OTHER_TOKEN);
    rememberConnectionToken(request, token);
    connection.token = token;
    connection.auth = auth;
    watch(socket, connection);
    return undefined;
  }

  const checkedDocument = subscriptionAdmission(schema, limits, config.graphql.maxCost, "WebSocket");

  const delivered = (event: PublishedEvent) => {
    metrics.live.delivered.inc({ topic: event.topic });
    metrics.live.lag.observe({ topic: event.topic }, Math.max(0, Date.now() - event.publishedAt) / 1000);
  };

  const handler = makeHandler<Record<string, unknown>>(
    {
      schema,
      isProd: true, // graphql-ws never puts an internal error's message in a close reason
      connectionInitWaitTimeout: live.connectionInitTimeoutMs,
      async onConnect(ctx: Ctx) {
        const { socket, request } = ctx.extra;
        const token = tokenFromConnectionParams(ctx.connectionParams);
        let auth: Authentication;
        try {
          auth = await createContext.authenticate(token);
        } catch {
          socket.close(CLOSE.TRY_AGAIN_LATER, "The access token could not be checked now; try again later.");
          return false;
        }
        if (token && auth.state !== "valid") {
          socket.close(CLOSE.FORBIDDEN, "The access token is invalid, expired or revoked; sign in again.");
          return false;
        }
        if (token) rememberConnectionToken(request, token);
        const connection: Connection = { token, auth, releases: new Map() };
        connections.set(socket, connection);
        watch(socket, connection);
        return true;
      },
      async onSubscribe(ctx: Ctx, id, payload) {
        const { socket, request } = ctx.extra;
        const connection = connections.get(socket)!;
        if (closing) return refusal("SERVICE_UNAVAILABLE", "The server is shutting down; subscribe again after reconnecting.");
        // ctx.subscriptions already holds this one.
        if (Object.keys(ctx.subscriptions).length > live.maxSubscriptionsPerConnection) {
          return refusal("RATE_LIMITED", `At most ${live.maxSubscriptionsPerConnection} subscriptions may run on one connection (WS_MAX_SUBSCRIPTIONS_PER_CONNECTION); complete one first.`);
        }
        const checked = checkedDocument(payload);
        if (!("document" in checked)) return checked;
        try {
          await app.chargeRequests(request, 1);
        } catch (error) {
          return refusal("RATE_LIMITED", (error as Error).message);
        }
        const adopted = await adoptSubscribeToken(socket, request, connection, tokenFromSubscribeExtensions(payload.extensions));
        if (adopted) return adopted;
        const holder = connection.token ? `t:${hashToken(connection.token)}` : `a:${request.ip}`;
        const release = perToken.admit(holder);
        if (!release) {
          return refusal("RATE_LIMITED", `At most ${live.maxSubscriptionsPerToken} subscriptions may run for one access token (WS_MAX_SUBSCRIPTIONS_PER_TOKEN); complete some first.`);
        }
        metrics.live.subscriptions.inc();
        connection.releases.set(id, () => {
          release();
          metrics.live.subscriptions.dec();
        });
        const contextFor = () => createContext(connection.token, { clientAddress: request.ip, known: connection.auth });
        let contextValue: Context;
        try {
          contextValue = await contextFor();
        } catch {
          connection.releases.get(id)?.();
          connection.releases.delete(id);
          return refusal("SERVICE_UNAVAILABLE", "The subscription could not start now; try again later.");
        }
        eventContexts.set(contextValue, contextFor);
        return { schema, document: checked.document, operationName: payload.operationName, variableValues: payload.variables, contextValue };
      },
      subscribe: (args: ExecutionArgs) =>
        executeSubscription(args, {
          eventContext: eventContexts.get(args.contextValue as Context)!,
          delivered,
          async track(work) {
            inFlight++;
            try {
              return await work;
            } finally {
              inFlight--;
            }
          },
        }),
      onNext(_ctx, _id, _payload, _args, result) {
        if (!result.errors?.length) return;
        return { ...result, errors: result.errors.map((error) => options.formatError(error.toJSON(), error)) };
      },
      onError(_ctx, _id, _payload, errors) {
        return errors.map((error) => options.formatError(error.toJSON(), error));
      },
      onComplete(ctx: Ctx, id) {
        const connection = connections.get(ctx.extra.socket);
        connection?.releases.get(id)?.();
        connection?.releases.delete(id);
      },
      onClose(ctx: Ctx) {
        releaseAll(connections.get(ctx.extra.socket));
      },
    },
    live.keepAliveMs > 0 ? live.keepAliveMs : Infinity,
  );

  return function webSocketHandler(this: FastifyInstance, socket: WebSocket, request: FastifyRequest) {
    metrics.live.connections.inc();
    socket.once("close", () => {
      metrics.live.connections.dec();
      releaseAll(connections.get(socket));
    });
    return handler.call(this, socket, request);
  };
}
