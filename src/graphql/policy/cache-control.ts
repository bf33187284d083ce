// How long an HTTP cache may keep an answer, and who may share it, read from the schema's
// `@cacheControl(maxAge, scope, inheritMaxAge)` hints (Apollo's directive, so tools know it) and
// the operation's selection, once per document. Apollo's own plugin computes the same thing field
// by field while resolving, but compiled execution and the direct answer run no per-field hooks,
// so here it is read statically, by Apollo's rules:
//   - a field's hint overrides its type's (for fields returning objects, interfaces, unions);
//   - a root field, or a field returning an object, with no maxAge is never cached (maxAge 0),
//     unless it declares `inheritMaxAge`; other fields (scalars, enums) take their parent's;
//   - the operation gets the smallest maxAge of the fields it selects (none: 0), PRIVATE if any is.
// `@skip`/`@include` are not trusted (a variable decides them): every field written counts.
// Mutations and subscriptions are never cached. Who asked, and whether the answer is clean, is
// decided per answer (cacheControlHeader); docs/http-caching.md says why.
import { getDirective } from "@graphql-tools/utils";
import {
  getNamedType,
  getOperationAST,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";

export type CacheScope = "PUBLIC" | "PRIVATE";

/** What the schema lets an operation's answer be cached for: `maxAge` seconds (0: never stored). */
export type CachePolicy = { maxAge: number; scope: CacheScope };

type Hint = { maxAge?: number; scope?: CacheScope; inheritMaxAge?: boolean };

/** The answer nothing may store: errors, writes, anything that depends on who asks. */
export const NO_STORE = "no-store";

const NOT_CACHED: CachePolicy = { maxAge: 0, scope: "PUBLIC" };

/** What each field's @selfOrAdmin value depends on: who asks. Its hint must say so (checked at start-up). */
function checkViewerFields(schema: GraphQLSchema, fieldHint: (field: GraphQLField<unknown, unknown>) => Hint) {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      if (!getDirective(schema, field, "selfOrAdmin")?.[0]) continue;
      const hint = fieldHint(field);
      if (hint.maxAge !== 0 || hint.scope !== "PRIVATE")
        throw new Error(`${type.name}.${field.name} is @selfOrAdmin: declare @cacheControl(maxAge: 0, scope: PRIVATE)`);
    }
  }
}

/**
 * The policy of `(document, operationName)`, computed once per operation (documents are kept
 * parsed: Apollo's document store, the direct answer's known documents, the REST routes).
 * `maxAgeLimit` (HTTP_CACHE_MAX_AGE) caps every maxAge; 0 turns HTTP caching off.
 */
export function cachePolicies(schema: GraphQLSchema, maxAgeLimit: number) {
  const hints = new Map<object, Hint>();
  const hintOf = (element: GraphQLNamedType | GraphQLField<unknown, unknown>): Hint => {
    let hint = hints.get(element);
    if (!hint) {
      const found = getDirective(schema, element, "cacheControl")?.[0] as Hint | undefined;
      hint = { maxAge: found?.maxAge ?? undefined, scope: found?.scope, inheritMaxAge: found?.inheritMaxAge ?? false };
      hints.set(element, hint);
    }
    return hint;
  };
  checkViewerFields(schema, hintOf);
  const policies = new WeakMap<OperationDefinitionNode, CachePolicy>();

  function policyOf(document: DocumentNode, operation: OperationDefinitionNode): CachePolicy {
    const root = schema.getRootType(operation.operation);
    if (operation.operation !== "query" || !root || maxAgeLimit === 0) return NOT_CACHED;
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions)
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    let maxAge = Infinity; // until a field says (an operation of `__typename` alone is not cached, as in Apollo)
    let scope: CacheScope = "PUBLIC";
    const seenFragments = new Set<string>();

    const visit = (set: SelectionSetNode, parent: GraphQLCompositeType, isRoot: boolean) => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FRAGMENT_SPREAD) {
          const name = selection.name.value;
          const fragment = fragments.get(name);
          if (!fragment || seenFragments.has(name)) continue;
          seenFragments.add(name);
          const on = schema.getType(fragment.typeCondition.name.value);
          if (isCompositeType(on)) visit(fragment.selectionSet, on, isRoot);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
          if (isCompositeType(on)) visit(selection.selectionSet, on, isRoot);
        } else if (selection.name.value !== "__typename") {
          const field =
            isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined;
          if (!field) {
            maxAge = 0; // __schema, __type: root fields without a hint
            continue;
          }
          const target = getNamedType(field.type);
          const composite = isCompositeType(target);
          // Apollo's order: the type's hint, then the field's over it; a field's inheritMaxAge counts where its type gives no maxAge.
          const typeHint = composite ? hintOf(target) : {};
          const fieldHint = hintOf(field);
          let fieldMaxAge = typeHint.maxAge;
          let inherits = Boolean(typeHint.inheritMaxAge);
          if (fieldHint.inheritMaxAge && fieldMaxAge === undefined) inherits = true;
          else if (fieldHint.maxAge !== undefined) fieldMaxAge = fieldHint.maxAge;
          if ((fieldHint.scope ?? typeHint.scope) === "PRIVATE") scope = "PRIVATE";
          if (fieldMaxAge !== undefined) maxAge = Math.min(maxAge, fieldMaxAge);
          else if ((composite && !inherits) || isRoot) maxAge = 0;
          if (selection.selectionSet && composite) visit(selection.selectionSet, target, false);
        }
      }
    };
    visit(operation.selectionSet, root, true);
    return { maxAge: maxAge === Infinity ? 0 : Math.max(0, Math.min(maxAge, maxAgeLimit)), scope };
  }

  /** The operation `operationName` names in `document` (it ran, so it exists): its policy, remembered. */
  return function cachePolicy(document: DocumentNode, operationName: string | null | undefined): CachePolicy {
    const operation = getOperationAST(document, operationName);
    if (!operation) return NOT_CACHED;
    let policy = policies.get(operation);
    if (!policy) policies.set(operation, (policy = policyOf(document, operation)));
    return policy;
  };
}

/**
 * The Cache-Control of a clean answer (no error) to an operation with this policy. `public` only
 * when the request carried no token: its answer is then, by construction, what any request without
 * a token gets (a field that needs one would have failed it), so a shared cache handing it to
 * anyone opens nothing. With a token, the same data is `private`: what a request with a token got
 * never lands in a shared cache.
 */
export function cacheControlHeader(policy: CachePolicy, sentNoToken: boolean): string {
  if (policy.maxAge <= 0) return NO_STORE;
  const shared = policy.scope === "PUBLIC" && sentNoToken;
  return `${shared ? "public" : "private"}, max-age=${policy.maxAge}`;
}
