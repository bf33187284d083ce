// The shape of one row of the REST route table: a legacy method + path, the fields it reads, the
// GraphQL operation it runs, and how the result becomes the legacy status and body. The same
// rows drive the HTTP routes and the OpenAPI document.
import type { RouteResults } from "../graphql/__generated__/rest-routes.ts";
import type { FieldKind } from "./requests/fields.ts";
import type { JsonSchema } from "./openapi/json-schema.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a row sees of a request: path parameters, query string and body fields (bracketed keys expanded). */
export type RestRequest = {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  /** A body field, else the query parameter of that name. */
  field(name: string): unknown;
  /** Whether the body or the query string carries `name`. */
  has(name: string): boolean;
};

/**
 * One legacy request field. Path fields come from the path; every other field is read from the
 * body, else from the query string (legacy clients use both). `in` says where it is documented.
 */
export type RestParam = {
  name: string;
  in: "path" | "query" | "body";
  kind: FieldKind;
  required?: boolean;
  /** Other names accepted for the same field (e.g. item_id for recipe). */
  aliases?: string[];
  /** Used when the field is absent (already a GraphQL value). */
  default?: unknown;
  description?: string;
  /** Where the value goes among the GraphQL variables, e.g. "input.starRating". */
  to?: string;
};

/** Coerced field values by legacy name (absent fields are missing, null clears). */
export type FieldValues = Record<string, unknown>;

/** Every row's `operation` name (scripts/codegen.ts lists them with their document's result type). */
export type RouteName = keyof RouteResults;

/** The row named `Name`: its `body` reads the result type generated for its own document. */
export type RestRouteOf<Name extends RouteName> = {
  /** The operation's name in the legacy interface, e.g. "Add restaurant". */
  operation: Name;
  /** One sentence for the OpenAPI document. */
  summary: string;
  tag: "accounts" | "restaurants" | "groceries";
  method: HttpMethod;
  /** Fastify-style path, e.g. /restaurants/:restaurant_id */
  path: string;
  /** For method+path pairs shared by several operations: does this request mean this row? Rows are tried in order. */
  when?: (req: RestRequest) => boolean;
  /** The `when` rule in words, for the OpenAPI document. */
  whenText?: string;
  params: RestParam[];
  /** The GraphQL operation (parsed and validated once at start-up). */
  document: string;
  /** Variables beyond those the params' `to` set (computed ones), merged over them. */
  variables?: (values: FieldValues) => Record<string, unknown>;
  status: number;
  /** JSON Schema of the legacy body; absent for answers without a body (204). */
  response?: JsonSchema;
  /** The legacy body made from the operation's data; may throw a DomainError (e.g. NOT_FOUND for a null get). */
  body?: (data: RouteResults[Name], values: FieldValues) => unknown;
  /**
   * Added to the 400 of a request that carries none of an edit's fields (see requests/empty-edit.ts),
   * e.g. where a payload meant for another operation should go.
   */
  emptyEditHint?: string;
  /** For another spelling of a row (see `aliasOf`): the operation it spells. */
  aliasOf?: string;
};

/**
 * Any row of the table: one member per row name, so a row written as an object literal gets its
 * `body`'s data type from its own `operation`, and naming a row that codegen does not know fails.
 */
export type RestRoute = { [Name in RouteName]: RestRouteOf<Name> }[RouteName];

/** The row's legacy body for the data its document answered (undefined for a row without body). */
export function legacyBody(row: RestRoute, data: unknown, values: FieldValues): unknown {
  // The data is what executing this row's own document answered: its generated result type.
  const body = row.body as ((data: unknown, values: FieldValues) => unknown) | undefined;
  return body ? body(data, values) : undefined;
}

/**
 * The same row under another method and path (the original documentation's spellings): the same
 * fields, GraphQL document and token rule, so the same validation, rate limits and login throttle.
 * `changes` may give the alias its own status and answer.
 */
export function aliasOf<Name extends RouteName>(
  row: RestRouteOf<Name>,
  changes: Pick<RestRouteOf<Name>, "method" | "path"> &
    Partial<Pick<RestRouteOf<Name>, "status" | "response" | "body">>,
): RestRoute {
  const { body, response, ...rest } = row;
  // "<Name> (alias)" runs the same document, so codegen gives it the same result type as the row.
  return {
    ...rest,
    ...("body" in changes || "status" in changes ? {} : { body, response }),
    ...changes,
    operation: `${row.operation} (alias)`,
    summary: `Another path for ${row.operation} (${row.method} ${row.path}), from the original service's documentation. ${row.summary}`,
    aliasOf: row.operation,
  } as RestRoute;
}
