// Resolvers for Relay's Node: node(id:) and nodes(ids:) find an object by id whatever its type
// (src/graphql/data/nodes.ts: how; src/graphql/policy/node-access.ts: who sees what).
import type { Resolvers } from "../__generated__/resolvers.ts";
import { nodeFor, nodesFor, nodeTypeOf } from "../data/nodes.ts";

export const nodeResolvers: Resolvers = {
  Query: {
    node: (_, args, ctx, info) => nodeFor(ctx, args.id, info),
    nodes: (_, args, ctx, info) => nodesFor(ctx, args.ids, info),
  },
  Node: {
    __resolveType: (row) => nodeTypeOf(row),
  },
};
