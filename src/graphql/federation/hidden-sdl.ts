// GRAPHQL_INTROSPECTION=false hides the schema; the subgraph's `_service { sdl }` prints that same
// schema (with its descriptions and directives), so it is refused with introspection, on every
// transport, before anything runs. A gateway then composes from the SDL `npm run --silent subgraph-sdl`
// prints (docs/supergraph.md), as production supergraphs are usually composed anyway.
import { GraphQLError, type ValidationRule } from "graphql";

export const hiddenSubgraphSdlRule: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value !== "_service" || context.getParentType() !== context.getSchema().getQueryType()) return;
    context.reportError(
      new GraphQLError(
        "The subgraph's schema (`_service`) is off with introspection (GRAPHQL_INTROSPECTION=false): " +
          "compose the supergraph from the SDL `npm run --silent subgraph-sdl` prints.",
        { nodes: node },
      ),
    );
  },
});
