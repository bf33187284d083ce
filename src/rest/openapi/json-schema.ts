// Tiny JSON Schema builders (OpenAPI 3.1 dialect) for the legacy shapes and request fields, so
// each shape file states its schema next to the function that builds it.
export type JsonSchema = { [key: string]: unknown };

export const string = (extra: JsonSchema = {}): JsonSchema => ({ type: "string", ...extra });
export const integer = (extra: JsonSchema = {}): JsonSchema => ({ type: "integer", ...extra });
export const number = (extra: JsonSchema = {}): JsonSchema => ({ type: "number", ...extra });
export const boolean = (extra: JsonSchema = {}): JsonSchema => ({ type: "boolean", ...extra });
export const arrayOf = (items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({ type: "array", items, ...extra });

/** The same schema, also allowing null (a value the resource does not have). */
export function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === "string") return { ...schema, type: [schema.type, "null"] };
  return { anyOf: [schema, { type: "null" }] };
}

/** An answer object: every listed field is always present (null when the resource has no value). */
export const answer = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});

/** A request object: fields are optional unless listed in `required`. */
export const fields = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: "object",
  properties,
  ...(required.length ? { required } : {}),
});
