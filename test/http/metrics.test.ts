// metrics (src/http/observability/metrics.ts) on a bare instance: every answer counted by route pattern and
// status; /metrics serves them, behind a bearer token when given; nothing when disabled.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { createMetrics, metricsPlugin, type MetricsOptions } from "../../src/http/observability/metrics.ts";

async function app(options: Omit<MetricsOptions, "metrics"> = {}) {
  const app = Fastify();
  await app.register(metricsPlugin, { metrics: createMetrics(), ...options });
  app.get("/items/:id", async () => ({ ok: true }));
  return app;
}

describe("metrics plugin", () => {
  it("counts answers by route pattern and status and serves them at /metrics", async () => {
    const server = await app();
    await server.inject({ url: "/items/42" });
    await server.inject({ url: "/nowhere" });
    const res = await server.inject({ url: "/metrics" });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http_requests_total{method="GET",route="/items/:id",operation="",status="200"} 1');
    expect(res.body).toContain('route="unmatched",operation="",status="404"} 1');
    expect(res.body).toContain('api_errors_total{code="NOT_FOUND"} 1');
  });

  it("wants the bearer token when one is set", async () => {
    const server = await app({ token: "a-long-metrics-token" });
    expect((await server.inject({ url: "/metrics" })).statusCode).toBe(401);
    const res = await server.inject({ url: "/metrics", headers: { authorization: "Bearer a-long-metrics-token" } });
    expect(res.statusCode).toBe(200);
  });

  it("serves nothing when disabled", async () => {
    expect((await (await app({ enabled: false })).inject({ url: "/metrics" })).statusCode).toBe(404);
  });
});
