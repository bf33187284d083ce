// Resolvers for comments: thin; the rules live in src/domain/comments.ts.
import * as comments from "../../domain/comments.ts";
import type { Comment } from "../../domain/comments.ts";
import type { PageArgs } from "../../domain/pagination.ts";
import { viewerOf, type Context } from "../context.ts";
import { loadRestaurant, loadUser, primeUsers } from "../loaders.ts";
import { defineLoader } from "../loader-definition.ts";

const latestCommentByRestaurant = defineLoader("latestCommentByRestaurant", async (ctx: Context, ids: readonly string[]) => {
  const latest = await comments.latestComments(ctx.db, ids);
  primeUsers(ctx, [...latest.values()].map((comment) => comment.author));
  return ids.map((id) => latest.get(id) ?? null);
});
/** The newest comment of each restaurant asked for in this request, fetched together. */
const loadLatestComment = (ctx: Context, restaurantId: string) => ctx.loaderOf(latestCommentByRestaurant).load(restaurantId);

export const commentsResolvers = {
  Mutation: {
    addComment: (_: unknown, args: { restaurantId: string; input: unknown }, ctx: Context) =>
      comments.addComment(ctx.db, ctx.events, viewerOf(ctx), args.restaurantId, args.input),
  },
  Restaurant: {
    latestComment: (restaurant: { id: string }, _: unknown, ctx: Context) => loadLatestComment(ctx, restaurant.id),
    comments: (restaurant: { id: string }, args: PageArgs, ctx: Context) => comments.listComments(ctx.db, restaurant.id, args),
  },
  Comment: {
    author: (comment: Comment, _: unknown, ctx: Context) => loadUser(ctx, comment.authorId),
    restaurant: (comment: Comment, _: unknown, ctx: Context) => loadRestaurant(ctx, comment.restaurantId),
  },
};
