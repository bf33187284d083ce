// security (src/http/answers/security.ts) on a bare instance: helmet's headers on every answer; CORS only
// for the origins given (none by default).
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { securityPlugin } from "../../src/http/answers/security.ts";

async function app(corsOrigins?: string[]) {
  const app = Fastify();
  await app.register(securityPlugin, { corsOrigins });
  app.get("/x", async () => ({ ok: true }));
  return app;
}

describe("security plugin", () => {
  it("sends the security headers, on unknown paths too, and no CORS headers by default", async () => {
    const server = await app();
    for (const url of ["/x", "/nowhere"]) {
      const res = await server.inject({ url, headers: { origin: "https://elsewhere.example" } });
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["strict-transport-security"]).toBeDefined();
      expect(res.headers["x-frame-options"]).toBe("SAMEORIGIN");
      expect(res.headers["content-security-policy"]).toBeUndefined(); // left to each HTML page
      expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    }
  });

  it("answers preflights from the listed origins only, exposing x-request-id and retry-after", async () => {
    const server = await app(["https://shop.example"]);
    const preflight = (origin: string) =>
      server.inject({ method: "OPTIONS", url: "/x", headers: { origin, "access-control-request-method": "POST" } });
    const allowed = await preflight("https://shop.example");
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers["access-control-allow-origin"]).toBe("https://shop.example");
    expect((await preflight("https://evil.example")).headers["access-control-allow-origin"]).toBeUndefined();
    const res = await server.inject({ url: "/x", headers: { origin: "https://shop.example" } });
    expect(res.headers["access-control-expose-headers"]).toBe("x-request-id, retry-after");
  });
});
