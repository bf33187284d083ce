// Body parsers of the REST scope (encapsulated: /graphql keeps the server's). Legacy bodies are
// JSON, urlencoded forms (src/http/bodies/form-body.ts, registered for the whole server) or multipart.
import type { FastifyInstance } from "fastify";
import { utf8JsonParser } from "../../http/bodies/json-body.ts";

export function legacyBodyParsers(app: FastifyInstance) {
  // Fastify parses text/plain by default; here it gets 415 like any other unsupported type.
  app.removeContentTypeParser("text/plain");

  // Legacy clients often send Content-Type: application/json on requests without a body (DELETE,
  // PUT to add to the shopping list): that is no body, not malformed JSON. Anything else is parsed
  // as strictly as Fastify does (prototype poisoning refused), and must be UTF-8.
  utf8JsonParser(app, { emptyIsNone: true });
}
