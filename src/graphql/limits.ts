// Limits on what one GraphQL operation may ask for: depth, aliases, cost and directives
// (graphql-armor validation rules) and tokens (graphql-js's own parser option, which stops
// parsing early; armor's token plugin throws from a hook and would surface as a 500).
// All are checked before anything runs. Field suggestions
// ("did you mean ...") are turned off in production so the schema cannot be guessed by typos
// when introspection is off. Batched requests stay off (Apollo's default).
import { ApolloArmor } from "@escape.tech/graphql-armor";
import type { ApolloServerPlugin } from "@apollo/server";
import type { ValidationRule } from "graphql";
import type { Config } from "../config.ts";

export type OperationLimits = {
  plugins: ApolloServerPlugin<any>[];
  validationRules: ValidationRule[];
  parseOptions: { maxTokens: number };
};

export function operationLimits(config: Config): OperationLimits {
  const { maxDepth, maxAliases, maxCost, maxTokens } = config.graphql;
  const armor = new ApolloArmor({
    maxDepth: { n: maxDepth, ignoreIntrospection: true },
    maxAliases: { n: maxAliases },
    costLimit: { maxCost, ignoreIntrospection: true },
    maxTokens: { enabled: false },
    maxDirectives: { n: 20 },
    blockFieldSuggestion: { enabled: config.env === "production" },
  });
  const protection = armor.protect();
  return {
    plugins: (protection.plugins ?? []) as ApolloServerPlugin<any>[],
    validationRules: (protection.validationRules ?? []) as ValidationRule[],
    parseOptions: { maxTokens },
  };
}
