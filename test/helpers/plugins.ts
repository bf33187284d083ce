// Small tools for the tests of single plugins (test/http): a bare Fastify instance per test, and
// the check that a plugin is refused without a plugin it declares as a dependency.
import net from "node:net";
import Fastify, { type FastifyPluginAsync } from "fastify";
import { expect } from "vitest";

/** Registering `plugin` alone on a bare instance fails with Fastify's own dependency error, naming `dependency`. */
export async function expectRefusedWithout(plugin: FastifyPluginAsync<any>, dependency: string, options: object = {}) {
  const app = Fastify();
  try {
    await expect(app.register(plugin, options).ready()).rejects.toMatchObject({
      code: "FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED",
      message: expect.stringContaining(`'${dependency}'`),
    });
  } finally {
    await app.close().catch(() => {});
  }
}

/** The name and Fastify version a plugin declares (fastify-plugin's metadata). */
export const declared = (plugin: unknown) =>
  (plugin as Record<symbol, { name?: string; fastify?: string; dependencies?: string[] }>)[Symbol.for("plugin-meta")];

/** A raw TCP connection to a listening instance: what it received so far, and a promise of its close. */
export async function rawConnection(address: string) {
  const socket = net.connect(Number(new URL(address).port), "127.0.0.1");
  socket.on("error", () => {}); // a reset after the server's answer is part of some cases
  let data = "";
  socket.on("data", (chunk) => void (data += chunk.toString("latin1")));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return { socket, received: () => data, closed };
}

/** Resolves with false when `pending` has not settled within `ms` (a bound on "does it happen at all"). */
export const within = (ms: number, pending: Promise<unknown>) =>
  Promise.race([
    pending.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref()),
  ]);
