// Runs a route-table row in-process: the row's document (parsed and validated once, at start-up)
// is executed against the same schema and context, by the same executor, as /graphql (so it runs
// compiled from its second request on). No HTTP hop, no re-parsing.
import { parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from "graphql";
import { documentAccess, signInRefusal, type DocumentAccess } from "../graphql/directives/auth.ts";
import { expensiveFieldLimitRule } from "../graphql/directives/expensive.ts";
import type { Context } from "../graphql/context.ts";
import type { Executor } from "../graphql/compiled-execution.ts";
import { checkOperationCost } from "../graphql/cost.ts";
import { INTERNAL, toClientError, type ClientError } from "../graphql/client-errors.ts";
import { ceilingCrossed } from "../graphql/response-ceiling.ts";
import { suggestionsHidden, withoutSuggestions } from "../graphql/suggestions.ts";
import { statusForCode } from "../http/error-status.ts";
import { legacyError } from "./legacy-error-messages.ts";
import { editVariables, nothingSent } from "./nothing-sent.ts";
import { buildVariables, legacyNames, readValues } from "./params.ts";
import { legacyBody, type FieldValues, type RestRequest, type RestRoute } from "./route-row.ts";

/**
 * `access`: who may call the row, from its root fields' @public / @requireAuth declarations.
 * `edits`: the variables that are edits, at least one of which the request must set (nothing-sent.ts).
 */
export type CompiledRoute = RestRoute & { compiled: DocumentNode; names: Map<string, string>; access: DocumentAccess; edits: string[] };

export function compileRoutes(schema: GraphQLSchema, routes: RestRoute[]): CompiledRoute[] {
  // graphql-js's rules plus the per-operation maximum of expensive fields, as on /graphql.
  const rules = [...specifiedRules, expensiveFieldLimitRule(schema)];
  return routes.map((route) => {
    const compiled = parse(route.document);
    const errors = validate(schema, compiled, rules);
    if (errors.length) throw new Error(`REST route ${route.method} ${route.path}: ${errors.map((e) => e.message).join("; ")}`);
    const edits = editVariables(schema, compiled);
    return { ...route, compiled, names: legacyNames(route), access: documentAccess(schema, compiled), edits };
  });
}

export type RestOutcome =
  | { ok: true; status: number; body: unknown }
  | { ok: false; status: number; error: ClientError; internal?: unknown };

const refused = (error: ClientError): RestOutcome => ({ ok: false, status: statusForCode(error.code), error });

export async function runRoute(schema: GraphQLSchema, executor: Executor, route: CompiledRoute, req: RestRequest, context: Context): Promise<RestOutcome> {
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
  const empty = nothingSent(route, route.edits, variables);
  if (empty) return refused(empty);
  // The same cost limit and response ceiling as /graphql: a route's page size comes from the request.
  try {
    checkOperationCost(schema, route.compiled, undefined, variables, context.config.graphql.maxCost);
  } catch (error) {
    const known = toClientError(error);
    if (known) return refused(known);
    throw error;
  }
  const result = await executor({ document: route.compiled, variables, context });
  const tooLarge = ceilingCrossed(context);
  if (tooLarge) return refused(tooLarge);
  if (result.errors?.length) {
    const first = result.errors[0];
    const known = legacyError(first, route.names);
    if (!known) return { ok: false, status: 500, error: INTERNAL, internal: first.originalError ?? first };
    return refused(suggestionsHidden(context.config) ? withoutSuggestions(known) : known);
  }
  try {
    return { ok: true, status: route.status, body: legacyBody(route, result.data ?? {}, values) };
  } catch (error) {
    const known = toClientError(error);
    if (known) return refused(known);
    throw error;
  }
}
