// One HTTP server: /graphql, the REST routes, health checks. Built from config and a database
// client so tests can start real servers on random ports.
import Fastify, { type FastifyInstance } from "fastify";
import type { Config } from "./config.ts";
import type { Db } from "./db/client.ts";
import { contextFactory } from "./graphql/context.ts";
import { createApollo, graphqlPlugin } from "./graphql/plugin.ts";
import { graphqlWebSocket } from "./graphql/websocket.ts";
import { SubscriptionQuota } from "./graphql/subscriptions/quota.ts";
import { graphqlSsePlugin } from "./graphql/sse.ts";
import { tokenWatcher } from "./graphql/subscriptions/token-watch.ts";
import { formatError } from "./graphql/errors.ts";
import { buildSchema } from "./graphql/schema.ts";
import { operationLimits } from "./graphql/limits.ts";
import { restPlugin } from "./rest/plugin.ts";
import { openApiPlugin } from "./http/openapi.ts";
import { routes } from "./rest/routes/index.ts";
import type { RestRoute } from "./rest/route.ts";
import { editVariables } from "./rest/nothing-sent.ts";
import { documentAccess } from "./graphql/directives/auth.ts";
import { parse } from "graphql";
import { healthPlugin } from "./http/health.ts";
import { explorerPlugin } from "./http/explorer.ts";
import { clientErrorHandler, errorHandlingPlugin, frameworkErrors } from "./http/errors.ts";
import { bodyRatePlugin } from "./http/body-rate.ts";
import { connectionLimitsPlugin } from "./http/connection-limits.ts";
import { utf8JsonParser } from "./http/json-body.ts";
import { formBodyPlugin } from "./http/form-body.ts";
import { gracefulClosePlugin } from "./http/graceful-close.ts";
import { loggerOptions } from "./http/logging.ts";
import { createMetrics, graphqlErrorMetricsPlugin, metricsPlugin, observePasswordHashing, observeSharedRedis, type Metrics } from "./http/metrics.ts";
import { rateLimitPlugin } from "./http/rate-limit.ts";
import { securityPlugin } from "./http/security.ts";
import { uploadsPlugin } from "./http/uploads.ts";
import type { Tracing } from "./observability/load-tracing.ts";
import { PasswordHasher } from "./domain/passwords.ts";
import { SignUpLimit } from "./domain/signup-limit.ts";
import { LoginThrottle } from "./domain/login-throttle.ts";
import { InProcessBus, type EventBus } from "./events/bus.ts";
import { connectRedis } from "./redis/connection.ts";

export type ServerOptions = {
  config: Config;
  db: Db;
  /** Where log lines go (stdout by default); tests pass a collector. */
  logStream?: { write(line: string): void };
  /** Shared with the database client (statement timings); a fresh set by default. */
  metrics?: Metrics;
  /** OpenTelemetry hooks when TRACING is on (see src/observability/load-tracing.ts). */
  tracing?: Tracing;
  /** Where committed writes announce themselves to subscribers (src/events); in-process by default. */
  events?: EventBus;
};

const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

/**
 * Node's own request timeout (REQUEST_TIMEOUT: the whole request, headers and body, must arrive
 * within it; 408 and the connection closed otherwise), checked this often: its default of 30 s
 * would let a request live up to twice its timeout.
 */
function requestTimeouts(timeoutMs: number) {
  return { requestTimeout: timeoutMs, connectionsCheckingInterval: Math.max(100, Math.min(1000, timeoutMs / 4)) };
}

export async function buildServer({ config, db, logStream, metrics = createMetrics(), tracing, events = new InProcessBus() }: ServerOptions): Promise<FastifyInstance> {
  const logging = loggerOptions(config);
  const app = Fastify({
    ...logging,
    logger: logStream ? { ...(logging.logger as object), transport: undefined, stream: logStream } : logging.logger,
    routerOptions: { ignoreTrailingSlash: true },
    // A hop count becomes "trust the nearest n proxies" (Fastify's types take it as a function).
    trustProxy: typeof config.trustProxy === "number" ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // Fastify's own requestTimeout defaults to 0 (off) and overrides Node's: set both.
    requestTimeout: config.slowClients.requestTimeoutMs,
    http: requestTimeouts(config.slowClients.requestTimeoutMs),
    forceCloseConnections: "idle",
    frameworkErrors,
    clientErrorHandler,
    return503OnClosing: true,
  });
  utf8JsonParser(app);
  const schema = tracing ? tracing.instrumentSchema(buildSchema()) : buildSchema();
  const { accounts } = config;
  const guards = {
    passwords: new PasswordHasher({ concurrency: accounts.hashConcurrency, maxQueue: accounts.hashQueue }),
    signUps: new SignUpLimit(accounts.signUpsPerHour),
    logins: new LoginThrottle({ freeAttempts: accounts.loginFreeAttempts, maxDelayMs: accounts.loginBackoffMaxMs }),
  };
  observePasswordHashing(metrics, guards.passwords);
  const createContext = contextFactory(db, config, guards, events);
  app.addHook("onClose", async () => createContext.close());
  events.useLogger?.(app.log.child({ component: "events" }));
  if (tracing) await app.register(tracing.requests); // first hook: everything after runs inside the request's span

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  // Behind a proxy every client shares its address: no bound per address then (connection-limits.ts).
  const behindProxy = Array.isArray(config.trustProxy) ? config.trustProxy.length > 0 : Boolean(config.trustProxy);
  await app.register(connectionLimitsPlugin, {
    maxConnections: config.slowClients.maxConnections,
    maxConnectionsPerAddress: behindProxy ? 0 : config.slowClients.maxConnectionsPerAddress,
  });
  await app.register(bodyRatePlugin, { minBytesPerSecond: config.slowClients.bodyMinRate, windowMs: config.slowClients.bodyMinRateWindowMs });
  await app.register(errorHandlingPlugin);
  await app.register(gracefulClosePlugin);
  await app.register(securityPlugin, { config });
  // REDIS_URL: rate-limit counts shared by every instance (per process while Redis is away).
  const redis = config.redisUrl ? connectRedis(config.redisUrl, app.log) : undefined;
  if (redis) app.addHook("onClose", () => redis.close());
  const shared = redis && { redis, countedLocally: observeSharedRedis(metrics, redis) };
  await app.register(rateLimitPlugin, { config, shared });
  await app.register(metricsPlugin, { config, metrics });
  await app.register(formBodyPlugin);
  await app.register(healthPlugin, { db, uploadDir: config.uploadDir, redis });
  const limits = operationLimits(config);
  // Before any route: @fastify/websocket takes over the upgrades of every route registered after it.
  const watchToken = tokenWatcher({ authenticate: createContext.authenticate, sessionTtlMs: config.sessionCacheTtlMs, events });
  app.addHook("onClose", async () => watchToken.close());
  // Subscriptions per token count across transports (WebSocket and Server-Sent Events).
  const subscriptionQuota = new SubscriptionQuota(config.live.maxSubscriptionsPerToken);
  const live = {
    schema,
    limits,
    quota: subscriptionQuota,
    watchToken,
    createContext,
    config,
    metrics,
    formatError: formatError((error) => app.log.error({ err: error }, "GraphQL subscription failed"), { hideSuggestions: limits.hideSuggestions }),
  };
  const webSocket = await graphqlWebSocket(app, live);
  if (config.graphql.explorer) await app.register(explorerPlugin);
  const apollo = await createApollo(app, {
    schema,
    limits,
    introspection: config.graphql.introspection,
    explorer: config.graphql.explorer,
    plugins: [graphqlErrorMetricsPlugin(metrics)],
  });
  await app.register(graphqlPlugin, {
    createContext,
    apollo,
    uploads: { maxFileBytes: config.uploadMaxBytes, maxFiles: config.uploadMaxFiles },
    webSocket,
  });
  await app.register(graphqlSsePlugin, live);
  await app.register(uploadsPlugin, { config });
  const prefixes = config.legacy.restPrefixes;
  await app.register(restPlugin, { schema, routes, createContext, maxFileBytes: config.uploadMaxBytes, spoolDir: config.uploadDir, diskReserveBytes: config.uploadDiskReserveBytes, prefixes });
  // The document says which routes answer without a token under this configuration, from the
  // same declarations (@public, @requireAuth(anonymousReads)) that guard the fields they run.
  const tokenNeeded = (row: RestRoute) => {
    const access = documentAccess(schema, parse(row.document));
    return access === "public" ? "no" : access === "anonymousReads" && config.legacy.anonymousReads ? "optional" : "yes";
  };
  const needsAField = (row: RestRoute) => editVariables(schema, parse(row.document)).length > 0;
  await app.register(openApiPlugin, { routes, tokenNeeded, needsAField, prefixes });
  return app;
}
