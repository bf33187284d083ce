// Errors that happen before a route's own code runs (bad JSON, too large, wrong content type,
// unknown path) answer in the same {"error": {...}} shape as everything else; never a stack trace.
import fp from "fastify-plugin";
import type { FastifyError, FastifyInstance } from "fastify";
import { errorBody } from "../rest/errors.ts";

const CODE_BY_STATUS: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMITED",
};

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

export const errorHandlingPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) {
      request.log.error({ err: error }, "request failed");
      return reply.code(500).send(errorBody({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error; it has been logged." }));
    }
    return reply.code(status).send(errorBody({ code: CODE_BY_STATUS[status] ?? "BAD_REQUEST", message: messageFor(error) }));
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody({ code: "NOT_FOUND", message: `No route for ${request.method} ${request.url.split("?")[0]}.` })),
  );
});
