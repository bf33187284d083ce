// The options Fastify and Node's HTTP server are built with: logging, proxies, body and request
// limits, and the handlers of errors raised before any plugin runs (error-handling.ts).
import type { Server } from "node:http";
import type { FastifyHttpOptions } from "fastify";
import type { Config } from "../config.ts";
import { clientErrorHandler, frameworkErrors } from "./answers/error-handling.ts";
import { loggerOptions } from "./observability/logging.ts";

const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

/**
 * Node's own request timeout (REQUEST_TIMEOUT: the whole request, headers and body, must arrive
 * within it; 408 and the connection closed otherwise), checked this often: its default of 30 s
 * would let a request live up to twice its timeout.
 */
function requestTimeouts(timeoutMs: number) {
  return { requestTimeout: timeoutMs, connectionsCheckingInterval: Math.max(100, Math.min(1000, timeoutMs / 4)) };
}

/** `logStream`: where log lines go instead of stdout (tests pass a collector). */
export function serverOptions(config: Config, logStream?: { write(line: string): void }): FastifyHttpOptions<Server> {
  const logging = loggerOptions(config);
  return {
    ...logging,
    logger: logStream ? { ...(logging.logger as object), transport: undefined, stream: logStream } : logging.logger,
    routerOptions: { ignoreTrailingSlash: true },
    // A hop count becomes "trust the nearest n proxies" (Fastify's types take it as a function).
    trustProxy: typeof config.trustProxy === "number" ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // Fastify's own requestTimeout defaults to 0 (off) and overrides Node's: set both.
    requestTimeout: config.slowClients.requestTimeoutMs,
    http: requestTimeouts(config.slowClients.requestTimeoutMs),
    forceCloseConnections: "idle",
    frameworkErrors,
    clientErrorHandler,
    return503OnClosing: true,
  };
}
