// Errors that happen before a route's own code runs (bad JSON, too large, wrong content type,
// rate limit, unknown path) answer in the same {"error": {...}} shape as everything else, or as a
// GraphQL response ({"errors": [...]}) on /graphql; never a stack trace.
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import fp from "fastify-plugin";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { databaseUnavailable } from "../../domain/prisma-errors.ts";
import { DomainError, INTERNAL, type ClientError } from "../../contract/errors.ts";
import { errorBody } from "../../contract/errors.ts";
import { codeForStatus, statusForCode } from "../../contract/error-codes.ts";
import { answeredWithError } from "../observability/request-labels.ts";

function messageFor(error: FastifyError): string {
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return "The body is not valid JSON.";
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return "The body is too large.";
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return "Unsupported Content-Type; send application/json, application/x-www-form-urlencoded or multipart/form-data.";
    default:
      return error.message;
  }
}

const isGraphqlPath = (url: string) => /^(\/v1)?\/graphql\/?(\?|$)/.test(url);

export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, error: ClientError) {
  reply.code(status);
  answeredWithError(reply, error.code);
  if (isGraphqlPath(request.url))
    return reply.send({ errors: [{ message: error.message, extensions: { code: error.code } }] });
  return reply.send(errorBody(error));
}

/**
 * Errors Fastify's router raises before any route, hook or error handler runs (pass it as the
 * `frameworkErrors` server option): a path whose percent-encoding is not UTF-8 text, or a path
 * segment (an id) over the router's length limit. Answered in the same shape as every other error.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    return sendError(request, reply, 414, {
      code: "BAD_REQUEST",
      message: "A path segment is too long; ids are at most 100 characters.",
    });
  }
  if (error.code === "FST_ERR_BAD_URL") {
    return sendError(request, reply, 400, {
      code: "BAD_REQUEST",
      message: "The path does not decode: its percent-encoded bytes are not UTF-8 text.",
    });
  }
  request.log.error({ err: error }, "request failed");
  return sendError(request, reply, 500, INTERNAL);
}

/**
 * Answers on a bare socket (outside Fastify's reply) and closes it: for requests refused before or
 * while they arrive. Nothing is written when an answer to this request has already begun (a second
 * status line would corrupt it); the socket is closed either way.
 */
export function answerAndClose(socket: Socket, status: number, code: string, message: string, error?: Error) {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(errorBody({ code, message }));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (pass it as `clientErrorHandler`):
 * headers or URL over the size limit, a request that did not arrive within REQUEST_TIMEOUT, bytes
 * that are not HTTP. Same answer shape.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket) {
  // A reset connection has nobody left to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, code, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [
          431,
          "REQUEST_HEADER_FIELDS_TOO_LARGE",
          "The URL and headers are too large (16 KB at most); send long values in the body.",
        ]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "REQUEST_TIMEOUT", "The request took too long to arrive."]
        : [400, "BAD_REQUEST", "The request is not valid HTTP."];
  this.log.debug({ err: error }, "client error");
  answerAndClose(socket, status, code, message, error);
}

/** Every error a route or hook throws answers in the shape above; unknown paths get 404 in it too. */
export const errorHandlingPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      // E.g. the identity provider's keys out of reach while a hook checked the caller's token.
      if (error instanceof DomainError) return sendError(request, reply, statusForCode(error.code), error);
      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      // E.g. the database went away while the REST shim read the caller's token.
      const down = status === 500 ? databaseUnavailable(error) : null;
      if (down) {
        request.log.warn({ err: error }, "database unavailable");
        return sendError(request, reply, statusForCode(down.code), down);
      }
      if (status === 500) {
        request.log.error({ err: error }, "request failed");
        return sendError(request, reply, 500, INTERNAL);
      }
      return sendError(request, reply, status, { code: codeForStatus(status), message: messageFor(error) });
    });
    app.setNotFoundHandler((request, reply) => {
      answeredWithError(reply, "NOT_FOUND");
      return reply
        .code(404)
        .send(
          errorBody({ code: "NOT_FOUND", message: `No route for ${request.method} ${request.url.split("?")[0]}.` }),
        );
    });
  },
  { name: "error-handling", fastify: "5.x" },
);
