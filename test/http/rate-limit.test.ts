// rate-limit (src/http/limits/rate-limit.ts) on a bare instance: `max` requests per window per token or
// address, then 429 with Retry-After in the API's shape (it needs error-handling); health checks
// exempt; chargeRequests counts extra units against the same buckets. The limits themselves are
// tested through the real server in test/hardening/http-limits.test.ts.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { errorHandlingPlugin } from "../../src/http/answers/error-handling.ts";
import { rateLimitPlugin, type RateLimitOptions } from "../../src/http/limits/rate-limit.ts";
import { expectRefusedWithout } from "../helpers/plugins.ts";

async function app(options: RateLimitOptions) {
  const app = Fastify();
  await app.register(errorHandlingPlugin);
  await app.register(rateLimitPlugin, options);
  app.get("/x", async () => ({ ok: true }));
  app.get("/healthz", async () => ({ status: "ok" }));
  // GraphQL turns the refusal into its error (graphql/availability.ts); here it is shown as is.
  app.get("/expensive", async (request) => ({
    charged: await app.chargeRequests(request, 2).then(
      () => "ok",
      (error) => error.code,
    ),
  }));
  return app;
}

describe("rate-limit plugin", () => {
  it("answers 429 with Retry-After past `max`, health checks exempt", async () => {
    const server = await app({ max: 2, windowMs: 60_000 });
    expect((await server.inject({ url: "/x" })).statusCode).toBe(200);
    expect((await server.inject({ url: "/x" })).statusCode).toBe(200);
    const refused = await server.inject({ url: "/x" });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused.json().error.code).toBe("RATE_LIMITED");
    expect((await server.inject({ url: "/healthz" })).statusCode).toBe(200);
  });

  it("charges extra units to the same bucket", async () => {
    const server = await app({ max: 2, windowMs: 60_000 });
    expect((await server.inject({ url: "/expensive" })).json()).toEqual({ charged: "RATE_LIMITED" }); // 1 request + 2 units > 2
    expect((await server.inject({ url: "/x" })).statusCode).toBe(429);
  });

  it("counts nothing with max 0", async () => {
    const server = await app({ max: 0 });
    for (let i = 0; i < 5; i++) expect((await server.inject({ url: "/expensive" })).json()).toEqual({ charged: "ok" });
  });

  it("is refused by Fastify without error-handling registered first", async () => {
    await expectRefusedWithout(rateLimitPlugin, "error-handling");
  });
});
