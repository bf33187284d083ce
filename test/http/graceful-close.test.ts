// graceful-close (src/http/graceful-close.ts) on a bare instance: once the server is closing,
// answers still in flight carry Connection: close; before that, none do.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { gracefulClosePlugin } from "../../src/http/graceful-close.ts";

describe("graceful-close plugin", () => {
  it("closes the connection of answers sent once shutdown has begun", async () => {
    const app = Fastify();
    await app.register(gracefulClosePlugin);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived = () => {};
    const started = new Promise<void>((resolve) => (arrived = resolve));
    app.get("/quick", async () => ({ ok: true }));
    app.get("/slow", async () => {
      arrived();
      await held;
      return { ok: true };
    });
    expect((await app.inject({ url: "/quick" })).headers.connection).not.toBe("close");

    const inFlight = app.inject({ url: "/slow" });
    await started;
    const closed = app.close();
    await new Promise((resolve) => setImmediate(resolve)); // let preClose run
    release();
    const res = await inFlight;
    expect(res.statusCode).toBe(200);
    expect(res.headers.connection).toBe("close");
    await closed;
  });
});
