// application/x-www-form-urlencoded bodies (legacy clients: HTML forms, jQuery's default). The
// fields are parsed by fast-querystring, as @fastify/formbody does, but the text must be UTF-8,
// raw or %-escaped: @fastify/formbody would turn a Latin-1 byte into U+FFFD and keep "%E9" as
// those three characters, storing changed text without a word. Such a body gets a 400 (utf8.ts).
import { parse } from "fast-querystring";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { notUtf8, undecodableEscape, utf8Text } from "./utf8.ts";

async function formBody(app: FastifyInstance) {
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "buffer" }, (_request, body, done) => {
    const text = utf8Text(body as Buffer);
    if (text === undefined)
      return done(notUtf8("The form is not valid UTF-8 text; encode its fields as UTF-8."), undefined);
    const escape = undecodableEscape(text);
    if (escape)
      return done(
        notUtf8(`The form has ${escape}, which is not UTF-8 once decoded; %-encode the UTF-8 bytes of the text.`),
        undefined,
      );
    done(null, parse(text));
  });
}

// Its 400s are answered in the API's error shape by error-handling.
export const formBodyPlugin = fp(formBody, { name: "form-body", fastify: "5.x", dependencies: ["error-handling"] });
