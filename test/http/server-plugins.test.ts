// The server's plugins as a whole: each has a name and supports Fastify 5.x, each declared
// dependency is enforced by Fastify (the GraphQL and REST plugins' too), and the real server
// registers every one of them.
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from "fastify";
import websocket from "@fastify/websocket";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphqlPlugin } from "../../src/graphql/transport/http.ts";
import { graphqlSsePlugin } from "../../src/graphql/subscriptions/sse.ts";
import { loadConfig } from "../../src/config.ts";
import { BODY_RATE_DEFAULTS, bodyRatePlugin } from "../../src/http/limits/body-rate.ts";
import { CONNECTION_LIMITS_DEFAULTS, connectionLimitsPlugin } from "../../src/http/limits/connection-limits.ts";
import { errorHandlingPlugin } from "../../src/http/answers/error-handling.ts";
import { explorerPlugin } from "../../src/http/pages/explorer.ts";
import { formBodyPlugin } from "../../src/http/bodies/form-body.ts";
import { frontDoorPlugin } from "../../src/http/pages/front-door.ts";
import { gracefulClosePlugin } from "../../src/http/graceful-close.ts";
import { healthPlugin } from "../../src/http/health.ts";
import { jsonBodyPlugin } from "../../src/http/bodies/json-body.ts";
import { metricsPlugin } from "../../src/http/observability/metrics.ts";
import { openApiRoutePlugin } from "../../src/rest/openapi/openapi-route.ts";
import { RATE_LIMIT_DEFAULTS, rateLimitPlugin } from "../../src/http/limits/rate-limit.ts";
import { requestIdPlugin } from "../../src/http/observability/request-id.ts";
import { restReferencePlugin } from "../../src/http/pages/rest-reference.ts";
import { securityPlugin } from "../../src/http/answers/security.ts";
import { serveUploadsPlugin } from "../../src/http/pages/serve-uploads.ts";
import { restPlugin } from "../../src/rest/plugin.ts";
import { declared } from "../helpers/plugins.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const plugins: FastifyPluginAsync<any>[] = [
  errorHandlingPlugin,
  jsonBodyPlugin,
  requestIdPlugin,
  connectionLimitsPlugin,
  bodyRatePlugin,
  gracefulClosePlugin,
  securityPlugin,
  rateLimitPlugin,
  metricsPlugin,
  formBodyPlugin,
  healthPlugin,
  explorerPlugin,
  graphqlPlugin,
  graphqlSsePlugin,
  serveUploadsPlugin,
  restPlugin,
  openApiRoutePlugin,
  restReferencePlugin,
  frontDoorPlugin,
];

/** Plugins the dependency checks below register first, with options that need nothing else. */
const registrable: Record<string, [FastifyPluginAsync<any>, object]> = {
  "error-handling": [errorHandlingPlugin, {}],
  "json-body": [jsonBodyPlugin, {}],
  "form-body": [formBodyPlugin, {}],
  "rate-limit": [rateLimitPlugin, { max: 0 }],
  "@fastify/websocket": [websocket as unknown as FastifyPluginAsync<any>, {}],
};

/** `name` and every plugin it needs, directly or through another. */
const closure = (name: string): string[] => [
  name,
  ...(declared(registrable[name][0])?.dependencies ?? []).flatMap(closure),
];

/** Registers the plugin named `name` after those it needs itself. */
async function registerWithItsOwn(app: FastifyInstance, name: string) {
  const [plugin, options] = registrable[name];
  for (const needed of declared(plugin)?.dependencies ?? [])
    if (!app.hasPlugin(needed)) await registerWithItsOwn(app, needed);
  if (!app.hasPlugin(name)) await app.register(plugin, options);
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ GRAPHQL_EXPLORER: "true" });
});
afterAll(() => server?.close());

describe("server plugins", () => {
  it("each has its own name and supports Fastify 5.x", () => {
    const names = plugins.map((plugin) => declared(plugin)?.name);
    expect(new Set(names).size).toBe(plugins.length);
    for (const plugin of plugins) expect(declared(plugin)).toMatchObject({ name: expect.any(String), fastify: "5.x" });
  });

  it("is refused by Fastify when any plugin it declares is missing", async () => {
    const checked: string[] = [];
    for (const plugin of plugins) {
      const dependencies = declared(plugin)?.dependencies ?? [];
      for (const missing of dependencies) {
        const others = dependencies.filter((d) => d !== missing);
        // E.g. rest needs error-handling and form-body, which needs error-handling itself: Fastify
        // then refuses form-body, which the checks of form-body cover.
        if (others.flatMap(closure).includes(missing)) continue;
        const app = Fastify();
        for (const other of others) await registerWithItsOwn(app, other);
        // The check runs before the plugin itself: its own options do not matter here.
        await expect(
          app.register(plugin, {}).ready(),
          `${declared(plugin)?.name} without ${missing}`,
        ).rejects.toMatchObject({
          code: "FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED",
          message: expect.stringContaining(`'${missing}'`),
        });
        await app.close().catch(() => {});
        checked.push(`${declared(plugin)?.name} without ${missing}`);
      }
    }
    expect(checked).toEqual([
      "json-body without error-handling",
      "rate-limit without error-handling",
      "form-body without error-handling",
      "graphql without @fastify/websocket",
      "graphql without rate-limit",
      "graphql without json-body",
      "graphql-sse without rate-limit",
      "graphql-sse without json-body",
      "rest without form-body",
    ]);
  });

  it("default to the settings' own defaults (a plugin registered alone behaves as the server does)", () => {
    const settings = loadConfig({ NODE_ENV: "test", DATABASE_URL: "file:./unused.db" });
    expect(RATE_LIMIT_DEFAULTS).toEqual(settings.rateLimit);
    expect(BODY_RATE_DEFAULTS).toEqual({
      minBytesPerSecond: settings.slowClients.bodyMinRate,
      windowMs: settings.slowClients.bodyMinRateWindowMs,
    });
    const { maxConnections, maxConnectionsPerAddress } = settings.slowClients;
    expect(CONNECTION_LIMITS_DEFAULTS).toEqual({ maxConnections, maxConnectionsPerAddress });
    expect(settings.corsOrigins).toEqual([]); // security: CORS off by default
    expect(settings.metrics).toEqual({ enabled: true, token: undefined }); // metrics: on, no token
  });

  it("are all registered by the server", () => {
    for (const plugin of plugins)
      expect(server.app.hasPlugin(declared(plugin)!.name!), declared(plugin)?.name).toBe(true);
  });
});
