// The OpenAPI 3.1 document of the REST interface, derived from the route table: each row's
// fields (kind -> schema, where they go), response schema and status. Rows sharing a method +
// path become one operation that describes each of them and the rule telling them apart.
// Descriptions sit on the parameter objects (Swagger UI shows those, not a schema's), and each
// operation carries a request from the demo data (src/contract/examples.ts), which /docs fills in.
import { codesWithStatus, ERROR_CODES } from "../../contract/error-codes.ts";
import { REST_EXAMPLES, type RestExample } from "../../contract/examples.ts";
import { packageManifest } from "../../package-manifest.mjs";
import { file } from "../requests/fields.ts";
import type { JsonSchema } from "./json-schema.ts";
import { editFields } from "../requests/empty-edit.ts";
import { servedPrefixes } from "../plugin.ts";
import type { RestParam, RestRoute } from "../route-row.ts";
import { errorSchema } from "../shapes/error.ts";

/** The error answers a route may give, named; each is described from the codes of its status (src/contract/error-codes.ts). */
const ERROR_NAMES: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthenticated",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  429: "RateLimited",
  507: "InsufficientStorage",
};

const ERRORS: Record<number, [name: string, description: string]> = Object.fromEntries(
  Object.entries(ERROR_NAMES).map(([status, name]) => [
    status,
    [
      name,
      codesWithStatus(Number(status))
        .map((code) => `${code}: ${ERROR_CODES[code].meaning}`)
        .join(" "),
    ],
  ]),
);

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

const camel = (words: string) =>
  words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0].toUpperCase() + w.slice(1).toLowerCase()))
    .join("");

function describe(param: RestParam): JsonSchema {
  const notes = [
    param.description,
    param.aliases?.length ? `also accepted as ${param.aliases.join(", ")}` : undefined,
  ].filter(Boolean);
  return {
    ...param.kind.schema,
    ...(notes.length ? { description: notes.join("; ") } : {}),
    ...(param.default !== undefined && typeof param.default !== "string" ? { default: param.default } : {}),
  };
}

/** The example request of a row, if src/contract/examples.ts has one. */
const exampleOf = (row: RestRoute): RestExample => REST_EXAMPLES[row.operation] ?? {};

/** A parameter object: the description beside the schema, where Swagger UI shows it, and the example. */
function parameterObject(p: RestParam, where: "path" | "query", required: boolean, example: unknown) {
  const { description, ...schema } = describe(p);
  return {
    name: p.name,
    in: where,
    required,
    ...(description ? { description } : {}),
    schema,
    ...(example !== undefined ? { example } : {}),
  };
}

function bodySchema(row: RestRoute, multipart: boolean, options: OpenApiOptions): JsonSchema {
  const fields = row.params.filter((p) => p.in === "body" && (multipart || !p.kind.multipartOnly));
  const properties: Record<string, JsonSchema> = Object.fromEntries(fields.map((p) => [p.name, describe(p)]));
  if (options.tokenNeeded(row) !== "no")
    properties.access_token = {
      type: "string",
      description: "the access token, when not sent as Authorization: Bearer",
    };
  const required = fields.filter((p) => p.required).map((p) => p.name);
  return {
    type: "object",
    ...(row.whenText ? { title: row.operation } : {}),
    properties,
    ...(required.length ? { required } : {}),
  };
}

/** The rows' example bodies: one `example`, or named `examples` when rows share the path. */
function bodyExamples(rows: RestRoute[]) {
  const given = rows.filter((r) => exampleOf(r).body);
  if (given.length === 0) return {};
  if (rows.length === 1) return { example: exampleOf(rows[0]!).body };
  return {
    examples: Object.fromEntries(
      given.map((r) => [camel(r.operation), { summary: r.operation, value: exampleOf(r).body }]),
    ),
  };
}

function requestBody(rows: RestRoute[], options: OpenApiOptions) {
  const either = (schemas: JsonSchema[]) => (schemas.length === 1 ? schemas[0] : { anyOf: schemas });
  const withFile = rows.some((r) => r.params.some((p) => p.kind.multipartOnly));
  const plain = either(rows.map((r) => bodySchema(r, false, options)));
  const examples = bodyExamples(rows);
  return {
    required: rows.every((r) => r.params.some((p) => p.in === "body" && p.required)),
    content: {
      "application/json": { schema: plain, ...examples },
      "application/x-www-form-urlencoded": { schema: plain, ...examples },
      ...(withFile
        ? { "multipart/form-data": { schema: either(rows.map((r) => bodySchema(r, true, options))), ...examples } }
        : {}),
    },
  };
}

function parameters(rows: RestRoute[], method: string) {
  const seen = new Map<string, object>();
  // The first row's example that sets a parameter (rows sharing a path show one request's values).
  const example = (name: string, where: "path" | "query") =>
    rows.map((r) => exampleOf(r)[where]?.[name]).find((v) => v !== undefined);
  for (const row of rows) {
    for (const p of row.params) {
      if (seen.has(p.name)) continue;
      if (p.in === "path") seen.set(p.name, parameterObject(p, "path", true, example(p.name, "path")));
      else if (p.in === "query" || !BODY_METHODS.has(method)) {
        const required = rows.every((r) => r.params.some((q) => q.name === p.name && q.required));
        seen.set(p.name, parameterObject(p, "query", required, example(p.name, "query")));
      }
    }
  }
  return [...seen.values()];
}

function responses(rows: RestRoute[], method: string, options: OpenApiOptions) {
  const answers: Record<string, object> = {};
  for (const row of rows) {
    const key = String(row.status);
    const previous = answers[key] as { description: string } | undefined;
    const description = previous ? `${previous.description}; ${row.operation}` : row.operation;
    answers[key] = {
      description,
      ...(row.response ? { content: { "application/json": { schema: row.response } } } : {}),
    };
  }
  const isPublic = rows.every((r) => options.tokenNeeded(r) === "no");
  const takesFile = rows.some((r) => r.params.some((p) => p.kind === file));
  const statuses = [
    400,
    ...(isPublic ? [409] : [401, 403, 404]),
    ...(BODY_METHODS.has(method) ? [413, 415] : []),
    429,
    ...(takesFile ? [507] : []),
  ];
  for (const status of statuses) answers[String(status)] = { $ref: `#/components/responses/${ERRORS[status][0]}` };
  return answers;
}

/** What the served document depends on beyond the route table. */
export type OpenApiOptions = {
  /** REST_PREFIXES: the other roots every path answers under. */
  prefixes: string[];
  /**
   * Whether a row needs a token: "no" (its fields are @public), "optional" (ANONYMOUS_READS is on
   * and its fields are anonymousReads) or "yes"; read from the schema's declarations.
   */
  tokenNeeded: (row: RestRoute) => "no" | "optional" | "yes";
  /** Rows that refuse a request carrying none of their fields (edits; see requests/empty-edit.ts). */
  needsAField?: (row: RestRoute) => boolean;
};

/** An empty security requirement makes the token optional (OpenAPI 3.1). */
const TOKEN_OPTIONAL = [{ bearer: [] }, { accessTokenQuery: [] }, {}];

function operation(rows: RestRoute[], options: OpenApiOptions) {
  const { method } = rows[0];
  const anonymous = rows.every((r) => options.tokenNeeded(r) === "optional");
  const names = rows.map((r) => r.operation);
  const description = [
    ...rows.map((r) => {
      const needs = options.needsAField?.(r)
        ? ` A request must carry at least one of: ${editFields(r).join(", ")} (else 400).`
        : "";
      return `**${r.operation}**${r.whenText ? ` (${r.whenText})` : ""}: ${r.summary} Answers ${r.status}.${needs}`;
    }),
    ...(anonymous
      ? [
          "No token is needed: the service runs with ANONYMOUS_READS=true (an anonymous caller sees what every user sees).",
        ]
      : []),
    "Fields other than path segments may be sent in the body or the query string.",
  ].join("\n\n");
  return {
    operationId: camel(names.join(" or ")),
    summary: names.join(" / "),
    description,
    tags: [rows[0].tag],
    "x-legacy-operations": names,
    ...(rows.every((r) => options.tokenNeeded(r) === "no")
      ? { security: [] }
      : anonymous
        ? { security: TOKEN_OPTIONAL }
        : {}),
    parameters: parameters(rows, method),
    ...(BODY_METHODS.has(method) ? { requestBody: requestBody(rows, options) } : {}),
    responses: responses(rows, method, options),
  };
}

export function openApiDocument(routes: RestRoute[], options: OpenApiOptions) {
  const paths: Record<string, Record<string, object>> = {};
  const groups = new Map<string, RestRoute[]>();
  for (const row of routes) {
    const key = `${row.method} ${row.path}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  for (const rows of groups.values()) {
    const path = openApiPath(rows[0].path);
    (paths[path] ??= {})[rows[0].method.toLowerCase()] = operation(rows, options);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Restaurants and groceries: legacy REST interface",
      version: packageManifest.version,
      description:
        "The legacy REST paths, answered by the GraphQL gateway (/graphql is the full API). Paths answer with and " +
        `without a trailing slash${options.prefixes.length ? `, and under ${options.prefixes.join(", ")}` : ""}. ` +
        "Requests may be JSON, urlencoded forms or multipart/form-data; " +
        "lists may be sent as repeated keys, `key[]` or JSON arrays; booleans as true/false/1/0. The access token " +
        "is read from Authorization: Bearer, the access_token query parameter, or an access_token body field. " +
        "The examples are requests on the demo data (`npm run seed`); the edits and removals name what its " +
        "user `demo` owns (password `demo-password`, or SEED_PASSWORD).",
    },
    servers: servedPrefixes(options.prefixes).map((prefix) => ({
      url: prefix || "/",
      description: prefix ? "the same routes under a prefix" : "legacy paths",
    })),
    tags: [
      { name: "accounts", description: "Accounts and access tokens" },
      { name: "restaurants", description: "Restaurants, comments and orders" },
      { name: "groceries", description: "Groceries and the shopping list" },
    ],
    security: [{ bearer: [] }, { accessTokenQuery: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "Authorization: Bearer <access token>" },
        accessTokenQuery: { type: "apiKey", in: "query", name: "access_token" },
      },
      schemas: { Error: errorSchema },
      responses: Object.fromEntries(
        Object.values(ERRORS).map(([name, description]) => [
          name,
          { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        ]),
      ),
    },
  };
}
