// The shape of one row of the REST route table: a legacy method + path, the GraphQL operation it
// runs, how request fields become variables and how the result becomes the legacy answer.
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a row sees of a request: path parameters, query string and body fields, merged by the shim. */
export type RestRequest = {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  /** Query then body: the first place a field appears wins for `field()`. */
  field(name: string): unknown;
  has(name: string): boolean;
};

export type RestRoute = {
  /** The operation's name in the legacy interface, e.g. "Add restaurant". */
  operation: string;
  method: HttpMethod;
  /** Fastify-style path, e.g. /restaurants/:restaurant_id */
  path: string;
  /** For method+path pairs shared by several operations: does this request mean this row? Rows are tried in order. */
  when?: (req: RestRequest) => boolean;
  /** The GraphQL operation (parsed and validated once at start-up). */
  document: string;
  variables: (req: RestRequest) => Record<string, unknown>;
  status: number;
  /** The legacy body made from the operation's data; absent for answers without a body (204). */
  body?: (data: Record<string, any>, req: RestRequest) => unknown;
};
