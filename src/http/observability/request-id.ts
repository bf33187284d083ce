// Every answer carries its request's id (x-request-id): the caller's own when it sent a sane one,
// else a fresh one (see requestId in logging.ts), the same id the request's log lines carry, so a
// client can quote it when it reports a problem.
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

export const requestIdPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook("onRequest", async (request, reply) => {
      reply.header("x-request-id", request.id);
    });
  },
  { name: "request-id", fastify: "5.x" },
);
