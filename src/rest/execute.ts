// Runs a route-table row in-process through the admission path every transport shares
// (graphql/operation.ts): the row's document was parsed and validated once, at start-up, by the
// same rules as a client's; each request is then costed with its variables and executed like a
// /graphql operation (compiled from its second request on). No HTTP hop, no re-parsing. The
// request was charged on arrival, as every HTTP request is.
import { parse, type DocumentNode } from "graphql";
import { documentAccess, signInRefusal, type DocumentAccess } from "../graphql/policy/auth.ts";
import type { Context } from "../graphql/data/context.ts";
import { INTERNAL, type ClientError } from "../contract/errors.ts";
import { toClientError } from "../graphql/execution/client-errors.ts";
import type { OperationRunner } from "../graphql/execution/operation.ts";
import { statusForCode } from "../contract/error-codes.ts";
import { legacyError } from "./legacy-error-messages.ts";
import { editVariables, emptyEditError } from "./requests/empty-edit.ts";
import { buildVariables, legacyNames, readValues } from "./requests/params.ts";
import { legacyBody, type FieldValues, type RestRequest, type RestRoute } from "./route-row.ts";

/**
 * `access`: who may call the row, from its root fields' @public / @requireAuth declarations.
 * `edits`: the variables that are edits, at least one of which the request must set (requests/empty-edit.ts).
 */
export type CompiledRoute = RestRoute & {
  compiled: DocumentNode;
  names: Map<string, string>;
  access: DocumentAccess;
  edits: string[];
};

export function compileRoutes(runner: OperationRunner, routes: RestRoute[]): CompiledRoute[] {
  const { schema } = runner;
  return routes.map((route) => {
    const compiled = parse(route.document);
    const errors = runner.validateOwn(compiled);
    if (errors.length)
      throw new Error(`REST route ${route.method} ${route.path}: ${errors.map((e) => e.message).join("; ")}`);
    const edits = editVariables(schema, compiled);
    return { ...route, compiled, names: legacyNames(route), access: documentAccess(schema, compiled), edits };
  });
}

export type RestOutcome =
  { ok: true; status: number; body: unknown } | { ok: false; status: number; error: ClientError; internal?: unknown };

const refused = (error: ClientError): RestOutcome => ({ ok: false, status: statusForCode(error.code), error });

export async function runRoute(
  runner: OperationRunner,
  route: CompiledRoute,
  req: RestRequest,
  context: Context,
): Promise<RestOutcome> {
  // The legacy interface says every data operation needs a valid token: that answer comes before
  // any field check, with the same rule and words as the fields' own @requireAuth.
  const refusal = route.access === "public" ? null : signInRefusal(context, route.access === "anonymousReads");
  if (refusal) return refused(toClientError(refusal)!);
  let values: FieldValues;
  let variables: Record<string, unknown>;
  try {
    values = readValues(route, req);
    variables = buildVariables(route, values);
  } catch (error) {
    const known = toClientError(error);
    if (known) return refused(known);
    throw error;
  }
  const empty = emptyEditError(route, route.edits, variables);
  if (empty) return refused(empty);
  // Step 4 (cost with this request's variables: a route's page size comes from the request), then 5.
  try {
    await runner.check(route.compiled, undefined, variables, { chargeRequests: context.chargeRequests, prepaid: true });
  } catch (error) {
    const known = runner.clientError(error);
    if (known) return refused(known);
    throw error;
  }
  const result = await runner.execute(route.compiled, undefined, variables, context);
  if (result.errors?.length) {
    const first = result.errors[0];
    const known = legacyError(first, route.names);
    if (!known) return { ok: false, status: 500, error: INTERNAL, internal: first.originalError ?? first };
    return refused(runner.hideSuggestions(known));
  }
  try {
    return { ok: true, status: route.status, body: legacyBody(route, result.data ?? {}, values) };
  } catch (error) {
    const known = toClientError(error);
    if (known) return refused(known);
    throw error;
  }
}
