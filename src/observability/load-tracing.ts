// The only tracing code loaded while TRACING=off (the default): a type and a switch. With tracing
// on, the OpenTelemetry modules are imported here, at start-up; with it off, nothing of them is
// loaded and no hook is installed, so tracing costs nothing.
import type { FastifyPluginAsync } from "fastify";
import type { GraphQLSchema } from "graphql";
import type { Config } from "../config.ts";

/** What the server wires in when tracing is on (see tracing.ts, spans.ts). */
export type Tracing = {
  /** Fastify plugin opening one span per request; register it before any other hook. */
  requests: FastifyPluginAsync;
  /** Wraps the root fields' resolvers in spans (in place); returns the schema. */
  instrumentSchema(schema: GraphQLSchema): GraphQLSchema;
  /** Records one SQL statement as a span (pass it to createDb's onQuery). */
  statement(event: { query: string; durationMs: number; startedAt?: Date }): void;
  /** Sends the spans still buffered. */
  flush(): Promise<void>;
  /** Flushes and stops the exporter (on shutdown). */
  shutdown(): Promise<void>;
};

/** The tracing hooks, or undefined when TRACING=off. Rejects with a message naming missing packages. */
export async function loadTracing(config: Config): Promise<Tracing | undefined> {
  if (config.tracing.exporter === "off") return undefined;
  const { startTracing } = await import("./tracing.ts");
  return startTracing(config);
}
