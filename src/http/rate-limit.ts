// Per-token rate limit (per client address for requests without a token), 429 + Retry-After.
// @fastify/rate-limit keeps counts in memory by default; its `store` option (e.g. Redis) lets
// several instances share them. Health checks are exempt so orchestrators never get 429.
import rateLimit from "@fastify/rate-limit";
import fp from "fastify-plugin";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import { hashToken } from "../domain/tokens.ts";
import { tokenFromRequest } from "./token.ts";

export class RateLimitedError extends Error {
  readonly statusCode = 429;
  readonly code = "RATE_LIMITED";
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many requests; try again in ${retryAfterSeconds} s.`);
  }
}

/** The bucket a request counts against: its token (hashed, never kept in clear) or its address. */
export function rateLimitKey(request: FastifyRequest): string {
  const token = tokenFromRequest(request, {});
  return token ? `t:${hashToken(token)}` : `a:${request.ip}`;
}

export const rateLimitPlugin = fp(async (app: FastifyInstance, { config }: { config: Config }) => {
  if (config.rateLimit.max === 0) return;
  await app.register(rateLimit, {
    global: true,
    max: config.rateLimit.max,
    timeWindow: config.rateLimit.windowMs,
    keyGenerator: rateLimitKey,
    allowList: (request) => request.url === "/healthz" || request.url === "/readyz",
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
});
