// @expensive root fields (password hashes, writes, uploads): at most one per operation, checked
// while validating, before anything runs. Rate limits count requests, so one expensive field per
// request makes each count; 30 aliased `register`s in one request would otherwise cost 30 hashes
// and make 30 accounts for one request's worth of the limit. Aliases, fragment spreads and
// inline fragments are all followed; `@skip`/`@include` are not trusted (a variable decides them).
import { getDirective } from "@graphql-tools/utils";
import {
  GraphQLError, isObjectType, Kind, type GraphQLSchema, type SelectionSetNode, type ValidationContext, type ValidationRule,
} from "graphql";

const ROOTS = ["Query", "Mutation", "Subscription"];

/** Root type name -> its @expensive fields. Every Mutation field must be one (checked at start-up). */
export function expensiveRootFields(schema: GraphQLSchema): Map<string, Set<string>> {
  const byType = new Map<string, Set<string>>();
  for (const typeName of ROOTS) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) continue;
    const names = new Set<string>();
    for (const field of Object.values(type.getFields())) {
      if (getDirective(schema, field, "expensive")?.[0]) names.add(field.name);
      else if (typeName === "Mutation") throw new Error(`Mutation.${field.name} is a write and must declare @expensive`);
    }
    byType.set(typeName, names);
  }
  return byType;
}

export function oneExpensiveFieldRule(schema: GraphQLSchema): ValidationRule {
  const expensive = expensiveRootFields(schema);
  return (context: ValidationContext) => ({
    OperationDefinition(operation) {
      const root = schema.getRootType(operation.operation);
      const names = root && expensive.get(root.name);
      if (!names?.size) return;
      const found: string[] = [];
      const seenFragments = new Set<string>();
      const collect = (set: SelectionSetNode) => {
        for (const selection of set.selections) {
          if (selection.kind === Kind.FIELD) {
            if (names.has(selection.name.value)) found.push(selection.name.value);
          } else if (selection.kind === Kind.INLINE_FRAGMENT) {
            collect(selection.selectionSet);
          } else if (!seenFragments.has(selection.name.value)) {
            // A fragment spread twice merges into the same fields: count it once (and no cycles).
            seenFragments.add(selection.name.value);
            const fragment = context.getFragment(selection.name.value);
            if (fragment) collect(fragment.selectionSet);
          }
        }
      };
      collect(operation.selectionSet);
      if (found.length <= 1) return;
      const counts = [...new Set(found)].map((n) => `${n} x${found.filter((f) => f === n).length}`).join(", ");
      context.reportError(
        new GraphQLError(
          `An operation may hold at most one expensive field (sign-up, sign-in, a write or an upload); this one has ${found.length} (${counts}). Send them as separate requests.`,
          { nodes: operation, extensions: { code: "BAD_USER_INPUT" } },
        ),
      );
    },
  });
}
