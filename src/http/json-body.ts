// JSON bodies are UTF-8 (RFC 8259). Node would decode any other bytes to U+FFFD and the text would
// be stored changed without a word (a Latin-1 "café" becoming "caf\uFFFD"): such a body is refused
// with a 400 instead. Parsing is otherwise Fastify's own (prototype poisoning refused).
import type { FastifyInstance } from "fastify";

const utf8 = new TextDecoder("utf-8", { fatal: true });

const notUtf8 = () =>
  Object.assign(new Error("The body is not valid UTF-8 text; send JSON encoded as UTF-8."), { statusCode: 400, code: "FST_ERR_CTP_INVALID_UTF8" });

/**
 * Replaces the application/json parser of `app`'s scope. With `emptyIsNone`, an empty body is no
 * body (legacy clients label bodiless requests as JSON); otherwise it is refused as Fastify does.
 */
export function utf8JsonParser(app: FastifyInstance, { emptyIsNone = false } = {}) {
  const parseJson = app.getDefaultJsonParser("error", "error");
  if (app.hasContentTypeParser("application/json")) app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(notUtf8(), undefined);
    }
    if (text.length === 0 && emptyIsNone) return done(null, undefined);
    parseJson(request, text, done);
  });
}
