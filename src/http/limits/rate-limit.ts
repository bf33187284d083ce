// Per-token rate limit (per client address for requests without a token), 429 + Retry-After.
// A second, looser ceiling per address covers requests that carry made-up tokens (each would
// otherwise get a fresh bucket, e.g. to brute-force a login).
// Counts live in this process's memory, or in Redis with REDIS_URL so every instance shares them
// (rate-limit-store.ts: per process again while Redis cannot answer). Health checks are exempt so
// orchestrators never get 429.
import rateLimit from "@fastify/rate-limit";
import fp from "fastify-plugin";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { RetryLaterError } from "../../contract/errors.ts";
import { hashToken } from "../../domain/accounts/tokens.ts";
import { tokenFromRequest } from "../token.ts";
import { localRateLimitStore, sharedRateLimitStore } from "./rate-limit-store.ts";
import type { SharedRedis } from "../../redis/connection.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** Counts `units` more requests for this request (e.g. its extra expensive GraphQL fields); throws RATE_LIMITED past the limit. */
    chargeRequests(request: FastifyRequest, units: number): Promise<void>;
  }
}

export class RateLimitedError extends Error {
  readonly statusCode = 429;
  readonly code = "RATE_LIMITED";
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many requests; try again in ${retryAfterSeconds} s.`);
  }
}

/**
 * Tokens that came after the request itself: a WebSocket's upgrade request carries none, its
 * connection_init message does. Its subscribe messages count against that token's buckets.
 */
const laterTokens = new WeakMap<FastifyRequest, string>();

export function rememberConnectionToken(request: FastifyRequest, token: string): void {
  laterTokens.set(request, token);
}

const requestToken = (request: FastifyRequest) => tokenFromRequest(request, {}) ?? laterTokens.get(request);

/** The bucket a request counts against: its token (hashed, never kept in clear) or its address. */
export function rateLimitKey(request: FastifyRequest): string {
  const token = requestToken(request);
  return token ? `t:${hashToken(token)}` : `a:${request.ip}`;
}

/** Redis failing while connected (timeouts) is logged at most this often; losing the connection is logged once. */
const FALLBACK_WARNING_INTERVAL_MS = 10_000;

type SharedCounts = { redis: SharedRedis; countedLocally: () => void };

export type RateLimitOptions = {
  /** RATE_LIMIT_MAX: requests per window per token (per address without one); 0 = no limit. Default 600. */
  max?: number;
  /** RATE_LIMIT_WINDOW, in ms. Default 60 000. */
  windowMs?: number;
  /** RATE_LIMIT_ADDRESS_FACTOR: one address may make this many times `max`, whatever tokens it sends. Default 10. */
  addressFactor?: number;
  /** REDIS_URL: counts shared by every instance (and what to do when one is kept here instead); per process without. */
  shared?: SharedCounts;
};

export const RATE_LIMIT_DEFAULTS = { max: 600, windowMs: 60_000, addressFactor: 10 } satisfies Required<
  Omit<RateLimitOptions, "shared">
>;

async function rateLimits(app: FastifyInstance, { shared, ...given }: RateLimitOptions) {
  const limits = { ...RATE_LIMIT_DEFAULTS, ...given };
  if (limits.max === 0) {
    app.decorate("chargeRequests", async () => {});
    return;
  }
  let lastWarning = 0;
  const store = shared
    ? sharedRateLimitStore(shared.redis, (error) => {
        shared.countedLocally();
        if (!error || Date.now() - lastWarning < FALLBACK_WARNING_INTERVAL_MS) return;
        lastWarning = Date.now();
        app.log.warn(
          { reason: error.message },
          "Redis did not answer a rate-limit count: counted in this process instead",
        );
      })
    : localRateLimitStore();
  const exempt = (request: FastifyRequest) => request.url === "/healthz" || request.url === "/readyz";
  await app.register(rateLimit, {
    global: true,
    store,
    max: limits.max,
    timeWindow: limits.windowMs,
    keyGenerator: rateLimitKey,
    allowList: exempt,
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
  });

  const perAddress = app.createRateLimit({
    max: limits.max * limits.addressFactor,
    timeWindow: limits.windowMs,
    keyGenerator: (request) => `addr:${request.ip}`,
  });
  // Without options: the very buckets (store and key) of the limit above.
  const sameBuckets = app.createRateLimit();
  const overLimit = (ttlInSeconds: number) =>
    new RetryLaterError(
      "RATE_LIMITED",
      `Too many requests (expensive fields count one each); try again in ${ttlInSeconds} s.`,
      ttlInSeconds,
    );
  app.decorate("chargeRequests", async (request: FastifyRequest, units: number) => {
    const withToken = Boolean(requestToken(request));
    for (let i = 0; i < units; i++) {
      for (const limiter of withToken ? [sameBuckets, perAddress] : [sameBuckets]) {
        const verdict = await limiter(request);
        if (!verdict.isAllowed && verdict.isExceeded) throw overLimit(verdict.ttlInSeconds);
      }
    }
  });

  app.addHook("onRequest", async (request, reply) => {
    if (exempt(request) || !tokenFromRequest(request, {})) return; // tokenless requests are counted by address already
    const verdict = await perAddress(request);
    if (!verdict.isAllowed && verdict.isExceeded) {
      reply.header("retry-after", verdict.ttlInSeconds);
      throw new RateLimitedError(verdict.ttlInSeconds);
    }
  });
}

// Global: every request is counted, and chargeRequests is for the GraphQL plugin. Its 429s are
// answered in the API's error shape by error-handling.
export const rateLimitPlugin = fp(rateLimits, { name: "rate-limit", fastify: "5.x", dependencies: ["error-handling"] });
