// OpenTelemetry set-up, loaded (with a dynamic import, see load-tracing.ts) only when TRACING is
// on: a Node tracer provider (AsyncLocalStorage context, W3C trace-context propagation), a
// sampler, and an exporter: OTLP over HTTP (configured by the standard OTEL_EXPORTER_OTLP_*
// variables) or the console.
//
// The SDK packages are reached through dynamic imports by name so that the service builds and
// runs without them while tracing is off; the types below are the few parts of their API used here.
import type { Tracer } from "@opentelemetry/api";
import type { Config } from "../config.ts";
import type { Tracing } from "./load-tracing.ts";
import { requestSpans, statementSpans, traceRootFields } from "./spans.ts";
import type { Dialect } from "../db/dialect.ts";

/** OpenTelemetry's `db.system.name` of each database. */
const SYSTEM_NAMES: Record<Dialect, "sqlite" | "postgresql"> = { sqlite: "sqlite", postgres: "postgresql" };

export const TRACING_PACKAGES = [
  "@opentelemetry/api@1.9.1",
  "@opentelemetry/sdk-trace-node@2.12.0",
  "@opentelemetry/sdk-trace-base@2.12.0",
  "@opentelemetry/resources@2.12.0",
  "@opentelemetry/exporter-trace-otlp-http@0.223.0",
];

/** What the SDK calls a span processor (only passed through). */
export type SpanProcessor = {
  onStart(...args: unknown[]): void;
  onEnd(...args: unknown[]): void;
  shutdown(): Promise<void>;
  forceFlush(): Promise<void>;
};

type Sdk = {
  NodeTracerProvider: new (config: { resource: unknown; sampler: unknown; spanProcessors: SpanProcessor[] }) => {
    register(): void;
    getTracer(name: string): Tracer;
    forceFlush(): Promise<void>;
    shutdown(): Promise<void>;
  };
  BatchSpanProcessor: new (exporter: unknown) => SpanProcessor;
  SimpleSpanProcessor: new (exporter: unknown) => SpanProcessor;
  ConsoleSpanExporter: new () => unknown;
  ParentBasedSampler: new (config: { root: unknown }) => unknown;
  TraceIdRatioBasedSampler: new (ratio: number) => unknown;
  resourceFromAttributes(attributes: Record<string, string>): unknown;
  OTLPTraceExporter: new () => unknown;
};

/** A missing package says which packages tracing needs instead of failing with a bare module error. */
async function importSdk(): Promise<Sdk> {
  // A CommonJS build's names may sit on `default` only: take both.
  const load = async (name: string): Promise<Record<string, unknown>> => {
    const module = (await import(name)) as Record<string, unknown>;
    return { ...(module.default as object | undefined), ...module };
  };
  try {
    const [node, base, resources, otlp] = await Promise.all([
      load("@opentelemetry/sdk-trace-node"),
      load("@opentelemetry/sdk-trace-base"),
      load("@opentelemetry/resources"),
      load("@opentelemetry/exporter-trace-otlp-http"),
    ]);
    return { ...base, ...node, ...resources, ...otlp } as unknown as Sdk;
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_MODULE_NOT_FOUND") {
      throw new Error(`tracing needs the OpenTelemetry packages: npm install ${TRACING_PACKAGES.join(" ")}`, {
        cause: error,
      });
    }
    throw error;
  }
}

export type TracingOptions = {
  /** Replace the exporter chosen by the settings (tests pass an in-memory exporter's processor). */
  spanProcessors?: SpanProcessor[];
};

/** Registers the tracer provider for this process (once) and returns the hooks the server wires in. */
export async function startTracing(config: Config, options: TracingOptions = {}): Promise<Tracing> {
  const sdk = await importSdk();
  const settings = config.tracing;
  const processors =
    options.spanProcessors ??
    (settings.exporter === "console"
      ? [new sdk.SimpleSpanProcessor(new sdk.ConsoleSpanExporter())]
      : [new sdk.BatchSpanProcessor(new sdk.OTLPTraceExporter())]);
  const provider = new sdk.NodeTracerProvider({
    resource: sdk.resourceFromAttributes({ "service.name": settings.serviceName }),
    // Follows the caller's decision when a traceparent says; samples this share of new traces.
    sampler: new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(settings.sampleRatio) }),
    spanProcessors: processors,
  });
  provider.register();
  const tracer = provider.getTracer("restaurants-groceries-gateway");
  return {
    requests: requestSpans(tracer),
    instrumentSchema: (schema) => traceRootFields(schema, tracer),
    statement: statementSpans(tracer, SYSTEM_NAMES[config.database.dialect]),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
