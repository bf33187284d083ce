// Resolvers for restaurants: thin; the rules live in src/domain.
export const restaurantsResolvers = {};
