// error-handling (src/http/answers/error-handling.ts) on a bare instance: what routes and hooks throw answers in
// the REST shape, or GraphQL's on /graphql; unknown paths get 404; a crash shows no stack.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { errorHandlingPlugin } from "../../src/http/answers/error-handling.ts";

async function app() {
  const app = Fastify({ logger: false });
  await app.register(errorHandlingPlugin);
  const tooLarge = () => Object.assign(new Error("too large"), { statusCode: 413, code: "FST_ERR_CTP_BODY_TOO_LARGE" });
  app.get("/large", async () => {
    throw tooLarge();
  });
  app.get("/graphql", async () => {
    throw tooLarge();
  });
  app.get("/crash", async () => {
    throw new Error("secret detail at /srv/app.ts:12");
  });
  return app;
}

describe("error-handling plugin", () => {
  it("answers a thrown 4xx in the REST shape with a code for its status", async () => {
    const res = await (await app()).inject({ url: "/large" });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: { code: "PAYLOAD_TOO_LARGE", message: "The body is too large." } });
  });

  it("answers on /graphql as a GraphQL response", async () => {
    const res = await (await app()).inject({ url: "/graphql" });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      errors: [{ message: "The body is too large.", extensions: { code: "PAYLOAD_TOO_LARGE" } }],
    });
  });

  it("answers a crash with 500 and no detail, and an unknown path with 404", async () => {
    const server = await app();
    const crash = await server.inject({ url: "/crash" });
    expect(crash.statusCode).toBe(500);
    expect(crash.json().error.code).toBe("INTERNAL_SERVER_ERROR");
    expect(crash.body).not.toContain("secret detail");
    const missing = await server.inject({ url: "/nowhere?x=1" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: { code: "NOT_FOUND", message: "No route for GET /nowhere." } });
  });
});
