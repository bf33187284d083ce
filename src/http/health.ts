// /healthz: the process answers. /readyz: and its database does too.
import type { FastifyInstance } from "fastify";
import type { Db } from "../db/client.ts";

export async function healthPlugin(app: FastifyInstance, { db }: { db: Db }) {
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (request, reply) => {
    try {
      await db.$queryRawUnsafe("SELECT 1");
      return { status: "ok", database: "ok" };
    } catch (error) {
      request.log.warn({ err: error }, "readiness check failed");
      return reply.code(503).send({ status: "unavailable", database: "unreachable" });
    }
  });
}
