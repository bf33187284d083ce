// connection-limits (src/http/limits/connection-limits.ts) on a bare instance listening on a real socket:
// a connection over the bounds is answered 503 (server full) or 429 (its address is over its
// bound) and closed, except for health checks. The reserve at scale is tested through the real
// server in test/hardening/slow-clients.test.ts.
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { connectionLimitsPlugin, type ConnectionLimitsOptions } from "../../src/http/limits/connection-limits.ts";
import { rawConnection, within } from "../helpers/plugins.ts";

let app: FastifyInstance;
afterEach(() => app?.close());

async function listening(limits: ConnectionLimitsOptions) {
  app = Fastify({ forceCloseConnections: true });
  await app.register(connectionLimitsPlugin, limits);
  app.get("/x", async () => ({ ok: true }));
  app.get("/healthz", async () => ({ status: "ok" }));
  return app.listen({ port: 0, host: "127.0.0.1" });
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

/** A connection that has been served once and stays open (keep-alive). */
async function occupied(address: string) {
  const client = await rawConnection(address);
  client.socket.write(get("/x"));
  await within(5_000, new Promise<void>((resolve) => client.socket.once("data", () => resolve())));
  return client;
}

describe("connection-limits plugin", () => {
  it("answers 503 on a connection over MAX_CONNECTIONS and closes it; a health check still gets through", async () => {
    const address = await listening({ maxConnections: 1, maxConnectionsPerAddress: 0 });
    await occupied(address);
    const over = await rawConnection(address);
    over.socket.write(get("/x"));
    expect(await within(5_000, over.closed)).toBe(true);
    expect(over.received()).toMatch(/^HTTP\/1\.1 503 /);
    expect(over.received()).toContain('"code":"SERVICE_UNAVAILABLE"');

    const probe = await rawConnection(address);
    probe.socket.write(get("/healthz"));
    expect(await within(5_000, probe.closed)).toBe(true);
    expect(probe.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("answers 429 on a connection over MAX_CONNECTIONS_PER_ADDRESS", async () => {
    const address = await listening({ maxConnections: 100, maxConnectionsPerAddress: 1 });
    await occupied(address);
    const over = await rawConnection(address);
    over.socket.write(get("/x"));
    expect(await within(5_000, over.closed)).toBe(true);
    expect(over.received()).toMatch(/^HTTP\/1\.1 429 /);
    expect(over.received()).toContain('"code":"RATE_LIMITED"');
  });
});
