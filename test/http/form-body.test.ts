// application/x-www-form-urlencoded (src/http/bodies/form-body.ts) on a bare instance: fields parsed,
// text that is not UTF-8 (raw or %-escaped) refused in the API's error shape.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { errorHandlingPlugin } from "../../src/http/answers/error-handling.ts";
import { formBodyPlugin } from "../../src/http/bodies/form-body.ts";
import { expectRefusedWithout } from "../helpers/plugins.ts";

async function app() {
  const app = Fastify();
  await app.register(errorHandlingPlugin);
  await app.register(formBodyPlugin);
  app.post("/echo", async (request) => ({ body: request.body }));
  return app;
}

const post = (payload: string | Buffer) => ({
  method: "POST" as const,
  url: "/echo",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  payload,
});

describe("form-body plugin", () => {
  it("parses the fields, %-escaped UTF-8 included", async () => {
    const res = await (await app()).inject(post("username=ann&title=Caf%C3%A9+Bleu"));
    expect(res.json()).toEqual({ body: { username: "ann", title: "Café Bleu" } });
  });

  it("refuses a %-escape that is not UTF-8, and raw bytes that are not, with a 400", async () => {
    const server = await app();
    const escaped = await server.inject(post("title=Caf%E9"));
    expect(escaped.statusCode).toBe(400);
    expect(escaped.json().error).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("%E9") });
    const raw = await server.inject(post(Buffer.from("title=Caf\xe9", "latin1")));
    expect(raw.statusCode).toBe(400);
    expect(raw.json().error.code).toBe("BAD_REQUEST");
  });

  it("is refused by Fastify without error-handling registered first", async () => {
    await expectRefusedWithout(formBodyPlugin, "error-handling");
  });
});
