// A write that carries none of the fields it reads would answer 200 having done nothing (the
// original documentation's old Comment payload sent to PUT /restaurants/:id, an edit of a grocery
// with only its id). Such a request is refused with 400 naming the fields the operation accepts.
//
// Which rows this applies to is read from the schema, not listed by hand: a mutation whose
// document passes an input object with no required field (an edit: UpdateRestaurantInput,
// UpdateGroceryInput) changes nothing when that object arrives empty. Fields other than those
// (unknown ones) stay ignored, as everywhere in the shim.
import {
  getNamedType,
  isInputObjectType,
  isNonNullType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import type { ClientError } from "../../contract/errors.ts";
import type { RestRoute } from "../route-row.ts";

/** The variables of a mutation that are edits: input objects none of whose fields is required. */
export function editVariables(schema: GraphQLSchema, document: DocumentNode): string[] {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operation?.operation !== "mutation") return [];
  return (operation.variableDefinitions ?? []).flatMap((v) => {
    const type = getNamedType(typeFromAST(schema, v.type));
    if (!type || !isInputObjectType(type)) return [];
    return Object.values(type.getFields()).some((f) => isNonNullType(f.type)) ? [] : [v.variable.name.value];
  });
}

/** The row's fields that say what to change: neither path segments, nor required, nor defaulted. */
export const editFields = (route: RestRoute): string[] =>
  route.params.filter((p) => p.in !== "path" && !p.required && p.default === undefined).map((p) => p.name);

const isEmpty = (value: unknown) =>
  value === undefined || (typeof value === "object" && value !== null && Object.keys(value).length === 0);

/** The 400 for a request that sets nothing in any of `edits` (the row's edit variables), or null. */
export function emptyEditError(
  route: RestRoute,
  edits: string[],
  variables: Record<string, unknown>,
): ClientError | null {
  if (!edits.length || !edits.every((name) => isEmpty(variables[name]))) return null;
  const accepted = editFields(route);
  const message = [
    `${route.operation} (${route.method} ${route.path}) needs at least one of its fields: ${accepted.join(", ")}; the request carried none.`,
    route.emptyEditHint,
  ];
  return { code: "BAD_USER_INPUT", message: message.filter(Boolean).join(" "), details: { accepted } };
}
