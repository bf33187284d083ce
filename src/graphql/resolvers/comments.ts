// Resolvers for comments: thin; the rules live in src/domain/comments.ts.
import * as comments from "../../domain/comments.ts";
import type { Resolvers } from "../__generated__/resolvers.ts";
import { viewerOf, type Context } from "../data/context.ts";
import { broughtWith, loadRestaurant, loadUser, primeUsers, referenced } from "../data/loaders.ts";
import { defineLoader } from "../data/loader-definition.ts";
import type { CommentWithAuthor } from "../../db/rows.ts";
import { selectionOf } from "../data/selection.ts";

const latestCommentByRestaurant = defineLoader("latestCommentByRestaurant", async (ctx: Context, ids: readonly string[]) => {
  const latest = await comments.latestComments(ctx.db, ids);
  primeUsers(ctx, [...latest.values()].map((comment) => comment.author));
  return ids.map((id) => latest.get(id) ?? null);
});
/** The newest comment of each restaurant asked for in this request, fetched together. */
const loadLatestComment = (ctx: Context, restaurantId: string) => ctx.loaderOf(latestCommentByRestaurant).load(restaurantId);

/** A restaurant's newest comment (null: none) that its restaurant's statement already brought, with its author. */
export function primeLatestComment(ctx: Context, restaurantId: string, comment: CommentWithAuthor | null) {
  if (comment) primeUsers(ctx, [comment.author]);
  ctx.loaderOf(latestCommentByRestaurant).prime(restaurantId, comment);
}

export const commentsResolvers: Resolvers = {
  Mutation: {
    addComment: (_, args, ctx) =>
      comments.addComment(ctx.db, ctx.events, viewerOf(ctx), args.restaurantId, args.input),
  },
  Restaurant: {
    latestComment: (restaurant, _, ctx) => {
      const brought = broughtWith(restaurant)?.latestComment;
      return brought !== undefined ? brought : loadLatestComment(ctx, restaurant.id);
    },
    // The page's statement also counts the comments when the selection shows the total.
    comments: (restaurant, args, ctx, info) => comments.listComments(ctx.db, restaurant.id, args, selectionOf(info).has("totalCount")),
  },
  // Counted only when asked (LazyConnection): an explicit resolver, since compiled execution
  // reads a field without one as a plain property and never calls it.
  CommentConnection: {
    totalCount: (page) => page.totalCount(),
  },
  Comment: {
    // A comment read with its author (CommentWithAuthor) answers it at once (see bringAlong).
    author: (comment, _, ctx) => (comment as Partial<CommentWithAuthor>).author ?? referenced(loadUser(ctx, comment.authorId)),
    restaurant: (comment, _, ctx) => referenced(loadRestaurant(ctx, comment.restaurantId)),
  },
};
