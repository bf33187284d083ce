// The server's JSON parser (src/http/bodies/json-body.ts) on a bare instance: UTF-8 only, Fastify's own
// parsing otherwise, errors in the API's shape (it needs error-handling).
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { errorHandlingPlugin } from "../../src/http/answers/error-handling.ts";
import { jsonBodyPlugin } from "../../src/http/bodies/json-body.ts";
import { expectRefusedWithout } from "../helpers/plugins.ts";

async function app() {
  const app = Fastify();
  await app.register(errorHandlingPlugin);
  await app.register(jsonBodyPlugin);
  app.post("/echo", async (request) => ({ body: request.body }));
  return app;
}

const post = (payload: string | Buffer) => ({
  method: "POST" as const,
  url: "/echo",
  headers: { "content-type": "application/json" },
  payload,
});

describe("json-body plugin", () => {
  it("parses UTF-8 JSON", async () => {
    const res = await (await app()).inject(post(Buffer.from(JSON.stringify({ title: "Café" }))));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ body: { title: "Café" } });
  });

  it("refuses bytes that are not UTF-8 with a 400 in the API's error shape", async () => {
    const res = await (await app()).inject(post(Buffer.from('{"title":"Caf\xe9"}', "latin1")));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: { code: "BAD_REQUEST", message: "The body is not valid UTF-8 text; send JSON encoded as UTF-8." },
    });
  });

  it("keeps Fastify's refusals: bad JSON and prototype poisoning", async () => {
    const server = await app();
    expect((await server.inject(post("{not json"))).json().error.code).toBe("BAD_REQUEST");
    const poisoned = await server.inject(post('{"__proto__":{"admin":true}}'));
    expect(poisoned.statusCode).toBe(400);
  });

  it("is refused by Fastify without error-handling registered first", async () => {
    await expectRefusedWithout(jsonBodyPlugin, "error-handling");
  });
});
