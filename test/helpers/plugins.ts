// Small tools for the tests of single plugins (test/http): a bare Fastify instance per test, and
// the check that a plugin is refused without a plugin it declares as a dependency.
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
