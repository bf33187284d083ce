// Legacy comment shapes (spec "Restaurant comment"): Get Comments' object and its items; an item
// is also Comment Restaurant's answer. `rating` is carried as a string, as the spec says.
import * as s from "../json-schema.ts";

type GraphqlComment = { id: string; title: string; body: string; rating: number; author: { id: string; username: string; firstName: string } };
type GraphqlRestaurantComments = { id: string; title: string; description: string | null; comments: { nodes: GraphqlComment[] } };

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

export const legacyComment = (c: GraphqlComment) => ({
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
