// The operation a request to /graphql carries, read once, from a POST's JSON body or a GET's
// query string (as Apollo Server reads them: each GET parameter once, `variables` and
// `extensions` as JSON objects). A request this server does not read first (a batch, a GET whose
// parameters Apollo would refuse) is left whole to Apollo, which answers it.
//
// When the document came by id (src/graphql/persisted) Apollo is handed the same request with
// the text in its place (`forApollo`): Apollo's own persisted queries are off, so every id is
// looked up, bounded and trusted in one place.
import type { FastifyRequest } from "fastify";
import type { OperationText } from "../execution/operation.ts";

export type SentOperation = OperationText & { extensions?: unknown };

/**
 * The parts of an HTTP request Apollo reads the operation from (apollo-handler.ts), and the hash
 * to register its text under once admitted (automatic persisted queries).
 */
export type ApolloRequestParts = { body?: unknown; search?: string; register?: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Fields naming the document by id, never passed on to Apollo. */
const ID_FIELDS = ["documentId", "doc_id"];

function searchOf(request: FastifyRequest): string {
  const at = request.url.indexOf("?");
  return at < 0 ? "" : request.url.slice(at);
}

/** A GET parameter's JSON object, undefined when absent, null when Apollo would refuse it. */
function jsonParameter(value: string | undefined): Record<string, unknown> | undefined | null {
  if (value === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** The operation of a GET or POST to /graphql, or undefined when Apollo should read the request itself. */
export function sentOperation(request: FastifyRequest): SentOperation | undefined {
  if (request.method === "POST") return isRecord(request.body) ? request.body : undefined;
  if (request.method !== "GET") return undefined;
  const parameters = new URLSearchParams(searchOf(request));
  const once: Record<string, string | undefined> = {};
  for (const name of ["query", "operationName", "variables", "extensions", ...ID_FIELDS]) {
    const values = parameters.getAll(name);
    if (values.length > 1) return undefined;
    once[name] = values[0];
  }
  const variables = jsonParameter(once.variables);
  const extensions = jsonParameter(once.extensions);
  if (variables === null || extensions === null) return undefined;
  return {
    query: once.query,
    operationName: once.operationName,
    variables,
    extensions,
    documentId: once.documentId,
    doc_id: once.doc_id,
  };
}

/** The extensions Apollo sees: the persisted query's taken out (none left: undefined). */
function extensionsForApollo(extensions: unknown): Record<string, unknown> | undefined {
  if (!isRecord(extensions)) return undefined;
  const { persistedQuery: _named, ...rest } = extensions;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** The request as Apollo should read it: with `text` as its query and no id. */
export function forApollo(
  request: FastifyRequest,
  sent: SentOperation,
  text: string,
  register: string | undefined,
): ApolloRequestParts {
  const extensions = extensionsForApollo(sent.extensions);
  if (request.method === "POST") {
    const body: Record<string, unknown> = { ...(request.body as Record<string, unknown>), query: text, extensions };
    for (const field of ID_FIELDS) delete body[field];
    if (extensions === undefined) delete body.extensions;
    return { body, register };
  }
  const parameters = new URLSearchParams(searchOf(request));
  parameters.set("query", text);
  for (const field of ID_FIELDS) parameters.delete(field);
  if (extensions === undefined) parameters.delete("extensions");
  else parameters.set("extensions", JSON.stringify(extensions));
  return { search: `?${parameters}`, register };
}
