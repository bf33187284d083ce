// Security headers (helmet) and CORS. CORS is off unless CORS_ORIGINS lists origins.
// The content security policy is left to each HTML page (the explorer sets its own): every
// other answer is JSON or an image, served with nosniff.
import cors from "@fastify/cors";
import helmet from "@fastify/helmet";
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";

export type SecurityOptions = {
  /** CORS_ORIGINS: origins allowed to call from a browser ("*" = any); none = CORS off. Default none. */
  corsOrigins?: string[];
};

async function security(app: FastifyInstance, { corsOrigins = [] }: SecurityOptions) {
  await app.register(helmet, { contentSecurityPolicy: false, crossOriginEmbedderPolicy: false, global: true });
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
