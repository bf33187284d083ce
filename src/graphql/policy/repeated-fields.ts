// A selection that names the same field (or alias) over and over adds nothing to the answer:
// graphql-js merges the copies. But proving they merge is quadratic (graphql-js's
// OverlappingFieldsCanBeMerged compares every pair, and the pairs' sub-selections): 700 copies of
// `reporter { id }`, 11 KB, took ~180 ms of validation here, all on the event loop. This rule
// refuses such a document before the other rules see it: on entering the document it counts, in
// each selection set (its inline fragments included), how often each response name appears, and
// past MAX_REPEATS it throws. Throwing, not reporting: graphql-js runs every rule in one pass, so
// a reported error would not spare the others their work; a thrown one stops validation at once,
// and every transport answers it as the 400 it carries (Apollo turns a thrown GraphQLError into its
// response; operation.ts catches it). Linear in the document's size.
import { GraphQLError, Kind, type ASTVisitor, type SelectionSetNode, type ValidationContext } from "graphql";

/** Most times one response name may appear in one selection set (a union's inline fragments may each repeat `id`, `__typename`). */
export const MAX_REPEATS = 30;

function mostRepeated(set: SelectionSetNode, counts = new Map<string, number>()): [string, number] | undefined {
  let worst: [string, number] | undefined;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      const name = selection.alias?.value ?? selection.name.value;
      const count = (counts.get(name) ?? 0) + 1;
      counts.set(name, count);
      if (!worst || count > worst[1]) worst = [name, count];
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const inner = mostRepeated(selection.selectionSet, counts);
      if (inner && (!worst || inner[1] > worst[1])) worst = inner;
    }
  }
  return worst;
}

export function repeatedFieldsRule(_context: ValidationContext): ASTVisitor {
  return {
    Document(document) {
      const pending: SelectionSetNode[] = [];
      for (const definition of document.definitions) {
        if ("selectionSet" in definition && definition.selectionSet) pending.push(definition.selectionSet);
      }
      while (pending.length > 0) {
        const set = pending.pop()!;
        const worst = mostRepeated(set);
        if (worst && worst[1] > MAX_REPEATS) {
          throw new GraphQLError(
            `"${worst[0]}" appears ${worst[1]} times in one selection (at most ${MAX_REPEATS}): the copies merge into one; ask for it once.`,
            { extensions: { code: "BAD_USER_INPUT", http: { status: 400 } } },
          );
        }
        for (const selection of set.selections)
          if ("selectionSet" in selection && selection.selectionSet) pending.push(selection.selectionSet);
      }
    },
  };
}
