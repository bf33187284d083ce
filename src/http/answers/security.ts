// Security headers (helmet) and CORS. CORS is off unless CORS_ORIGINS lists origins.
// The content security policy is left to each HTML page (the explorer sets its own): every
// other answer is JSON or an image, served with nosniff.
//
// Helmet decides the headers; they are the same on every answer, so they are worked out once at
// start-up and set by one plain hook. (@fastify/helmet, which ran helmet's middleware on each
// request, stored a closure over the request on its reply: that kept every request reachable
// until the next full GC, turning each one into old-generation garbage; docs/performance.md "Latency at a
// fixed rate".)
import type { IncomingMessage, ServerResponse } from "node:http";
import cors from "@fastify/cors";
import helmet, { type HelmetOptions } from "helmet";
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";

export type SecurityOptions = {
  /** CORS_ORIGINS: origins allowed to call from a browser ("*" = any); none = CORS off. Default none. */
  corsOrigins?: string[];
};

const HELMET: Readonly<HelmetOptions> = { contentSecurityPolicy: false, crossOriginEmbedderPolicy: false };

/** The headers helmet sets with these options, by (lower-case) name. */
export function helmetHeaders(options: Readonly<HelmetOptions> = HELMET): Record<string, string> {
  const headers: Record<string, string> = {};
  const collector = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  helmet({ ...options })(
    {} as IncomingMessage,
    collector as unknown as ServerResponse,
    (error?: unknown) => (failure = error),
  );
  if (failure) throw failure;
  return headers;
}

async function security(app: FastifyInstance, { corsOrigins = [] }: SecurityOptions) {
  const headers = helmetHeaders();
  app.addHook("onRequest", (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  if (corsOrigins.length) {
    await app.register(cors, {
      origin: corsOrigins.includes("*") ? true : corsOrigins,
      methods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      allowedHeaders: ["authorization", "content-type", "apollo-require-preflight", "x-request-id"],
      exposedHeaders: ["x-request-id", "retry-after"],
      maxAge: 600,
    });
  }
}

// Global: the headers go on every answer, and preflights are answered on every path.
export const securityPlugin = fp(security, { name: "security", fastify: "5.x" });
