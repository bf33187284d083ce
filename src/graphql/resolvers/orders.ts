// Resolvers for orders: thin; the rules live in src/domain.
export const ordersResolvers = {};
