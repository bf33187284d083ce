// request-id (src/http/observability/request-id.ts) on a bare instance: every answer carries its request's id,
// the caller's own when it is sane (the server's genReqId, logging.ts), so clients can quote it.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { requestId } from "../../src/http/observability/logging.ts";
import { requestIdPlugin } from "../../src/http/observability/request-id.ts";

async function app() {
  const app = Fastify({ genReqId: requestId, requestIdHeader: false });
  await app.register(requestIdPlugin);
  app.get("/id", async (request) => ({ id: request.id }));
  return app;
}

describe("request-id plugin", () => {
  it("echoes a sane x-request-id the caller sent", async () => {
    const res = await (await app()).inject({ url: "/id", headers: { "x-request-id": "abc-123.x" } });
    expect(res.headers["x-request-id"]).toBe("abc-123.x");
    expect(res.json().id).toBe("abc-123.x");
  });

  it("gives the request's own id otherwise, on errors too", async () => {
    const server = await app();
    const res = await server.inject({ url: "/id", headers: { "x-request-id": "bad id with spaces" } });
    expect(res.headers["x-request-id"]).toBe(res.json().id);
    expect(res.headers["x-request-id"]).not.toBe("bad id with spaces");
    const missing = await server.inject({ url: "/nowhere" });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
