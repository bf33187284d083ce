// Wires schema.graphql (the contract) to the resolvers, split by domain, and the auth rule.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { makeExecutableSchema } from "@graphql-tools/schema";
import type { GraphQLSchema } from "graphql";
import { applyAuthDirectives } from "./directives/auth.ts";
import { DateTime } from "./resolvers/scalars.ts";
import { userResolvers } from "./resolvers/users.ts";

export const SCHEMA_PATH = fileURLToPath(new URL("../../schema.graphql", import.meta.url));

export function buildSchema(): GraphQLSchema {
  const schema = makeExecutableSchema({
    typeDefs: readFileSync(SCHEMA_PATH, "utf8"),
    resolvers: [{ DateTime }, userResolvers],
    inheritResolversFromInterfaces: true,
  });
  return applyAuthDirectives(schema);
}
