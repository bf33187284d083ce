// The spans themselves, written against @opentelemetry/api only (whichever SDK is registered
// records them): one SERVER span per HTTP request, one span per GraphQL root field, one CLIENT
// span per SQL statement. Loaded (by tracing.ts) only when tracing is on.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import fp from "fastify-plugin";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { defaultFieldResolver, type GraphQLSchema } from "graphql";
import { DomainError } from "../contract/errors.ts";

/** Probes and scrapes: frequent, uninteresting, and they would drown real traffic. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

const pathOf = (url: string) => url.split("?", 1)[0];

/**
 * A Fastify plugin (register it before any other hook): the request's span is the active one for
 * everything the request does, so resolver and statement spans become its children. An incoming
 * `traceparent` header continues the caller's trace.
 */
export function requestSpans(tracer: Tracer) {
  const spans = new WeakMap<FastifyRequest, Span>();
  const finish = (request: FastifyRequest, status?: number) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    const route = request.routeOptions?.url;
    if (route) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute("http.route", route);
    }
    if (status === undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: "request aborted by the client" });
    else {
      span.setAttribute("http.response.status_code", status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };

  return fp(
    async (app: FastifyInstance) => {
      app.addHook("onRequest", (request, _reply, done) => {
        const path = pathOf(request.url);
        if (UNTRACED_PATHS.has(path)) return done();
        const parent = propagation.extract(ROOT_CONTEXT, request.headers);
        const span = tracer.startSpan(
          request.method,
          {
            kind: SpanKind.SERVER,
            attributes: {
              "http.request.method": request.method,
              "url.path": path,
              "client.address": request.ip,
              "request.id": request.id,
            },
          },
          parent,
        );
        spans.set(request, span);
        const active = trace.setSpan(parent, span);
        // The body arrives in stream events, outside this call: bind them to the request's context too.
        context.bind(active, request.raw);
        context.with(active, done);
      });
      app.addHook("onResponse", async (request, reply) => finish(request, reply.statusCode));
      app.addHook("onRequestAbort", async (request) => finish(request));
    },
    { name: "request-spans", fastify: "5.x" },
  );
}

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === "function";

function failed(span: Span, error: unknown) {
  if (error instanceof DomainError && error.code !== "INTERNAL_SERVER_ERROR") {
    // A refused call (bad input, not found, ...) is the API working: note it, not an error of ours.
    span.setAttribute("graphql.error.code", error.code);
    return;
  }
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Wraps every root field's resolver (Query, Mutation, Subscription) in a span, in place, and
 * returns the schema. Nested fields are batched through DataLoaders; their SQL statements appear
 * as spans of their own. Also names the GraphQL operation on the enclosing request span.
 */
export function traceRootFields(schema: GraphQLSchema, tracer: Tracer): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve ?? defaultFieldResolver;
      const name = `${type.name}.${field.name}`;
      field.resolve = (source, args, ctx, info) => {
        trace.getActiveSpan()?.setAttributes({
          "graphql.operation.type": info.operation.operation,
          ...(info.operation.name ? { "graphql.operation.name": info.operation.name.value } : {}),
        });
        return tracer.startActiveSpan(
          name,
          { attributes: { "graphql.field.name": field.name, "graphql.parent.name": type.name } },
          (span) => {
            let result: unknown;
            try {
              result = resolve(source, args, ctx, info);
            } catch (error) {
              failed(span, error);
              span.end();
              throw error;
            }
            if (!isPromiseLike(result)) {
              span.end();
              return result;
            }
            return Promise.resolve(result).then(
              (value) => {
                span.end();
                return value;
              },
              (error: unknown) => {
                failed(span, error);
                span.end();
                throw error;
              },
            );
          },
        );
      };
    }
  }
  return schema;
}

export type StatementEvent = { query: string; durationMs: number; startedAt?: Date };

/** Enough to recognise a statement; a search's full text would make every span kilobytes. */
const QUERY_TEXT_MAX = 2000;

/**
 * One span per SQL statement, recorded when Prisma reports it (with its start and duration), as a
 * child of whatever span was active when the statement was sent. The text has placeholders, never
 * the values.
 */
export function statementSpans(tracer: Tracer, system: "sqlite" | "postgresql") {
  return (event: StatementEvent) => {
    const operation = /^\s*(\w+)/.exec(event.query)?.[1]?.toUpperCase() ?? "SQL";
    const start = event.startedAt?.getTime() ?? Date.now() - event.durationMs;
    const span = tracer.startSpan(
      operation,
      {
        kind: SpanKind.CLIENT,
        startTime: start,
        attributes: {
          "db.system.name": system,
          "db.operation.name": operation,
          "db.query.text": event.query.slice(0, QUERY_TEXT_MAX),
        },
      },
      context.active(),
    );
    span.end(start + event.durationMs);
  };
}
