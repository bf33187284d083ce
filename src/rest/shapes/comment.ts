// Legacy comment shapes (spec "Restaurant comment"): Get Comments' object and its items; an item
// is also Comment Restaurant's answer. `rating` is carried as a string, as the spec says.
import type { GetCommentsQuery, LegacyCommentFragment } from "../../graphql/__generated__/operations.ts";
import * as s from "../openapi/json-schema.ts";

type GraphqlRestaurantComments = NonNullable<GetCommentsQuery["restaurant"]>;

export const COMMENT_FIELDS = `fragment LegacyComment on Comment { id title body rating author { id username firstName } }`;

export const commentSchema = s.answer({
  _id: s.string(),
  user: s.answer({ _id: s.string(), username: s.string(), first_name: s.string() }),
  title: s.string(),
  body: s.string(),
  rating: s.string({ description: "1 to 5, as a string" }),
});

export const commentsSchema = s.answer({
  _id: s.string(),
  title: s.string(),
  description: s.nullable(s.string()),
  comments: s.arrayOf(commentSchema, { description: "newest first" }),
});

export const legacyComment = (c: LegacyCommentFragment) => ({
  _id: c.id,
  user: { _id: c.author.id, username: c.author.username, first_name: c.author.firstName },
  title: c.title,
  body: c.body,
  rating: String(c.rating),
});

export const legacyComments = (r: GraphqlRestaurantComments) => ({
  _id: r.id,
  title: r.title,
  description: r.description,
  comments: r.comments.nodes.map(legacyComment),
});
