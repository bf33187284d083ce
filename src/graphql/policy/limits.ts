// Limits on what one GraphQL operation may ask for: depth, aliases and directives (graphql-armor
// validation rules), fields repeated under one name (repeated-fields.ts), tokens (graphql-js's
// own parser option, which stops parsing early; armor's token plugin throws from a hook and would
// surface as a 500), cost (cost.ts: computed with the variables and defaults, which a validation
// rule never sees) and what the response may hold (response-ceiling.ts, wired into the schema).
// All but the ceiling are checked before anything runs, by the one admission path (operation.ts).
// Suggestions ("did you mean ...") are cut out of messages in production and whenever
// introspection is off, so the schema cannot be guessed by typos. Batched requests stay off
// (Apollo's default).
import { ApolloArmor } from "@escape.tech/graphql-armor";
import { NoSchemaIntrospectionCustomRule, type ValidationRule } from "graphql";
import type { Config } from "../../config.ts";
import { repeatedFieldsRule } from "./repeated-fields.ts";
import { hiddenSubgraphSdlRule } from "../federation/hidden-sdl.ts";
import { suggestionsHidden } from "../execution/suggestions.ts";

export type OperationLimits = {
  /** Run after graphql-js's own rules: depth, aliases, directives, repeated fields. */
  validationRules: ValidationRule[];
  parseOptions: { maxTokens: number };
  maxCost: number;
  /** Most representations one operation may send to `_entities` (FEDERATION_MAX_REPRESENTATIONS). */
  maxRepresentations: number;
  hideSuggestions: boolean;
  /** HTTP_CACHE_MAX_AGE: the longest max-age an answer may carry, in seconds (0: none is cached; cache-control.ts). */
  cacheMaxAge: number;
};

export function operationLimits(config: Config): OperationLimits {
  const { maxDepth, maxAliases, maxCost, maxTokens } = config.graphql;
  const armor = new ApolloArmor({
    maxDepth: { n: maxDepth, ignoreIntrospection: true },
    maxAliases: { n: maxAliases },
    costLimit: { enabled: false },
    maxTokens: { enabled: false },
    maxDirectives: { n: 20 },
    // Its mask misses enum-value suggestions and errors raised after validation: suggestions.ts does it.
    blockFieldSuggestion: { enabled: false },
  });
  // With cost, tokens and suggestions off, armor brings validation rules only (no Apollo plugins).
  const protection = armor.protect();
  return {
    validationRules: [
      repeatedFieldsRule,
      ...((protection.validationRules ?? []) as ValidationRule[]),
      // GRAPHQL_INTROSPECTION=false: __schema and __type are refused on every transport, and so is
      // the subgraph's `_service { sdl }`, which shows the same schema.
      ...(config.graphql.introspection ? [] : [NoSchemaIntrospectionCustomRule, hiddenSubgraphSdlRule]),
    ],
    parseOptions: { maxTokens },
    maxCost,
    maxRepresentations: config.federation.maxRepresentations,
    hideSuggestions: suggestionsHidden(config),
    cacheMaxAge: config.httpCacheMaxAgeSeconds,
  };
}
