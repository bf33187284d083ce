// Resolvers for comments: thin; the rules live in src/domain.
export const commentsResolvers = {};
