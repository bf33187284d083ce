// One HTTP server: /graphql, the REST routes, health checks. Built from config and a database
// client so tests can start real servers on random ports.
import Fastify, { type FastifyInstance } from "fastify";
import type { Config } from "./config.ts";
import type { Db } from "./db/db.ts";
import { contextFactory } from "./graphql/data/context.ts";
import { createApollo, graphqlPlugin } from "./graphql/transport/http.ts";
import { KnownDocuments } from "./graphql/transport/known-documents.ts";
import { releasePlugin } from "./graphql/transport/release-after-answer.ts";
import { compilingExecutor } from "./graphql/execution/compiled-execution.ts";
import { graphqlWebSocket } from "./graphql/subscriptions/websocket.ts";
import { LiveQuota } from "./graphql/subscriptions/quota.ts";
import { operationRunner } from "./graphql/execution/operation.ts";
import { persistedDocuments } from "./graphql/persisted/setup.ts";
import { graphqlSsePlugin } from "./graphql/subscriptions/sse.ts";
import { tokenWatcher } from "./graphql/subscriptions/token-watch.ts";
import { requestErrorStatusPlugin } from "./graphql/transport/headers/request-error-status.ts";
import { buildSchema } from "./graphql/schema.ts";
import { operationLimits } from "./graphql/policy/limits.ts";
import { restPlugin } from "./rest/plugin.ts";
import { openApiRoutePlugin } from "./rest/openapi/openapi-route.ts";
import { routes } from "./rest/routes/index.ts";
import { healthPlugin } from "./http/health.ts";
import { explorerPlugin } from "./http/pages/explorer.ts";
import { frontDoorPlugin } from "./http/pages/front-door.ts";
import { restReferencePlugin } from "./http/pages/rest-reference.ts";
import { errorHandlingPlugin } from "./http/answers/error-handling.ts";
import { bodyRatePlugin } from "./http/limits/body-rate.ts";
import { connectionLimitsPlugin } from "./http/limits/connection-limits.ts";
import { jsonBodyPlugin } from "./http/bodies/json-body.ts";
import { formBodyPlugin } from "./http/bodies/form-body.ts";
import { gracefulClosePlugin } from "./http/graceful-close.ts";
import { requestIdPlugin } from "./http/observability/request-id.ts";
import { serverOptions } from "./http/server-options.ts";
import {
  createMetrics,
  graphqlErrorMetricsPlugin,
  metricsPlugin,
  observePasswordHashing,
  observeSharedRedis,
  type Metrics,
} from "./http/observability/metrics.ts";
import { rateLimitPlugin } from "./http/limits/rate-limit.ts";
import { securityPlugin } from "./http/answers/security.ts";
import { serveUploadsPlugin } from "./http/pages/serve-uploads.ts";
import { createUploadStore } from "./storage/upload-store.ts";
import { mkdir } from "node:fs/promises";
import type { Tracing } from "./observability/load-tracing.ts";
import { PasswordHasher } from "./domain/accounts/passwords.ts";
import { SignUpLimit } from "./domain/accounts/signup-limit.ts";
import { LoginThrottle } from "./domain/accounts/login-throttle.ts";
import { InProcessBus, type EventBus } from "./events/bus.ts";
import { providerTokenCheck } from "./domain/accounts/provider-tokens.ts";
import { ProviderKeys } from "./identity/provider-keys.ts";
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

export async function buildServer({
  config,
  db,
  logStream,
  metrics = createMetrics(),
  tracing,
  events = new InProcessBus(),
}: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify(serverOptions(config, logStream));
  const built = buildSchema({ subgraph: config.federation.subgraph });
  const schema = tracing ? tracing.instrumentSchema(built) : built;
  const { accounts } = config;
  const guards = {
    passwords: new PasswordHasher({ concurrency: accounts.hashConcurrency, maxQueue: accounts.hashQueue }),
    signUps: new SignUpLimit(accounts.signUpsPerHour),
    logins: new LoginThrottle({ freeAttempts: accounts.loginFreeAttempts, maxDelayMs: accounts.loginBackoffMaxMs }),
  };
  observePasswordHashing(metrics, guards.passwords);
  // OIDC_ISSUER: the identity provider's JWTs are accepted beside our own tokens. Its keys are
  // fetched in the background: start-up never waits for the provider.
  const provider = config.identityProvider;
  const providerKeys = provider && new ProviderKeys(provider, app.log.child({ component: "identity-provider" }));
  if (providerKeys) {
    providerKeys.start();
    app.addHook("onClose", async () => providerKeys.close());
  }
  const checkToken = provider && providerKeys && providerTokenCheck(providerKeys, provider);
  // UPLOAD_STORE: covers in UPLOAD_DIR or in a bucket (src/storage/upload-store.ts).
  const store = await createUploadStore(config);
  // The folder holds the covers (filesystem store) and, with either store, the REST shim's spooled files.
  await mkdir(config.uploadDir, { recursive: true });
  app.addHook("onClose", async () => store.close());
  const createContext = contextFactory(db, config, guards, events, store, checkToken);
  app.addHook("onClose", async () => createContext.close());
  events.useLogger?.(app.log.child({ component: "events" }));
  // REDIS_URL: rate-limit counts and persisted queries shared by every instance (per process while Redis is away).
  const redis = config.redisUrl ? connectRedis(config.redisUrl, app.log) : undefined;
  if (redis) app.addHook("onClose", () => redis.close());

  // The plugins, in order. Each declares the plugins it needs (Fastify refuses a wrong order); the
  // order of the hooks is the order below: the request's span first (everything after runs inside
  // it), then connection and body bounds before anything that costs work (rate limits, tokens).
  if (tracing) await app.register(tracing.requests);
  await app.register(errorHandlingPlugin);
  await app.register(jsonBodyPlugin);
  await app.register(requestIdPlugin);
  // Behind a proxy every client shares its address: no bound per address then (connection-limits.ts).
  const behindProxy = Array.isArray(config.trustProxy) ? config.trustProxy.length > 0 : Boolean(config.trustProxy);
  const { slowClients } = config;
  await app.register(connectionLimitsPlugin, {
    maxConnections: slowClients.maxConnections,
    maxConnectionsPerAddress: behindProxy ? 0 : slowClients.maxConnectionsPerAddress,
  });
  await app.register(bodyRatePlugin, {
    minBytesPerSecond: slowClients.bodyMinRate,
    windowMs: slowClients.bodyMinRateWindowMs,
  });
  await app.register(gracefulClosePlugin);
  await app.register(securityPlugin, { corsOrigins: config.corsOrigins });
  const shared = redis && { redis, countedLocally: observeSharedRedis(metrics, redis) };
  await app.register(rateLimitPlugin, { ...config.rateLimit, shared });
  await app.register(metricsPlugin, { metrics, ...config.metrics });
  await app.register(formBodyPlugin);
  await app.register(healthPlugin, { db, store, redis, identityKeys: providerKeys });
  await app.register(releasePlugin);
  // One admission path for every transport (HTTP, REST, WebSocket, Server-Sent Events): charge, parse,
  // validate, cost, execute. A document that repeats runs compiled (compiled-execution.ts).
  const executor = compilingExecutor(schema, {
    after: config.graphql.compileAfter,
    perMinute: config.graphql.compilesPerMinute,
    observe: {
      executed: (mode) => metrics.executions.inc({ mode }),
      compiled: (count) => metrics.compiledOperations.set(count),
    },
  });
  // Trusted documents and automatic persisted queries: what an id names, which texts may run.
  // A manifest that is not right throws ManifestError before the server listens (main.ts: exit 2).
  const documents = persistedDocuments(config.persisted, redis, (outcome) =>
    metrics.persistedRegistrations.inc({ outcome }),
  );
  const runner = operationRunner(schema, operationLimits(config), executor, documents);
  documents.trusted.check(runner.parseOptions, runner.validated);
  // Before any route: @fastify/websocket takes over the upgrades of every route registered after it.
  const watchToken = tokenWatcher({
    authenticate: createContext.authenticate,
    sessionTtlMs: config.sessionCacheTtlMs,
    events,
  });
  app.addHook("onClose", async () => watchToken.close());
  const live = {
    runner,
    // What one client may hold counts across transports (WebSocket and Server-Sent Events).
    quota: new LiveQuota(config.live),
    watchToken,
    createContext,
    config: { live: config.live, shutdownTimeoutMs: config.shutdownTimeoutMs },
    metrics,
    formatError: runner.formatError((error) => app.log.error({ err: error }, "GraphQL subscription failed")),
  };
  const webSocket = await graphqlWebSocket(app, live);
  if (config.graphql.explorer) await app.register(explorerPlugin);
  // Documents validated once are answered without Apollo's request pipeline when all goes well.
  const known = new KnownDocuments();
  const apollo = await createApollo(app, {
    runner,
    known,
    introspection: config.graphql.introspection,
    explorer: config.graphql.explorer,
    plugins: [graphqlErrorMetricsPlugin(metrics), requestErrorStatusPlugin],
  });
  await app.register(graphqlPlugin, {
    createContext,
    apollo,
    runner,
    known,
    observeAnswer: (road) => metrics.graphqlAnswers.inc({ road }),
    observeRefusal: (code) => metrics.errors.inc({ code }),
    uploads: { maxFileBytes: config.uploadMaxBytes, maxFiles: config.uploadMaxFiles },
    webSocket,
  });
  await app.register(graphqlSsePlugin, live);
  await app.register(serveUploadsPlugin, {
    store,
    redirectSeconds:
      config.uploadStore.kind === "s3" && config.uploadStore.serve === "redirect"
        ? config.uploadStore.presignSeconds
        : 0,
  });
  const prefixes = config.legacy.restPrefixes;
  await app.register(restPlugin, {
    runner,
    routes,
    createContext,
    maxFileBytes: config.uploadMaxBytes,
    spoolDir: config.uploadDir,
    diskReserveBytes: config.uploadDiskReserveBytes,
    prefixes,
  });
  await app.register(openApiRoutePlugin, { schema, routes, prefixes, anonymousReads: config.legacy.anonymousReads });
  await app.register(restReferencePlugin);
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  await app.register(frontDoorPlugin, { explorer: config.graphql.explorer, address: `http://${host}:${config.port}` });
  return app;
}
