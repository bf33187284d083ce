// @expensive root fields (password hashes, writes, uploads) cost what they are, not one request:
// each beyond the first in an operation is charged to the caller's rate-limit buckets before
// anything runs (30 aliased writes = 30 requests; over the limit, 429 and nothing runs). Fields
// with `max` (register, login: a password hash each) may appear at most that many times in one
// operation, checked while validating. Both are steps of the one admission path (operation.ts),
// which every transport (HTTP, REST, WebSocket, Server-Sent Events) goes through.
// Aliases, fragment spreads and inline fragments are all followed; `@skip`/`@include` are not
// trusted (a variable decides them), so a field counts wherever it is written.
import { getDirective } from "@graphql-tools/utils";
import {
  getOperationAST,
  GraphQLError,
  isObjectType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from "graphql";

const ROOTS = ["Query", "Mutation", "Subscription"];

/** Root type name -> its @expensive fields and their per-operation maximum, if any. */
type ExpensiveFields = Map<string, Map<string, { max?: number }>>;

/** Reads the directive off the schema; every Mutation field must declare it (checked at start-up). */
export function expensiveRootFields(schema: GraphQLSchema): ExpensiveFields {
  const byType: ExpensiveFields = new Map();
  for (const typeName of ROOTS) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) continue;
    const fields = new Map<string, { max?: number }>();
    for (const field of Object.values(type.getFields())) {
      const rule = getDirective(schema, field, "expensive")?.[0] as { max?: number } | undefined;
      if (rule) fields.set(field.name, { max: rule.max ?? undefined });
      else if (typeName === "Mutation")
        throw new Error(`Mutation.${field.name} is a write and must declare @expensive`);
    }
    byType.set(typeName, fields);
  }
  return byType;
}

/** The expensive root fields an operation asks for, one entry per occurrence. */
function expensiveIn(
  fields: Map<string, unknown>,
  operation: OperationDefinitionNode,
  fragment: (name: string) => FragmentDefinitionNode | undefined,
): string[] {
  const found: string[] = [];
  const seenFragments = new Set<string>();
  const collect = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (fields.has(selection.name.value)) found.push(selection.name.value);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else if (!seenFragments.has(selection.name.value)) {
        // A fragment spread twice merges into the same fields: count it once (and no cycles).
        seenFragments.add(selection.name.value);
        const definition = fragment(selection.name.value);
        if (definition) collect(definition.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  return found;
}

/** Validation: no field with `max` appears more often than that in one operation. */
export function expensiveFieldLimitRule(schema: GraphQLSchema): ValidationRule {
  const expensive = expensiveRootFields(schema);
  return (context: ValidationContext) => ({
    OperationDefinition(operation) {
      const fields = expensive.get(schema.getRootType(operation.operation)?.name ?? "");
      if (!fields?.size) return;
      const found = expensiveIn(fields, operation, (name) => context.getFragment(name) ?? undefined);
      for (const [name, { max }] of fields) {
        const count = found.filter((f) => f === name).length;
        if (max === undefined || count <= max) continue;
        context.reportError(
          new GraphQLError(
            `${name} may appear at most ${max === 1 ? "once" : `${max} times`} in one operation (this one asks for it ${count} times, aliases and fragments included); send one per request.`,
            { nodes: operation, extensions: { code: "BAD_USER_INPUT" } },
          ),
        );
      }
    },
  });
}

const expensiveBySchema = new WeakMap<GraphQLSchema, ExpensiveFields>();

/**
 * How many @expensive root fields the operation asks for (aliases and fragments included): the
 * admission path (operation.ts) charges each beyond the first to the caller's rate-limit buckets
 * before anything runs. 0 for an operation the document does not hold.
 */
export function expensiveFieldCount(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): number {
  let expensive = expensiveBySchema.get(schema);
  if (!expensive) expensiveBySchema.set(schema, (expensive = expensiveRootFields(schema)));
  const operation = getOperationAST(document, operationName);
  const fields = operation && expensive.get(schema.getRootType(operation.operation)?.name ?? "");
  if (!operation || !fields?.size) return 0;
  const fragments = new Map(
    document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d] as const),
  );
  return expensiveIn(fields, operation, (name) => fragments.get(name)).length;
}
