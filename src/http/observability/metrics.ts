// Prometheus metrics at /metrics (prom-client): requests by route / GraphQL operation and status,
// latency histograms, errors by code, database statement durations, and the process's own
// metrics. Off with METRICS_ENABLED=false; with METRICS_TOKEN set, /metrics wants that bearer token.
import { timingSafeEqual } from "node:crypto";
import fp from "fastify-plugin";
import type { ApolloServerPlugin } from "@apollo/server";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { codeForStatus } from "../../contract/error-codes.ts";
import { answeredErrorCode, resolvedOperationName } from "./request-labels.ts";

export type Metrics = {
  registry: Registry;
  requests: Counter<"method" | "route" | "operation" | "status">;
  duration: Histogram<"method" | "route" | "operation">;
  errors: Counter<"code">;
  /** Texts clients sent with their hash (automatic persisted queries), by what became of them. */
  persistedRegistrations: Counter<"outcome">;
  statements: Histogram<"kind">;
  /** GraphQL operations run, by how (compiled or on graphql-js), and how many are compiled now. */
  executions: Counter<"mode">;
  compiledOperations: Gauge;
  /** GET and POST /graphql answers by road: "direct" (a known document that ran clean, direct-answer.ts) or "apollo". */
  graphqlAnswers: Counter<"road">;
  /** GraphQL operation names admitted as label values so far (bounded by MAX_OPERATION_LABELS). */
  operationNames: Set<string>;
  /**
   * Live updates: open WebSocket connections and event streams, active subscriptions, event
   * executions (one per event per group of subscribers asking the same thing), events sent,
   * publish-to-send lag, peers dropped (by why).
   */
  live: {
    connections: Gauge;
    streams: Gauge;
    subscriptions: Gauge;
    executions: Counter;
    dropped: Counter<"reason">;
    delivered: Counter<"topic">;
    lag: Histogram<"topic">;
  };
};

/** One registry per server (tests start several in one process). */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    operationNames: new Set(),
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
    errors: new Counter({
      name: "api_errors_total",
      help: "Errors answered to clients, by code",
      labelNames: ["code"],
      registers: [registry],
    }),
    persistedRegistrations: new Counter({
      name: "graphql_persisted_registrations_total",
      help: "Texts sent with their hash (automatic persisted queries) once admitted, by outcome: kept, known (kept before), over-allowance (the client's hourly allowance spent: not kept), too-large (not kept)",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    executions: new Counter({
      name: "graphql_executions_total",
      help: "GraphQL operations executed (GraphQL and REST), by mode: compiled (graphql-jit) or interpreted (graphql-js)",
      labelNames: ["mode"],
      registers: [registry],
    }),
    compiledOperations: new Gauge({
      name: "graphql_compiled_operations",
      help: "GraphQL operations kept compiled now",
      registers: [registry],
    }),
    graphqlAnswers: new Counter({
      name: "graphql_http_answers_total",
      help: "GET and POST /graphql answers by road: direct (a document validated before, run without Apollo's request pipeline, no error) or apollo",
      labelNames: ["road"],
      registers: [registry],
    }),
    live: {
      connections: new Gauge({
        name: "websocket_connections",
        help: "Open GraphQL WebSocket connections",
        registers: [registry],
      }),
      streams: new Gauge({
        name: "graphql_event_streams",
        help: "Open GraphQL Server-Sent Events streams",
        registers: [registry],
      }),
      subscriptions: new Gauge({
        name: "graphql_subscriptions_active",
        help: "GraphQL subscriptions running now",
        registers: [registry],
      }),
      executions: new Counter({
        name: "graphql_subscription_executions_total",
        help: "Executions of subscription events (subscribers asking the same thing share one)",
        registers: [registry],
      }),
      dropped: new Counter({
        name: "live_clients_dropped_total",
        help: "Live-update sockets and streams the server ended, by reason (not reading, too many messages, too many sockets)",
        labelNames: ["reason"],
        registers: [registry],
      }),
      delivered: new Counter({
        name: "graphql_subscription_events_delivered_total",
        help: "Subscription events sent to subscribers, by topic",
        labelNames: ["topic"],
        registers: [registry],
      }),
      lag: new Histogram({
        name: "graphql_subscription_delivery_lag_seconds",
        help: "Time from an event's publication (after its write committed) to its result being sent, by topic",
        labelNames: ["topic"],
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        registers: [registry],
      }),
    },
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
    new Gauge({
      name,
      help,
      registers: [metrics.registry],
      collect() {
        this.set(read());
      },
    });
  gauge("password_hashes_in_flight", "scrypt calls running now", () => hasher.inFlight);
  gauge("password_hashes_queued", "scrypt calls waiting for a slot", () => hasher.queued);
  gauge(
    "password_hashes_in_flight_peak",
    "most scrypt calls seen running at once since start",
    () => hasher.peakRunning,
  );
  gauge(
    "password_hashes_refused",
    "scrypt calls refused (SERVER_BUSY) because the queue was full, since start",
    () => hasher.refused,
  );
}

/**
 * Redis for shared rate limits (REDIS_URL): whether it answers now, and how many counts this
 * process kept itself because it did not. Returns the function that records one such count.
 */
export function observeSharedRedis(metrics: Metrics, redis: { reachable(): boolean }): () => void {
  new Gauge({
    name: "redis_reachable",
    help: "1 while Redis (REDIS_URL) answers, 0 while rate limits are counted per instance instead",
    registers: [metrics.registry],
    collect() {
      this.set(redis.reachable() ? 1 : 0);
    },
  });
  const local = new Counter({
    name: "rate_limit_local_counts_total",
    help: "Rate-limit counts kept in this process because Redis could not answer (unreachable or past its timeout)",
    registers: [metrics.registry],
  });
  return () => local.inc();
}

/** Counts GraphQL errors by their extensions.code (other errors by the code their body carried). */
export function graphqlErrorMetricsPlugin(metrics: Metrics): ApolloServerPlugin<any> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== "single") return;
          for (const error of response.body.singleResult.errors ?? [])
            metrics.errors.inc({ code: String(error.extensions?.code ?? "UNKNOWN") });
        },
      };
    },
  };
}

/** Most distinct GraphQL operation names kept as label values; later ones count as "other". */
export const MAX_OPERATION_LABELS = 100;

/** HTTP methods worth a label of their own (Node accepts a few dozen more, e.g. PROPFIND). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The operation label of a request: "" outside /graphql; the name of the operation Apollo ran
 * (never the client's operationName taken on trust), among the first MAX_OPERATION_LABELS names
 * seen, else "other"; "anonymous" for an unnamed operation or one that never ran.
 */
function operationLabel(metrics: Metrics, request: FastifyRequest): string {
  if (!request.routeOptions?.url?.endsWith("/graphql")) return "";
  const name = resolvedOperationName(request);
  if (!name) return "anonymous";
  if (metrics.operationNames.has(name)) return name;
  if (metrics.operationNames.size >= MAX_OPERATION_LABELS) return "other";
  metrics.operationNames.add(name);
  return name;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export type MetricsOptions = {
  /** The server's registry and metrics (createMetrics), shared with the database client. */
  metrics: Metrics;
  /** METRICS_ENABLED: count requests and serve /metrics. Default true. */
  enabled?: boolean;
  /** METRICS_TOKEN: the bearer token /metrics wants; none = open. Default none. */
  token?: string;
};

async function requestMetrics(app: FastifyInstance, { metrics, enabled = true, token }: MetricsOptions) {
  if (!enabled) return;
  app.addHook("onResponse", async (request, reply) => {
    const labels = {
      method: METHODS.has(request.method) ? request.method : "other",
      route: request.routeOptions?.url ?? "unmatched", // the route's pattern, never the raw URL
      operation: operationLabel(metrics, request),
    };
    metrics.requests.inc({ ...labels, status: String(reply.statusCode) });
    metrics.duration.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode >= 400 && !labels.operation) {
      // The code the error body carried (whoever sent it said so), else the code that status is shown with.
      metrics.errors.inc({ code: answeredErrorCode(reply) ?? codeForStatus(reply.statusCode) });
    }
  });
  app.get("/metrics", { config: { rateLimit: false } }, async (request, reply) => {
    if (token) {
      const given = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1] ?? "";
      if (!sameSecret(given, token)) {
        return reply.code(401).send({
          error: { code: "UNAUTHENTICATED", message: "/metrics needs Authorization: Bearer <METRICS_TOKEN>." },
        });
      }
    }
    reply.header("content-type", metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

// Global: its onResponse hook must count every route's answers.
export const metricsPlugin = fp(requestMetrics, { name: "metrics", fastify: "5.x" });
