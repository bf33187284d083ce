// Look-ahead over a resolver's selection set: which fields the client asked of the value it
// returns, so a root field can read the related rows in the same statement (PostGraphile-style)
// instead of leaving each to a nested resolver's own statement. Fragments, inline fragments and
// @skip/@include are resolved by graphql-tools' collectSubFields, as graphql-js executes them.
import { getArgumentValues, getNamedType, isObjectType, Kind, type FieldNode, type GraphQLObjectType, type GraphQLResolveInfo, type SelectionSetNode } from "graphql";
import { collectSubFields } from "@graphql-tools/utils";

export type Selection = {
  /** Whether a field of this name is selected (under any alias). */
  has(name: string): boolean;
  /** What is selected under every field of this name, merged (empty when none, or not an object). */
  of(name: string): Selection;
  /** The arguments of each field of this name selected (one per field node; none when not selected), variables applied. */
  argumentsOf(name: string): Record<string, unknown>[];
};

const NOTHING: Selection = { has: () => false, of: () => NOTHING, argumentsOf: () => [] };

/** graphql-tools takes graphql-js 17's variables ({ coerced, sources }) and hands 16 the coerced ones. */
type Variables = Parameters<typeof collectSubFields>[2];

function selectionIn(info: GraphQLResolveInfo, variables: Variables, type: GraphQLObjectType, fieldNodes: FieldNode[]): Selection {
  // Keyed by response key (alias or name); several aliases may select the same field.
  const byName = new Map<string, FieldNode[]>();
  for (const nodes of collectSubFields(info.schema, info.fragments, variables, type, fieldNodes).fields.values()) {
    for (const node of nodes) {
      const named = byName.get(node.name.value);
      if (named) named.push(node);
      else byName.set(node.name.value, [node]);
    }
  }
  return {
    has: (name) => byName.has(name),
    of(name) {
      const nodes = byName.get(name);
      const field = type.getFields()[name];
      const fieldType = field && getNamedType(field.type);
      return nodes && isObjectType(fieldType) ? selectionIn(info, variables, fieldType, nodes) : NOTHING;
    },
    argumentsOf(name) {
      const field = type.getFields()[name];
      return field ? (byName.get(name) ?? []).map((node) => getArgumentValues(field, node, info.variableValues)) : [];
    },
  };
}

/**
 * The selection under the field being resolved (whose type must be an object type, possibly
 * wrapped); for a field of an interface type (node), `as` names the object type to collect for.
 */
export function selectionOf(info: GraphQLResolveInfo, as?: string): Selection {
  const type = as ? info.schema.getType(as) : getNamedType(info.returnType);
  return isObjectType(type) ? selectionIn(info, { coerced: info.variableValues, sources: {} }, type, info.fieldNodes as FieldNode[]) : NOTHING;
}

/**
 * The type conditions of the fragments directly under the field being resolved (fragments on
 * them followed): which object types a selection on an interface shows fields of.
 */
export function typeConditionsOf(info: GraphQLResolveInfo): Set<string> {
  const names = new Set<string>();
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (selection.typeCondition) names.add(selection.typeCondition.name.value);
        walk(selection.selectionSet);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = info.fragments[selection.name.value];
        if (fragment) names.add(fragment.typeCondition.name.value);
        walk(fragment?.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) walk(node.selectionSet);
  return names;
}

/** Both selections at once: what either asks. */
export const eitherOf = (a: Selection, b: Selection): Selection => ({
  has: (name) => a.has(name) || b.has(name),
  of: (name) => eitherOf(a.of(name), b.of(name)),
  argumentsOf: (name) => [...a.argumentsOf(name), ...b.argumentsOf(name)],
});
