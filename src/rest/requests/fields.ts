// Field kinds: how a value a legacy client sent (a string from a form, query string or multipart
// field, or a JSON value) becomes the GraphQL value, with a 400 naming the legacy field when it
// cannot. Each kind also carries its JSON Schema for the OpenAPI document.
// Business rules (lengths, ranges, allowed values) stay behind the resolvers: kinds only convert.
import { badInput } from "../../contract/errors.ts";
import * as schema from "../openapi/json-schema.ts";
import type { JsonSchema } from "../openapi/json-schema.ts";
import { isReceivedFile, toUpload } from "./received-file.ts";

export type FieldKind = {
  /** The value as documented (OpenAPI). */
  schema: JsonSchema;
  /** Sent value -> GraphQL value; throws BAD_USER_INPUT naming `name`. Never sees undefined or null. */
  coerce(value: unknown, name: string): unknown;
  /** Kinds whose values cannot come from a urlencoded form (files). */
  multipartOnly?: boolean;
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !isReceivedFile(v);

function notAFile(value: unknown, name: string) {
  if (isReceivedFile(value)) throw badInput(`${name} must be text, not a file`);
}

/** A single value: a repeated key (["a", "b"]) is refused, a one-element array is taken as its element. */
function single(value: unknown, name: string): unknown {
  if (!Array.isArray(value)) return value;
  if (value.length === 1) return value[0];
  throw badInput(`${name} must be a single value, not a list`);
}

/** A JSON document carried in a text field (e.g. `opening_hours=[{"open":"08:00","close":"12:00"}]`). */
function parseJsonText(text: string, name: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badInput(`${name} must be ${what}; its text is not valid JSON`);
  }
}

export const text: FieldKind = {
  schema: schema.string(),
  coerce(value, name) {
    const v = single(value, name);
    notAFile(v, name);
    if (typeof v === "string") return v;
    if (typeof v === "number" || typeof v === "boolean") return String(v);
    throw badInput(`${name} must be a string`);
  },
};

const INTEGER = /^[+-]?\d{1,15}$/;
// Each character has one place to go (the fraction only after a dot), so matching is linear;
// `\d+\.?\d*` would split a run of digits every possible way before failing (issue 13).
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
/** No number a client means is longer ("-123.456789012345678e-10" is 25); longer text is refused unread. */
export const MAX_NUMBER_TEXT = 32;

/** The trimmed text of a number sent as a string, refused (naming the field) when too long to be one. */
function numberText(v: string, name: string, what: string): string {
  if (v.length > MAX_NUMBER_TEXT)
    throw badInput(`${name} must be ${what} of at most ${MAX_NUMBER_TEXT} characters, got ${v.length} characters`);
  return v.trim();
}

export const integer: FieldKind = {
  schema: schema.integer(),
  coerce(value, name) {
    const v = single(value, name);
    if (typeof v === "number" && Number.isSafeInteger(v)) return v;
    if (typeof v === "string" && INTEGER.test(numberText(v, name, "a whole number"))) return Number(v.trim());
    throw badInput(`${name} must be a whole number, got ${JSON.stringify(v)?.slice(0, 40) ?? "a file"}`);
  },
};

export const decimal: FieldKind = {
  schema: schema.number(),
  coerce(value, name) {
    const v = single(value, name);
    if (typeof v === "number" && Number.isFinite(v)) return v;
    if (typeof v === "string" && DECIMAL.test(numberText(v, name, "a number")) && Number.isFinite(Number(v.trim())))
      return Number(v.trim());
    throw badInput(`${name} must be a number such as 4 or 4.5, got ${JSON.stringify(v)?.slice(0, 40) ?? "a file"}`);
  },
};

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);

export const boolean: FieldKind = {
  schema: schema.boolean(),
  coerce(value, name) {
    const v = single(value, name);
    if (typeof v === "boolean") return v;
    if (v === 1 || v === 0) return v === 1;
    if (typeof v === "string") {
      const key = v.trim().toLowerCase();
      if (TRUE.has(key)) return true;
      if (FALSE.has(key)) return false;
    }
    throw badInput(`${name} must be true or false (or 1 / 0), got ${JSON.stringify(v)?.slice(0, 40) ?? "a file"}`);
  },
};

/** A list: a JSON array, repeated keys or `key[]`, a JSON-array string, or one value (a list of one). */
function listOf(item: FieldKind, itemName = "a list"): FieldKind {
  return {
    schema: schema.arrayOf(item.schema),
    coerce(value, name) {
      let v = value;
      if (typeof v === "string") {
        const trimmed = v.trim();
        if (trimmed === "") return [];
        if (trimmed.startsWith("[")) v = parseJsonText(trimmed, name, itemName);
      }
      const items = Array.isArray(v) ? v : [v];
      return items.map((element, i) => {
        if (element === null || element === undefined) throw badInput(`${name}[${i}] must not be null`);
        if (Array.isArray(element)) throw badInput(`${name}[${i}] must be a single value, not a list`);
        return item.coerce(element, `${name}[${i}]`);
      });
    },
  };
}

export const textList = listOf(text, "a list of strings");

/** One of a few legacy words, mapped to its GraphQL enum value (case-insensitive). */
export function choice(values: Record<string, string>): FieldKind {
  const documented = [...new Set(Object.keys(values))];
  return {
    schema: schema.string({ enum: documented }),
    coerce(value, name) {
      const v = single(value, name);
      const key = typeof v === "string" ? v.trim().toLowerCase() : undefined;
      if (key !== undefined && Object.hasOwn(values, key)) return values[key];
      throw badInput(`${name} must be one of ${documented.join(", ")}`);
    },
  };
}

/** An object given as JSON, as bracketed form keys (`address[city]=...`) or as a JSON string. */
function objectOf(fieldKinds: Record<string, { kind: FieldKind; aliases?: string[] }>, what: string): FieldKind {
  const properties = Object.fromEntries(Object.entries(fieldKinds).map(([k, f]) => [k, f.kind.schema]));
  return {
    schema: schema.fields(properties),
    coerce(value, name) {
      if (Array.isArray(value)) throw badInput(`${name} must be ${what}, not a list`);
      let v = value;
      if (typeof v === "string") v = parseJsonText(v, name, what);
      if (!isPlainObject(v)) throw badInput(`${name} must be ${what}`);
      const result: Record<string, unknown> = {};
      for (const [key, { kind, aliases = [] }] of Object.entries(fieldKinds)) {
        const sentAs = [key, ...aliases].find((k) => Object.hasOwn(v, k));
        if (sentAs === undefined) continue;
        const raw = v[sentAs];
        result[key] = raw === null || raw === "" ? null : kind.coerce(raw, `${name}.${sentAs}`);
      }
      return result;
    },
  };
}

/** "08:00 - 12:00" is 13 characters; room for generous spacing, none for a megabyte. */
const MAX_PERIOD_TEXT = 64;

/** "HH:MM-HH:MM" (the detail's own format) or {open, close}: clients may send back what they read. */
function openingPeriod(): FieldKind {
  const asObject = objectOf(
    { open: { kind: text }, close: { kind: text } },
    'an object {"open": "HH:MM", "close": "HH:MM"}',
  );
  return {
    schema: schema.fields(
      { open: schema.string({ pattern: "^\\d{2}:\\d{2}$" }), close: schema.string({ pattern: "^\\d{2}:\\d{2}$" }) },
      ["open", "close"],
    ),
    coerce(value, name) {
      if (typeof value === "string" && value.length > MAX_PERIOD_TEXT) {
        throw badInput(
          `${name} must be "HH:MM-HH:MM" of at most ${MAX_PERIOD_TEXT} characters, got ${value.length} characters`,
        );
      }
      if (typeof value === "string" && !value.trim().startsWith("{")) {
        const m = /^\s*([^-\s]+)\s*-\s*([^-\s]+)\s*$/.exec(value);
        if (!m) throw badInput(`${name} must be {"open": "HH:MM", "close": "HH:MM"} or "HH:MM-HH:MM"`);
        return { open: m[1], close: m[2] };
      }
      return asObject.coerce(value, name);
    },
  };
}

export const openingHours = listOf(openingPeriod(), "a list of opening periods");

const geo = objectOf(
  { latitude: { kind: decimal, aliases: ["lat"] }, longitude: { kind: decimal, aliases: ["lng", "lon"] } },
  "an object {latitude, longitude}",
);

export const address = objectOf(
  {
    addressLine1: { kind: text, aliases: ["address_line1", "address_line_1"] },
    addressLine2: { kind: text, aliases: ["address_line2", "address_line_2"] },
    landmark: { kind: text },
    state: { kind: text },
    city: { kind: text },
    district: { kind: text },
    country: { kind: text },
    geo: { kind: geo },
    timeZone: { kind: text, aliases: ["time_zone"] },
  },
  "an address object",
);

export const contact = objectOf({ email: { kind: text }, phone: { kind: text } }, "an object {email, phone}");

/** A file sent as a multipart/form-data part; becomes the same Upload value /graphql would give. */
export const file: FieldKind = {
  schema: schema.string({
    contentMediaType: "application/octet-stream",
    description: "a file part of a multipart/form-data body",
  }),
  multipartOnly: true,
  coerce(value, name) {
    const v = single(value, name);
    if (isReceivedFile(v)) return toUpload(v);
    throw badInput(`${name} must be a file sent as a multipart/form-data part`);
  },
};
