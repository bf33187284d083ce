// JSON bodies are UTF-8 (RFC 8259): any other bytes are refused with a 400 (see utf8.ts). Parsing
// is otherwise Fastify's own (prototype poisoning refused).
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { notUtf8, utf8Text } from "./utf8.ts";

/**
 * Replaces the application/json parser of `app`'s scope. With `emptyIsNone`, an empty body is no
 * body (legacy clients label bodiless requests as JSON); otherwise it is refused as Fastify does.
 */
export function utf8JsonParser(app: FastifyInstance, { emptyIsNone = false } = {}) {
  const parseJson = app.getDefaultJsonParser("error", "error");
  if (app.hasContentTypeParser("application/json")) app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const text = utf8Text(body as Buffer);
    if (text === undefined)
      return done(notUtf8("The body is not valid UTF-8 text; send JSON encoded as UTF-8."), undefined);
    if (text.length === 0 && emptyIsNone) return done(null, undefined);
    parseJson(request, text, done);
  });
}

/**
 * The whole server's JSON parser (the REST scope replaces it with its own, see
 * src/rest/requests/body-parsers.ts). Its 400s are answered in the API's error shape by error-handling.
 */
export const jsonBodyPlugin = fp(async (app: FastifyInstance) => utf8JsonParser(app), {
  name: "json-body",
  fastify: "5.x",
  dependencies: ["error-handling"],
});
