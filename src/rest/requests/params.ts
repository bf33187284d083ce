// Row fields: short declarations for the route table, and the two steps every row goes through:
// request -> coerced values by legacy name (400 naming the field), values -> GraphQL variables.
import { badInput } from "../../contract/errors.ts";
import { text, type FieldKind } from "./fields.ts";
import type { FieldValues, RestParam, RestRequest, RestRoute } from "../route-row.ts";

type Options = Omit<RestParam, "name" | "in" | "kind">;

/** A path segment such as :restaurant_id (always required). */
export const inPath = (name: string, options: Options = {}): RestParam => ({
  name,
  in: "path",
  kind: text,
  required: true,
  ...options,
});
/** A query-string field (also read from the body). */
export const inQuery = (name: string, kind: FieldKind, options: Options = {}): RestParam => ({
  name,
  in: "query",
  kind,
  ...options,
});
/** A body field: JSON, urlencoded form or multipart (also read from the query string). */
export const inBody = (name: string, kind: FieldKind, options: Options = {}): RestParam => ({
  name,
  in: "body",
  kind,
  ...options,
});

function sentValue(param: RestParam, req: RestRequest): { as: string; value: unknown } | undefined {
  if (param.in === "path") return { as: param.name, value: req.params[param.name] };
  for (const as of [param.name, ...(param.aliases ?? [])]) if (req.has(as)) return { as, value: req.field(as) };
  return undefined;
}

/** Reads and coerces every field of the row; missing required fields and bad values -> 400 naming them. */
export function readValues(route: RestRoute, req: RestRequest): FieldValues {
  const values: FieldValues = {};
  const problems: { field: string; message: string }[] = [];
  for (const param of route.params) {
    const sent = sentValue(param, req);
    // An empty form field means "not given" for anything but text.
    let value = sent?.value;
    if (value === "" && param.kind !== text) value = undefined;
    if (value === undefined || (value === null && param.required)) {
      if (param.default !== undefined) values[param.name] = param.default;
      else if (param.required) problems.push({ field: param.name, message: `${param.name} is required` });
      continue;
    }
    try {
      values[param.name] = value === null ? null : param.kind.coerce(value, sent!.as);
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      problems.push({ field: param.name, message: error.message });
    }
  }
  if (problems.length) throw badInput(problems.map((p) => p.message).join("; "), { problems });
  return values;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** Sets `value` at a dotted path; an object value is merged into an object already there. */
function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const keys = path.split(".");
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (!isPlainObject(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1];
  if (isPlainObject(value) && isPlainObject(node[last])) Object.assign(node[last] as object, value);
  else node[last] = value;
}

function deepMerge(target: Record<string, unknown>, extra: Record<string, unknown>) {
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) continue;
    if (isPlainObject(value) && isPlainObject(target[key])) deepMerge(target[key] as Record<string, unknown>, value);
    else target[key] = value;
  }
  return target;
}

export function buildVariables(route: RestRoute, values: FieldValues): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const param of route.params) {
    if (param.to && Object.hasOwn(values, param.name)) setPath(variables, param.to, values[param.name]);
  }
  return route.variables ? deepMerge(variables, route.variables(values)) : variables;
}

/**
 * GraphQL names -> legacy names for this row, to translate error messages: both the full variable
 * path ("input.starRating") and the path inside the variable ("starRating", as the domain names it).
 */
export function legacyNames(route: RestRoute): Map<string, string> {
  const names = new Map<string, string>();
  for (const param of route.params) {
    if (!param.to) continue;
    names.set(param.to, param.name);
    const inner = param.to.split(".").slice(1).join(".");
    if (inner) names.set(inner, param.name);
  }
  return names;
}
