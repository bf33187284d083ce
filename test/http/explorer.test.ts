// explorer (src/http/pages/explorer.ts) on a bare instance: GET /explorer is the GraphQL IDE page with
// its own content security policy. Its caching, encodings and use in a browser are tested through
// the real server in test/explorer.test.ts.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { EXPLORER_PATH, explorerPlugin } from "../../src/http/pages/explorer.ts";

describe("explorer plugin", () => {
  it("serves the IDE page with its own content security policy", async () => {
    const app = Fastify();
    await app.register(explorerPlugin);
    const res = await app.inject({ url: EXPLORER_PATH, headers: { "accept-encoding": "identity" } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(res.body).toContain("<html");
  });
});
