// During shutdown, answers to requests still in flight carry `Connection: close`, so their
// keep-alive sockets end with the response instead of holding `close()` open until they time out.
// (New requests are already refused with 503 by Fastify's return503OnClosing.)
import fp from "fastify-plugin";
import type { FastifyInstance } from "fastify";

export const gracefulClosePlugin = fp(
  async (app: FastifyInstance) => {
    let closing = false;
    app.addHook("preClose", async () => {
      closing = true;
    });
    app.addHook("onSend", async (_request, reply) => {
      if (closing) reply.header("connection", "close");
    });
  },
  { name: "graceful-close", fastify: "5.x" },
);
