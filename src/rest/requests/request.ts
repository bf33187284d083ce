// Builds the RestRequest a row reads from a Fastify request: path params, query and body fields.
// Form, multipart and query keys in bracket notation are expanded the way legacy clients (PHP,
// jQuery, Rails) write them: `tags[]=a&tags[]=b`, `opening_hours[0][open]=08:00`, `address[city]=X`.
import type { FastifyRequest } from "fastify";
import { undecodableEscape } from "../../http/bodies/utf8.ts";
import type { RestRequest } from "../route-row.ts";

const asRecord = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

const BRACKETED = /^([^[\]]+)((?:\[[^[\]]*\])+)$/;
const UNSAFE = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Deepest bracket nesting a field name may have. Legacy clients use two levels
 * (`address[geo][lat]`, `opening_hours[0][open]`); a name 3,000 levels deep (9 KB) overflowed the
 * stack while being expanded (issue 13), so deeper names are refused before anything is built.
 */
export const MAX_KEY_DEPTH = 5;

/** How many `[` a field name holds: an upper bound on the levels it would expand to. */
function keyDepth(key: string): number {
  let depth = 0;
  for (let at = key.indexOf("["); at >= 0; at = key.indexOf("[", at + 1)) depth++;
  return depth;
}

/** Why these fields cannot be expanded (a name nested too deep), or null. */
function nestingProblem(fields: Record<string, unknown>, where: string): string | null {
  const key = Object.keys(fields).find((k) => keyDepth(k) > MAX_KEY_DEPTH);
  if (key === undefined) return null;
  const shown = key.length > 40 ? `${key.slice(0, 40)}…` : key;
  return `The ${where} has a field name nested ${keyDepth(key)} brackets deep ("${shown}"); at most ${MAX_KEY_DEPTH} levels are read, such as address[geo][lat].`;
}

type Node = Record<string, unknown>;

/** Containers built from bracketed keys (not JSON objects a client sent): finalized into arrays when all keys are indices. */
class Built {
  readonly entries: Node = Object.create(null);
  appended = 0;
}

function childOf(node: Built, segment: string): Built {
  const name = segment === "" ? String(node.appended++) : segment;
  const existing = node.entries[name];
  if (existing instanceof Built) return existing;
  const built = new Built();
  // `a=x&a[]=y`: the plain value becomes the list's first element.
  if (existing !== undefined)
    for (const v of Array.isArray(existing) ? existing : [existing]) built.entries[String(built.appended++)] = v;
  node.entries[name] = built;
  return built;
}

function put(node: Built, segment: string, value: unknown) {
  if (segment === "") {
    for (const v of Array.isArray(value) ? value : [value]) node.entries[String(node.appended++)] = v;
    return;
  }
  const existing = node.entries[segment];
  if (existing instanceof Built) {
    for (const v of Array.isArray(value) ? value : [value]) existing.entries[String(existing.appended++)] = v;
  } else node.entries[segment] = value;
}

function finalize(value: unknown): unknown {
  if (!(value instanceof Built)) return value;
  const keys = Object.keys(value.entries);
  if (keys.length && keys.every((k) => /^\d{1,6}$/.test(k))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => finalize(value.entries[k]));
  }
  return Object.fromEntries(keys.map((k) => [k, finalize(value.entries[k])]));
}

/** Expands bracketed keys; plain keys (and JSON values) are kept as they are. */
export function expandBrackets(flat: Record<string, unknown>): Record<string, unknown> {
  const root = new Built();
  for (const [key, value] of Object.entries(flat)) {
    if (keyDepth(key) > MAX_KEY_DEPTH) continue; // refused beforehand (nestingProblem); never expanded
    const m = BRACKETED.exec(key);
    const segments = m ? [m[1], ...[...m[2].matchAll(/\[([^[\]]*)\]/g)].map((s) => s[1])] : [key];
    if (segments.some((s) => UNSAFE.has(s))) continue;
    let node = root;
    for (const segment of segments.slice(0, -1)) node = childOf(node, segment);
    put(node, segments[segments.length - 1], value);
  }
  return Object.fromEntries(Object.keys(root.entries).map((k) => [k, finalize(root.entries[k])]));
}

/**
 * Why the query string cannot be read, or null. Its parser keeps an escape that is not UTF-8
 * ("?comment=caf%E9") as literal text, which a write would store changed and a search would miss.
 * A field name nested deeper than MAX_KEY_DEPTH is refused too.
 */
export function queryProblem(request: FastifyRequest): string | null {
  const at = request.url.indexOf("?");
  const escape = at < 0 ? undefined : undecodableEscape(request.url.slice(at + 1));
  if (escape)
    return `The query string has ${escape}, which is not UTF-8 once decoded; %-encode the UTF-8 bytes of the text.`;
  return nestingProblem(asRecord(request.query), "query string");
}

const FORM = /^application\/x-www-form-urlencoded\b/i;

/**
 * Why a parsed body cannot be read as fields, or null when it can (or there is none). A JSON array
 * or string would otherwise read as "no fields" (an edit changing nothing, a removal with no
 * `from`), and JSON sent as a form parses as one meaningless key. A field name (form, multipart
 * or JSON) nested deeper than MAX_KEY_DEPTH is refused too.
 */
export function bodyProblem(request: FastifyRequest, body: unknown): string | null {
  if (body === undefined) return null;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    const got = body === null ? "null" : Array.isArray(body) ? "an array" : `a ${typeof body}`;
    return `The body must be a JSON object of fields (or a form); got ${got}.`;
  }
  if (FORM.test(request.headers["content-type"] ?? "") && Object.keys(body).some((key) => /^\s*[{[]/.test(key))) {
    return "The body looks like JSON but is labelled application/x-www-form-urlencoded; send it with Content-Type: application/json.";
  }
  return nestingProblem(body as Record<string, unknown>, "body");
}

export function restRequest(request: FastifyRequest, sentBody: unknown = request.body): RestRequest {
  const query = expandBrackets(asRecord(request.query));
  const raw = asRecord(sentBody);
  // JSON objects carry their own structure; only keys with brackets (forms, multipart) are expanded.
  const body = Object.keys(raw).some((k) => k.includes("[")) ? expandBrackets(raw) : raw;
  const has = (name: string) => Object.hasOwn(body, name) || Object.hasOwn(query, name);
  return {
    params: asRecord(request.params) as Record<string, string>,
    query,
    body,
    has,
    field: (name) => (Object.hasOwn(body, name) ? body[name] : query[name]),
  };
}
