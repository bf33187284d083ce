// Resolvers for reports: thin; the rules live in src/domain.
export const reportsResolvers = {};
