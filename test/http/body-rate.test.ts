// body-rate (src/http/limits/body-rate.ts) on a bare instance listening on a real socket (an injected
// request has no byte count): a body that arrives too slowly gets 408 and its connection closed;
// an answer sent before the body has arrived closes the connection. The limits at scale are
// tested through the real server in test/hardening/slow-clients.test.ts.
import v8 from "node:v8";
import vm from "node:vm";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { bodyRatePlugin, KEEP_OPEN_BODY_BYTES } from "../../src/http/limits/body-rate.ts";
import { rawConnection, within } from "../helpers/plugins.ts";

let app: FastifyInstance;
afterEach(() => app?.close());

async function listening() {
  app = Fastify({ forceCloseConnections: true });
  await app.register(bodyRatePlugin, { minBytesPerSecond: 1000, windowMs: 200 });
  app.post("/echo", async (request) => ({ bytes: String(request.body).length }));
  app.post(
    "/refused",
    { onRequest: async (_request, reply) => reply.code(401).send({ refused: true }) },
    async () => ({}),
  );
  return app.listen({ port: 0, host: "127.0.0.1" });
}

const head = (path: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${length}\r\n\r\n`;

describe("body-rate plugin", () => {
  it("answers 408 and closes the connection when the body stops arriving", async () => {
    const client = await rawConnection(await listening());
    client.socket.write(head("/echo", 10_000) + "x");
    expect(await within(5_000, client.closed)).toBe(true);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(client.received()).toContain('"code":"REQUEST_TIMEOUT"');
  });

  it("lets a body that keeps arriving through", async () => {
    const client = await rawConnection(await listening());
    client.socket.end(head("/echo", 5) + "hello");
    await within(5_000, client.closed);
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(client.received()).toContain('{"bytes":5}');
  });

  it("closes the connection of an answer sent before a large body arrived", async () => {
    const client = await rawConnection(await listening());
    client.socket.write(head("/refused", KEEP_OPEN_BODY_BYTES + 1) + "x".repeat(100));
    expect(await within(5_000, client.closed)).toBe(true);
    expect(client.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(client.received().toLowerCase()).toContain("connection: close");
  });

  it("keeps the connection of an early answer to a small body: the next request follows on it", async () => {
    const client = await rawConnection(await listening());
    client.socket.write(head("/refused", 5));
    await new Promise((r) => setTimeout(r, 100)); // the answer goes out before the body
    client.socket.write("hello" + head("/echo", 3) + "abc");
    for (let i = 0; i < 100 && !client.received().includes('{"bytes":3}'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const answers = client.received();
    expect(answers).toMatch(/^HTTP\/1\.1 401 /);
    expect(answers.toLowerCase()).not.toContain("connection: close");
    expect(answers).toContain('{"bytes":3}'); // "hello" was read and dropped, not taken as a request
    expect(await within(200, client.closed)).toBe(false); // still open
    client.socket.destroy();
  });

  it("closes, without a second answer, a connection whose small body stops after an early answer", async () => {
    const client = await rawConnection(await listening());
    client.socket.write(head("/refused", 5) + "he");
    expect(await within(5_000, client.closed)).toBe(true);
    const answers = client.received();
    expect(answers).toMatch(/^HTTP\/1\.1 401 /);
    expect(answers.match(/HTTP\/1\.1/g)).toHaveLength(1); // no 408 after the 401
  });

  it("lets go of a request once its body is in (no check left pending for a window)", async () => {
    app = Fastify();
    await app.register(bodyRatePlugin, { minBytesPerSecond: 1000, windowMs: 60_000 });
    let collected = 0;
    const registry = new FinalizationRegistry(() => collected++);
    app.addHook("onRequest", (request, _reply, done) => {
      registry.register(request, null);
      done();
    });
    app.post("/echo", async (request) => ({ bytes: String(request.body).length }));
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${url}/echo`, {
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "hello",
      });
      expect(res.status).toBe(200);
    }
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    for (let round = 0; round < 20 && collected < 19; round++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A pending check holds its request for the whole window (a minute here); under load that
    // kept every request of the last window in memory. The last one may still be referenced.
    expect(collected).toBeGreaterThanOrEqual(19);
  });
});
