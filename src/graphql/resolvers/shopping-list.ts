// Resolvers for shopping-list: thin; the rules live in src/domain.
export const shoppingListResolvers = {};
