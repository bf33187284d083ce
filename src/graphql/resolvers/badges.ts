// Resolvers for badges: thin; the rules live in src/domain.
export const badgesResolvers = {};
