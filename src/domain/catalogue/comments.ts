// Comments on restaurants, each with a 1..5 rating. The restaurant keeps its rating totals
// (ratingSum, ratingCount, ratingAvg) in its own row so searches can sort by rating; those
// columns change atomically with the comment insert, by column arithmetic in the database
// (db/comment-writes.ts), so concurrent comments never overwrite each other's totals.
import { z } from "zod";
import type { Db } from "../../db/db.ts";
import { insertRatedComment } from "../../db/comment-writes.ts";
import { commentPageFor } from "../../db/reads/comments.ts";
import type { CommentWithAuthor } from "../../db/rows.ts";
import type { EventBus } from "../../events/bus.ts";
import { notFound, signInRequired } from "../../contract/errors.ts";
import { isForeignKeyViolation } from "../prisma-errors.ts";
import {
  pageWindow,
  readWindow,
  toLazyConnection,
  type LazyConnection,
  type PageArgs,
  type PageWindow,
} from "../pagination.ts";
import type { Viewer } from "../accounts/tokens.ts";
import { checkId, requiredText } from "../text.ts";
import { parseInput } from "../validation.ts";

export const commentInput = z.object({
  title: requiredText("title", 200),
  body: requiredText("body", 10_000),
  rating: z
    .number({ error: "rating must be a whole number from 1 to 5" })
    .int("rating must be a whole number from 1 to 5")
    .min(1, "rating must be a whole number from 1 to 5")
    .max(5, "rating must be a whole number from 1 to 5"),
});

/** Adds the comment and its rating (db/comment-writes.ts); announces it once committed. */
export async function addComment(
  db: Db,
  events: EventBus,
  viewer: Viewer,
  restaurantId: string,
  input: unknown,
): Promise<CommentWithAuthor> {
  const data = parseInput(commentInput, input);
  checkId(restaurantId, "restaurantId");
  let comment: CommentWithAuthor | null;
  try {
    comment = await insertRatedComment(db, { restaurantId, authorId: viewer.id, ...data });
  } catch (error) {
    // The statement found the restaurant (its row stays locked until the write ends), so the key
    // that failed is the author's: the account was deleted since its token was checked.
    if (isForeignKeyViolation(error)) throw signInRequired(true);
    throw error;
  }
  if (!comment) throw notFound("restaurant", restaurantId);
  events.publish({ topic: "commentAdded", restaurantId, commentId: comment.id });
  return comment;
}

/**
 * A page of a restaurant's comments, newest first (the id breaks ties between comments written in
 * the same millisecond), each with its author: one statement. `total` is the restaurant's kept
 * comment count (its row's ratingCount, added to with every comment in the comment's own
 * statement, db/comment-writes.ts), so the page needs no count of its own.
 */
export async function listComments(
  db: Db,
  restaurantId: string,
  page: PageArgs,
  total: number,
): Promise<LazyConnection<CommentWithAuthor>> {
  const window = await pageWindow(page, async () => total);
  return commentConnection(await commentPageFor(db, restaurantId, readWindow(window)), window, total);
}

/** A page of comments already read (`take + 1` rows of the window at most) as a connection. */
export const commentConnection = (comments: CommentWithAuthor[], window: PageWindow, total: number) =>
  toLazyConnection(comments, window, async () => total);

/** Comments by id (node(id:)): anyone who may read their restaurant may read them. */
export const commentsByIds = (db: Db, ids: string[]) => db.prisma.comment.findMany({ where: { id: { in: ids } } });
