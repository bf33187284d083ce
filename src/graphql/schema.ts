// Wires schema.graphql (the contract) to the resolvers, split by domain, then the declared rules
// wrapped around them: auth, private fields, the response ceiling and the answer to database failures.
// As a Federation subgraph (FEDERATION_SUBGRAPH), the same schema with `_service` and `_entities`
// (federation/), whose fields get the same rules wrapped around them.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { makeExecutableSchema } from "@graphql-tools/schema";
import type { GraphQLSchema } from "graphql";
import { resolveEntities } from "./federation/entities.ts";
import { subgraphSchema } from "./federation/subgraph.ts";
import { answerDatabaseFailures } from "./execution/database-failures.ts";
import { applyAuthDirectives } from "./policy/auth.ts";
import { expensiveRootFields } from "./policy/expensive.ts";
import { nodeReadRules } from "./policy/node-access.ts";
import { applyVisibilityDirectives } from "./policy/visibility.ts";
import { applyResponseCeiling } from "./policy/response-ceiling.ts";
import { badgesResolvers } from "./resolvers/catalogue/badges.ts";
import { commentsResolvers } from "./resolvers/catalogue/comments.ts";
import { groceriesResolvers } from "./resolvers/catalogue/groceries.ts";
import { nodeResolvers } from "./resolvers/nodes.ts";
import { ordersResolvers } from "./resolvers/orders/orders.ts";
import { reportsResolvers } from "./resolvers/catalogue/reports.ts";
import { restaurantsResolvers } from "./resolvers/catalogue/restaurants.ts";
import { GraphQLUpload } from "graphql-upload-minimal";
import { DateTime, Time } from "./resolvers/scalars.ts";
import { shoppingListResolvers } from "./resolvers/orders/shopping-list.ts";
import { subscriptionResolvers } from "./resolvers/subscriptions.ts";
import { userResolvers } from "./resolvers/users.ts";

export const SCHEMA_PATH = fileURLToPath(new URL("../../schema.graphql", import.meta.url));

export function buildSchema({ subgraph = false }: { subgraph?: boolean } = {}): GraphQLSchema {
  const typeDefs = readFileSync(SCHEMA_PATH, "utf8");
  const executable = makeExecutableSchema({
    typeDefs: subgraph ? subgraphSchema(typeDefs) : typeDefs,
    resolvers: [
      { DateTime, Time, Upload: GraphQLUpload },
      userResolvers,
      restaurantsResolvers,
      badgesResolvers,
      commentsResolvers,
      ordersResolvers,
      groceriesResolvers,
      shoppingListResolvers,
      reportsResolvers,
      subscriptionResolvers,
      nodeResolvers,
    ],
  });
  const schema = subgraph ? resolveEntities(executable) : executable;
  expensiveRootFields(schema); // throws at start-up when a Mutation field lacks @expensive
  const wrapped = answerDatabaseFailures(applyResponseCeiling(applyVisibilityDirectives(applyAuthDirectives(schema))));
  nodeReadRules(wrapped); // throws at start-up when a Node type has no declared reader
  return wrapped;
}
