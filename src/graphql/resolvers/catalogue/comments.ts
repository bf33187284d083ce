// Resolvers for comments: thin; the rules live in src/domain/catalogue/comments.ts.
import * as comments from "../../../domain/catalogue/comments.ts";
import type { CommentWithAuthor } from "../../../db/rows.ts";
import type { Resolvers } from "../../__generated__/resolvers.ts";
import { viewerOf } from "../../data/context.ts";
import { loadRestaurant, loadUser, referenced } from "../../data/loaders.ts";
import { commentsOf, latestCommentOf } from "../../data/restaurant-plan.ts";

export const commentsResolvers: Resolvers = {
  Mutation: {
    addComment: (_, args, ctx) => comments.addComment(ctx.db, ctx.events, viewerOf(ctx), args.restaurantId, args.input),
  },
  Restaurant: {
    latestComment: (restaurant, _, ctx) => latestCommentOf(ctx, restaurant),
    // Read in the restaurant's statement when its selection showed the page (restaurant-plan.ts).
    comments: (restaurant, args, ctx) => commentsOf(ctx, restaurant, args),
  },
  // Counted only when asked (LazyConnection): an explicit resolver, since compiled execution
  // reads a field without one as a plain property and never calls it.
  CommentConnection: {
    totalCount: (page) => page.totalCount(),
  },
  Comment: {
    // A comment read with its author (CommentWithAuthor) answers it at once (see restaurant-plan.ts).
    author: (comment, _, ctx) =>
      (comment as Partial<CommentWithAuthor>).author ?? referenced(loadUser(ctx, comment.authorId)),
    restaurant: (comment, _, ctx) => referenced(loadRestaurant(ctx, comment.restaurantId)),
  },
};
