// Text arrives as UTF-8 (JSON by RFC 8259, forms and query strings by the URL standard). Node and
// the usual parsers decode other bytes to U+FFFD, or keep an undecodable %-escape as its literal
// text, so a Latin-1 "café" would be stored changed without a word. These checks let the body
// parsers and the REST shim refuse such text with a 400 instead.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as text, or undefined when they are not UTF-8. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

// A run of %-escapes: the bytes of one or more characters, which must decode together.
const ESCAPE_RUN = /(?:%[0-9a-fA-F]{2})+/g;

/** The first run of %-escapes in `text` whose bytes are not UTF-8 (e.g. "%E9"), if any. */
export function undecodableEscape(text: string): string | undefined {
  if (!text.includes("%")) return undefined;
  for (const [run] of text.matchAll(ESCAPE_RUN)) {
    if (utf8Text(Buffer.from(run.replaceAll("%", ""), "hex")) === undefined) return run;
  }
  return undefined;
}

/** A 400 error for a body that is not UTF-8 text, shaped as Fastify's own parser errors. */
export const notUtf8 = (message: string) =>
  Object.assign(new Error(message), { statusCode: 400, code: "FST_ERR_CTP_INVALID_UTF8" });
