// Security headers (helmet) and CORS. CORS is off unless CORS_ORIGINS lists origins.
// The content security policy is left to each HTML page (the explorer sets its own): every
// other answer is JSON or an image, served with nosniff.
import cors from "@fastify/cors";
import helmet from "@fastify/helmet";
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";

export const securityPlugin = fp(async (app: FastifyInstance, { config }: { config: Config }) => {
  await app.register(helmet, { contentSecurityPolicy: false, crossOriginEmbedderPolicy: false, global: true });
  if (config.corsOrigins.length) {
    await app.register(cors, {
      origin: config.corsOrigins.includes("*") ? true : config.corsOrigins,
      methods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
      allowedHeaders: ["authorization", "content-type", "apollo-require-preflight", "x-request-id"],
      exposedHeaders: ["x-request-id", "retry-after"],
      maxAge: 600,
    });
  }
});
