// Resolvers for groceries: thin; the rules live in src/domain.
export const groceriesResolvers = {};
