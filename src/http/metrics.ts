// Prometheus metrics at /metrics (prom-client): requests by route / GraphQL operation and status,
// latency histograms, errors by code, database statement durations, and the process's own
// metrics. Off with METRICS_ENABLED=false; with METRICS_TOKEN set, /metrics wants that bearer token.
import { timingSafeEqual } from "node:crypto";
import fp from "fastify-plugin";
import type { ApolloServerPlugin } from "@apollo/server";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Config } from "../config.ts";

export type Metrics = {
  registry: Registry;
  requests: Counter<"method" | "route" | "operation" | "status">;
  duration: Histogram<"method" | "route" | "operation">;
  errors: Counter<"code">;
  statements: Histogram<"kind">;
};

/** One registry per server (tests start several in one process). */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: "http_requests_total",
      help: "HTTP requests answered, by route (or GraphQL operation) and status",
      labelNames: ["method", "route", "operation", "status"],
      registers: [registry],
    }),
    duration: new Histogram({
      name: "http_request_duration_seconds",
      help: "Time to answer an HTTP request",
      labelNames: ["method", "route", "operation"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    errors: new Counter({ name: "api_errors_total", help: "Errors answered to clients, by code", labelNames: ["code"], registers: [registry] }),
    statements: new Histogram({
      name: "db_statement_duration_seconds",
      help: "Time the database took per SQL statement, by kind (select, insert, ...)",
      labelNames: ["kind"],
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
      registers: [registry],
    }),
  };
}

/** Records one SQL statement Prisma reported (hook it to createDb's onQuery). */
export function observeStatement(metrics: Metrics, event: { query: string; durationMs: number }) {
  const kind = /^\s*(\w+)/.exec(event.query)?.[1]?.toLowerCase() ?? "other";
  metrics.statements.observe({ kind }, event.durationMs / 1000);
}

/** The password hasher's bound at work: scrypt calls running, waiting, at most at once, refused. */
export function observePasswordHashing(
  metrics: Metrics,
  hasher: { inFlight: number; queued: number; peakRunning: number; refused: number },
) {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({ name, help, registers: [metrics.registry], collect() { this.set(read()); } });
  gauge("password_hashes_in_flight", "scrypt calls running now", () => hasher.inFlight);
  gauge("password_hashes_queued", "scrypt calls waiting for a slot", () => hasher.queued);
  gauge("password_hashes_in_flight_peak", "most scrypt calls seen running at once since start", () => hasher.peakRunning);
  gauge("password_hashes_refused", "scrypt calls refused (SERVER_BUSY) because the queue was full, since start", () => hasher.refused);
}

/** Counts GraphQL errors by their extensions.code (REST errors are counted from their status). */
export function graphqlErrorMetricsPlugin(metrics: Metrics): ApolloServerPlugin<any> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== "single") return;
          for (const error of response.body.singleResult.errors ?? []) metrics.errors.inc({ code: String(error.extensions?.code ?? "UNKNOWN") });
        },
      };
    },
  };
}

const CODE_BY_STATUS: Record<number, string> = { 400: "BAD_USER_INPUT", 401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED", 409: "CONFLICT", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE", 429: "RATE_LIMITED" };

const GRAPHQL_OPERATION_LABEL_MAX = 64;

function operationLabel(request: FastifyRequest): string {
  if (!request.routeOptions?.url?.endsWith("/graphql")) return "";
  const body = (request.method === "GET" ? request.query : request.body) as { operationName?: unknown } | undefined;
  const name = body && typeof body.operationName === "string" ? body.operationName : "";
  // Client-chosen names are bounded to keep label cardinality in check.
  return /^[_A-Za-z][_0-9A-Za-z]*$/.test(name) ? name.slice(0, GRAPHQL_OPERATION_LABEL_MAX) : "anonymous";
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const metricsPlugin = fp(async (app: FastifyInstance, { config, metrics }: { config: Config; metrics: Metrics }) => {
  if (!config.metrics.enabled) return;
  app.addHook("onResponse", async (request, reply) => {
    const labels = { method: request.method, route: request.routeOptions?.url ?? "unmatched", operation: operationLabel(request) };
    metrics.requests.inc({ ...labels, status: String(reply.statusCode) });
    metrics.duration.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode >= 400 && !labels.operation) {
      metrics.errors.inc({ code: CODE_BY_STATUS[reply.statusCode] ?? (reply.statusCode >= 500 ? "INTERNAL_SERVER_ERROR" : String(reply.statusCode)) });
    }
  });
  app.get("/metrics", { config: { rateLimit: false } }, async (request, reply) => {
    if (config.metrics.token) {
      const given = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1] ?? "";
      if (!sameSecret(given, config.metrics.token)) {
        return reply.code(401).send({ error: { code: "UNAUTHENTICATED", message: "/metrics needs Authorization: Bearer <METRICS_TOKEN>." } });
      }
    }
    reply.header("content-type", metrics.registry.contentType);
    return metrics.registry.metrics();
  });
});
