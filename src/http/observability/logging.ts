// Structured JSON logs (pino, Fastify's own logger): one line per request with its id, route or
// GraphQL operation, status and duration. Tokens, passwords and upload contents never reach a log:
// headers and bodies are not logged, and secret-bearing parameters are cut out of logged URLs.
import { randomUUID } from "node:crypto";
import { STATUS_CODES, type IncomingMessage } from "node:http";
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from "fastify";
import type { Config } from "../../config.ts";

const SAFE_REQUEST_ID = /^[\w.:@-]{1,128}$/;

/** Keeps a caller's x-request-id when it is a sane token, so ids follow a request across services. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers["x-request-id"];
  return typeof given === "string" && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Query parameters whose values are never logged, by decoded, lower-cased name: anything naming a
 * token, password or secret (`access_token`, `tags[token]`, `new_password`), and GraphQL's
 * `query`, `variables` and `extensions`, which may carry any of them (`login(password: "…")`).
 */
const SECRET_PARAMETER = /token|passw|secret|^(query|variables|extensions)$/;

/** A parameter name as the server reads it (`access%5Ftoken`, `%61ccess_token` = access_token); null if it does not decode. */
function decodedName(raw: string): string | null {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " ")).toLowerCase();
  } catch {
    return null;
  }
}

/** The URL as logged: the value of every parameter that may hold a secret replaced, whatever the name's encoding or case. */
export function redactUrl(url: string): string {
  const at = url.indexOf("?");
  if (at < 0) return url;
  const parameters = url
    .slice(at + 1)
    .split("&")
    .map((parameter) => {
      const equals = parameter.indexOf("=");
      const name = equals < 0 ? parameter : parameter.slice(0, equals);
      const decoded = decodedName(name);
      // A name that does not decode cannot be told apart from a secret's: its value goes too.
      if (decoded !== null && !SECRET_PARAMETER.test(decoded)) return parameter;
      return equals < 0 ? name : `${name}=[redacted]`;
    });
  return `${url.slice(0, at)}?${parameters.join("&")}`;
}

const OPERATION = /^\s*(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/;

/** The GraphQL operation's name, as the client named it (body or query string), for /graphql requests. */
function graphqlOperation(request: FastifyRequest): string | undefined {
  const source = (request.method === "GET" ? request.query : request.body) as
    { operationName?: unknown; query?: unknown } | undefined;
  if (!source || typeof source !== "object") return undefined;
  if (typeof source.operationName === "string" && source.operationName) return source.operationName.slice(0, 100);
  if (typeof source.query === "string") return OPERATION.exec(source.query)?.[1] ?? "anonymous";
  return undefined;
}

/** Fastify's per-request log lines: a debug line on arrival, one summary line when the response is sent. */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest) {
    request.log.debug({ method: request.method, url: redactUrl(request.url) }, "request received");
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const route = request.routeOptions?.url;
    const line = {
      method: request.method,
      url: redactUrl(request.url),
      route,
      operation: route?.endsWith("/graphql") ? graphqlOperation(request) : undefined,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      remoteAddress: request.ip,
      ...(error ? { err: error } : {}),
    };
    // Every warning and error line says why in `reason`, never empty: a 503 or 507 the service
    // answered on purpose (not ready, storage full, busy) is a warning; a 500 or a thrown error is an error.
    if (error || reply.statusCode === 500)
      reply.log.error({ ...line, reason: error?.message || error?.name || "internal server error" }, "request failed");
    else if (reply.statusCode >= 500)
      reply.log.warn(
        { ...line, reason: `answered ${reply.statusCode} ${STATUS_CODES[reply.statusCode] ?? ""}`.trim() },
        "request answered unavailable",
      );
    else reply.log.info(line, "request completed");
  }
}

export function loggerOptions(
  config: Config,
): Pick<FastifyServerOptions, "logger" | "genReqId" | "requestIdHeader" | "logController"> {
  const pretty = config.env !== "production" && process.stdout.isTTY;
  return {
    logger: {
      level: config.logLevel,
      // Request/response objects are not logged whole (their headers carry tokens); the summary line says what matters.
      serializers: {
        req: (req: FastifyRequest) => ({ method: req.method, url: redactUrl(req.url) }),
        res: (reply) => ({ statusCode: reply.statusCode }),
      },
      redact: {
        paths: [
          "password",
          "access_token",
          "accessToken",
          "*.password",
          "*.access_token",
          "*.accessToken",
          "headers.authorization",
        ],
        censor: "[redacted]",
      },
      ...(pretty
        ? { transport: { target: "pino-pretty", options: { translateTime: "HH:MM:ss.l", ignore: "pid,hostname" } } }
        : {}),
    },
    genReqId: requestId,
    requestIdHeader: false,
    logController: new RequestLogController(),
  };
}
