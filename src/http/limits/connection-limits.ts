// Bounds on open connections: MAX_CONNECTIONS in total and MAX_CONNECTIONS_PER_ADDRESS from one
// client address, so stalled or idle sockets cannot use up the process's file descriptors.
//
// Health checks must still get through when the bounds are reached (an orchestrator that cannot
// reach /healthz restarts a service that is merely busy). A connection over a bound therefore
// lands in a small reserve (HEALTH_RESERVE connections above MAX_CONNECTIONS, at most
// RESERVE_PER_ADDRESS of them per address) on which only GET/HEAD /healthz and /readyz are
// served, each answer closing it; any other request gets 429 (its address is over its bound) or
// 503 (the server is full) and the connection is closed unread. A reserve connection that sends
// nothing is closed after RESERVE_IDLE_MS. Over the reserve too, the connection is closed at once
// (Node's `maxConnections`), before any byte is read.
//
// The address is the TCP peer's. Behind a proxy (TRUST_PROXY set) every client shares the proxy's
// address, so there is no bound per address: the proxy should bound its clients.
import type { Socket } from "node:net";
import fp from "fastify-plugin";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { sendError } from "../answers/error-handling.ts";

export const HEALTH_RESERVE = 16;
const RESERVE_PER_ADDRESS = 4;
const RESERVE_IDLE_MS = 5_000;
const HEALTH_REQUEST = /^\/(healthz|readyz)\/?(\?|$)/;

export type ConnectionLimitsOptions = {
  /** MAX_CONNECTIONS: open connections served at once (the health reserve comes on top). Default 1000. */
  maxConnections?: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections from one address; 0 = no bound (behind a proxy). Default 100. */
  maxConnectionsPerAddress?: number;
};

export const CONNECTION_LIMITS_DEFAULTS = {
  maxConnections: 1000,
  maxConnectionsPerAddress: 100,
} satisfies Required<ConnectionLimitsOptions>;

type Over = "total" | "address";

async function connectionLimits(app: FastifyInstance, options: ConnectionLimitsOptions) {
  const limits = { ...CONNECTION_LIMITS_DEFAULTS, ...options };
  const perAddress = limits.maxConnectionsPerAddress;
  let open = 0;
  let inReserve = 0;
  const byAddress = new Map<string, { open: number; inReserve: number }>();
  const reserved = new WeakMap<Socket, Over>();

  app.server.maxConnections = limits.maxConnections + HEALTH_RESERVE;
  app.server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const mine = byAddress.get(address) ?? { open: 0, inReserve: 0 };
    const over: Over | undefined =
      open >= limits.maxConnections ? "total" : perAddress > 0 && mine.open >= perAddress ? "address" : undefined;
    if (over && (inReserve >= HEALTH_RESERVE || mine.inReserve >= RESERVE_PER_ADDRESS)) return void socket.destroy();

    byAddress.set(address, mine);
    if (over) {
      reserved.set(socket, over);
      inReserve++;
      mine.inReserve++;
      socket.setTimeout(RESERVE_IDLE_MS, () => socket.destroy());
    } else {
      open++;
      mine.open++;
    }
    socket.once("close", () => {
      if (over) {
        inReserve--;
        mine.inReserve--;
      } else {
        open--;
        mine.open--;
      }
      if (mine.open === 0 && mine.inReserve === 0) byAddress.delete(address);
    });
  });

  const isHealthCheck = (request: FastifyRequest) =>
    (request.method === "GET" || request.method === "HEAD") && HEALTH_REQUEST.test(request.url);

  // Before rate limiting and authentication: a reserve connection costs no work and its body is never read.
  app.addHook("onRequest", async (request, reply) => {
    const over = reserved.get(request.raw.socket);
    if (!over) return;
    reply.header("connection", "close");
    if (isHealthCheck(request)) return;
    reply.header("retry-after", "1");
    return over === "address"
      ? sendError(request, reply, 429, {
          code: "RATE_LIMITED",
          message: `Too many open connections from your address (at most ${perAddress}); reuse one or close some.`,
        })
      : sendError(request, reply, 503, {
          code: "SERVICE_UNAVAILABLE",
          message: "The server has too many open connections; try again shortly.",
        });
  });
}

// Global: it bounds the server's sockets and its hook must see every request.
export const connectionLimitsPlugin = fp(connectionLimits, { name: "connection-limits", fastify: "5.x" });
