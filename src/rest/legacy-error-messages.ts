// Errors from a row's GraphQL operation, told in the legacy field names: a REST client sent
// `star_rating`, so it should read "star_rating must be ...", not "input.starRating".
import { GraphQLError } from "graphql";
import type { ClientError } from "../contract/errors.ts";
import { toClientError } from "../graphql/execution/client-errors.ts";

type Names = Map<string, string>;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** "input.openingHours[0].open" -> "opening_hours[0].open" (longest known prefix renamed). */
export function legacyPath(path: string, names: Names): string {
  const segments = path
    .replace(/\[(\d+)\]/g, ".$1")
    .split(".")
    .filter(Boolean);
  for (let k = segments.length; k > 0; k--) {
    const legacy = names.get(segments.slice(0, k).join("."));
    if (legacy === undefined) continue;
    return (
      legacy +
      segments
        .slice(k)
        .map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`))
        .join("")
    );
  }
  return path;
}

/** Renames GraphQL field names and paths ("filter.title") that appear as words in a free-text message. */
function renameWords(message: string, names: Names): string {
  const pairs = [...names].filter(([gql, legacy]) => gql !== legacy);
  if (!pairs.length) return message;
  const lookup = new Map(pairs);
  const words = pairs.map(([gql]) => gql).sort((a, b) => b.length - a.length);
  return message.replace(standaloneWords(words), (w) => lookup.get(w) ?? w);
}

/**
 * Any of `words` standing alone (not part of a longer name, not quoted). An alternation of
 * literal words with one-character look-arounds: matching stays linear in the message (test/hardening/redos.test.ts checks it).
 */
export function standaloneWords(words: string[]): RegExp {
  return new RegExp(`(?<![\\w.$"])(${words.map(escape).join("|")})(?![\\w"])`, "g");
}

const INVALID_AT = /^Variable "\$(\w+)" got invalid value [\s\S]*? at "([^"]+)"; ([\s\S]*)$/;
const INVALID = /^Variable "\$(\w+)" got invalid value [\s\S]*?; ([\s\S]*)$/;
const MISSING = /^Variable "\$(\w+)" of (?:required|non-null) type "[^"]+" (?:was not provided|must not be null)\.$/;

/** graphql-js's own variable-coercion messages, which carry the variable path. */
function coercionError(message: string, names: Names): ClientError | null {
  let m = INVALID_AT.exec(message);
  if (m) return { code: "BAD_USER_INPUT", message: `${legacyPath(m[2], names)}: ${renameWords(m[3], names)}` };
  m = INVALID.exec(message);
  if (m) return { code: "BAD_USER_INPUT", message: `${legacyPath(m[1], names)}: ${renameWords(m[2], names)}` };
  m = MISSING.exec(message);
  if (m) return { code: "BAD_USER_INPUT", message: `${legacyPath(m[1], names)} is required` };
  return null;
}

type Problem = { field: string; message: string };
const isProblems = (v: unknown): v is Problem[] =>
  Array.isArray(v) && v.every((p) => p && typeof p.field === "string" && typeof p.message === "string");

/** The client-safe error in legacy names, or null for an internal error (to be logged, not shown). */
export function legacyError(error: unknown, names: Names): ClientError | null {
  if (error instanceof GraphQLError && error.message.startsWith('Variable "$')) {
    const coercion = coercionError(error.message, names);
    if (coercion) return coercion;
  }
  const known = toClientError(error);
  if (!known) return null;
  const details = known.details ? { ...known.details } : undefined;
  if (details && typeof details.field === "string") details.field = legacyPath(details.field, names);
  if (details && isProblems(details.problems)) {
    const problems = details.problems.map((p) => ({
      field: legacyPath(p.field, names),
      message: renameWords(p.message, names),
    }));
    details.problems = problems;
    const message = problems
      .map((p) => (p.message.includes(p.field) || !p.field ? p.message : `${p.field}: ${p.message}`))
      .join("; ");
    return { ...known, message, details };
  }
  return { ...known, message: renameWords(known.message, names), ...(details ? { details } : {}) };
}
