// A restaurant with what a request asks of it (its owner, the latest comment, its lists), in the
// restaurant's own statement: a restaurant's whole detail is one statement, and a search page
// brings the same along each of its rows (src/db/search/).
import type { Db, JsonFunctions } from "../db.ts";
import { Prisma } from "../prisma.ts";
import type { RawRows } from "../raw-rows.ts";
import type {
  CommentRow,
  CommentWithAuthor,
  RestaurantBadgeWithBadge,
  RestaurantPartial,
  RestaurantRow,
  RestaurantTagKind,
  UserRow,
} from "../rows.ts";
import {
  COMMENT,
  columnsOf,
  fromJson,
  inList,
  latestCommentIdOf,
  restaurantColumnsOf,
  restaurantSelectList,
  rowsOf,
  selectList,
  toDate,
  USER,
  type Columns,
  type RestaurantColumn,
  type UserColumn,
} from "./columns.ts";
import { commentPageColumn, commentPageOf, type CommentWindow } from "./comments.ts";

/**
 * What a request asks along with each restaurant (GraphQL looks ahead over the selection).
 * `ownerColumns`: only these columns of the owner (all when absent; its id always).
 * `authorRating`: the summed ratings of the latest comment's author (as `ownerRating` for the owner).
 * `tags`, `photos`, `openingHours`, `badges`: the restaurant's lists, folded into its row.
 * `comments`: a page of its comments with their authors (commentPageFor's), folded into its row.
 */
export type RestaurantRelations = {
  owner?: boolean;
  ownerColumns?: readonly UserColumn[];
  ownerRating?: boolean;
  latestComment?: boolean;
  authorRating?: boolean;
  tags?: boolean;
  photos?: boolean;
  openingHours?: boolean;
  badges?: boolean;
  comments?: CommentWindow;
};

type RatingSums = { ownerId: string; ratingSum: number; ratingCount: number };
export type RestaurantTag = { restaurantId: string; kind: RestaurantTagKind; value: string };
export type OpeningHoursRow = { restaurantId: string; open: string; close: string };

/** A restaurant row and the related rows asked for (a relation not asked is absent; none found is null). */
export type RestaurantWithRelated = {
  /** Whole, or only the columns the statement was asked for. */
  restaurant: RestaurantPartial;
  owner?: UserRow | null;
  ownerRating?: RatingSums;
  latestComment?: CommentWithAuthor | null;
  /** The latest comment's author's sums (absent when there is no comment). */
  authorRating?: RatingSums;
  tags?: RestaurantTag[];
  photos?: string[];
  openingHours?: OpeningHoursRow[];
  badges?: RestaurantBadgeWithBadge[];
  /** The comments of the window asked, `take + 1` at most (CommentWindow), each with its author. */
  commentPage?: { window: CommentWindow; comments: CommentWithAuthor[] };
};

export const asksRelated = (want: RestaurantRelations) =>
  Boolean(
    want.owner ||
    want.ownerRating ||
    want.latestComment ||
    want.tags ||
    want.photos ||
    want.openingHours ||
    want.badges ||
    want.comments,
  );

const OWNER_RATING = { ratingSum: "int", ratingCount: "int" } satisfies Columns;

/** The owner's columns a relation asks: its id (which tells a missing owner) and those named. */
const ownerColumnsOf = (want: RestaurantRelations) =>
  columnsOf(USER, want.ownerColumns && ["id", ...want.ownerColumns]);

/**
 * One of a restaurant's lists as a JSON array of arrays (the columns named, in the order given),
 * computed by the database inside the restaurant's own statement: a probe of the list table's
 * primary key (restaurantId first) per restaurant, instead of a statement per list. Both databases
 * order inside the aggregate (SQLite 3.44+). An aggregate of no row may be NULL: read as [].
 */
function listColumn(json: JsonFunctions, name: string, from: string, columns: string[], order: string): string {
  return `(SELECT ${json.aggregate}(${json.array}(${columns.join(", ")}) ORDER BY ${order}) FROM ${from} WHERE x."restaurantId" = "Restaurant"."id") AS "list_${name}"`;
}

const LISTS = {
  tags: { from: `"RestaurantTag" x`, columns: [`x."kind"`, `x."value"`], order: `x."kind", x."position"` },
  photos: { from: `"RestaurantPhoto" x`, columns: [`x."url"`], order: `x."position"` },
  openingHours: { from: `"OpeningHours" x`, columns: [`x."open"`, `x."close"`], order: `x."position"` },
  badges: {
    from: `"RestaurantBadge" x JOIN "Badge" b ON b."id" = x."badgeId"`,
    columns: [`x."badgeId"`, `x."receivedAt"`, `b."name"`, `b."cover"`, `b."createdAt"`],
    order: `x."receivedAt", x."badgeId"`,
  },
} as const;
type ListName = keyof typeof LISTS;
const LIST_NAMES = Object.keys(LISTS) as ListName[];

/** The summed ratings of the restaurants `ownerColumn` owns, as two columns named `${prefix}_ratingSum` / `_ratingCount`. */
function ratingSumsSql(ownerColumn: string, prefix: string): string {
  const sumOf = (column: string) =>
    `COALESCE((SELECT SUM(x."${column}") FROM "Restaurant" x WHERE x."ownerId" = ${ownerColumn}), 0) AS "${prefix}_${column}"`;
  return `${sumOf("ratingSum")}, ${sumOf("ratingCount")}`;
}

/**
 * The extra columns and joins that bring the relations asked along with rows of `"Restaurant"`:
 * the owner (a join on the primary key), the owner's summed ratings (scalar subqueries, the sums
 * ownerRatingSums gives), the newest comment with its author (the probe latestCommentsFor
 * makes) and that author's sums, the lists asked (listColumn) and a page of comments
 * (commentPageColumn). LEFT JOINs: a restaurant is
 * never lost for a missing relation. So a restaurant's whole detail is one statement.
 */
export function relatedSql(want: RestaurantRelations, json: JsonFunctions): { columns: Prisma.Sql; joins: Prisma.Sql } {
  const columns: Prisma.Sql[] = [];
  const joins: Prisma.Sql[] = [];
  if (want.owner) {
    columns.push(selectList(ownerColumnsOf(want), "o", "owner_"));
    joins.push(Prisma.raw(`LEFT JOIN "User" o ON o."id" = "Restaurant"."ownerId"`));
  }
  if (want.ownerRating) columns.push(Prisma.raw(ratingSumsSql(`"Restaurant"."ownerId"`, "ownerRating")));
  if (want.latestComment) {
    columns.push(Prisma.sql`${selectList(COMMENT, "c", "comment_")}, ${selectList(USER, "a", "author_")}`);
    if (want.authorRating) columns.push(Prisma.raw(ratingSumsSql(`c."authorId"`, "authorRating")));
    joins.push(
      Prisma.sql`LEFT JOIN "Comment" c ON c."id" = ${latestCommentIdOf(`"Restaurant"`)} LEFT JOIN "User" a ON a."id" = c."authorId"`,
    );
  }
  for (const name of LIST_NAMES) {
    if (!want[name]) continue;
    const list = LISTS[name];
    columns.push(Prisma.raw(listColumn(json, name, list.from, [...list.columns], list.order)));
  }
  if (want.comments) columns.push(commentPageColumn(json, want.comments));
  return {
    columns: columns.length === 0 ? Prisma.empty : Prisma.sql`, ${Prisma.join(columns, ", ")}`,
    joins: joins.length === 0 ? Prisma.empty : Prisma.join(joins, " "),
  };
}

/** The folded lists of one row, each as the rows its own read (restaurantTagsFor, ...) returns. */
function listsOf(
  raw: RawRows,
  want: RestaurantRelations,
  restaurantId: string,
  values: unknown[],
): Partial<RestaurantWithRelated> {
  const items = (name: ListName) => (fromJson(values[raw.names.indexOf(`list_${name}`)]) ?? []) as unknown[][];
  const lists: Partial<RestaurantWithRelated> = {};
  if (want.tags)
    lists.tags = items("tags").map(([kind, value]) => ({
      restaurantId,
      kind: kind as RestaurantTagKind,
      value: String(value),
    }));
  if (want.photos) lists.photos = items("photos").map(([url]) => String(url));
  if (want.openingHours)
    lists.openingHours = items("openingHours").map(([open, close]) => ({
      restaurantId,
      open: String(open),
      close: String(close),
    }));
  if (want.badges) {
    lists.badges = items("badges").map(([badgeId, receivedAt, name, cover, createdAt]) => ({
      restaurantId,
      badgeId: String(badgeId),
      receivedAt: toDate(receivedAt),
      badge: {
        id: String(badgeId),
        name: String(name),
        cover: cover === null ? null : String(cover),
        createdAt: toDate(createdAt),
      },
    }));
  }
  return lists;
}

/**
 * The rows of a statement built with relatedSql, each restaurant with the relations asked.
 * `columns`: the restaurant columns the statement selected (restaurantSelectList), when not all:
 * the rows then hold only those (see RestaurantPageAsks).
 */
export function relatedRowsOf(
  raw: RawRows,
  want: RestaurantRelations,
  columns?: readonly RestaurantColumn[],
): RestaurantWithRelated[] {
  const restaurants = rowsOf<RestaurantRow>(restaurantColumnsOf(columns), raw);
  const owners = want.owner ? rowsOf<UserRow>(ownerColumnsOf(want), raw, "owner_") : [];
  const ratings = want.ownerRating
    ? rowsOf<{ ratingSum: number; ratingCount: number }>(OWNER_RATING, raw, "ownerRating_")
    : [];
  const comments = want.latestComment ? rowsOf<CommentRow>(COMMENT, raw, "comment_") : [];
  const authors = want.latestComment ? rowsOf<UserRow>(USER, raw, "author_") : [];
  const authorRatings =
    want.latestComment && want.authorRating
      ? rowsOf<{ ratingSum: number; ratingCount: number }>(OWNER_RATING, raw, "authorRating_")
      : [];
  const anyList = LIST_NAMES.some((name) => want[name]);
  const commentPageAt = raw.names.indexOf("comment_page");
  return restaurants.map((restaurant, i) => {
    const row: RestaurantWithRelated = { restaurant };
    if (want.owner) row.owner = owners[i].id === null ? null : owners[i];
    if (want.ownerRating) row.ownerRating = { ownerId: restaurant.ownerId, ...ratings[i] };
    if (want.latestComment) {
      const comment = comments[i];
      row.latestComment = comment.id === null ? null : { ...comment, author: authors[i] };
      if (want.authorRating && comment.id !== null)
        row.authorRating = { ownerId: comment.authorId, ...authorRatings[i] };
    }
    if (anyList) Object.assign(row, listsOf(raw, want, restaurant.id, raw.rows[i]));
    if (want.comments) row.commentPage = { window: want.comments, comments: commentPageOf(raw.rows[i][commentPageAt]) };
    return row;
  });
}

/**
 * Restaurants with these ids (any order; unknown ids are absent), each with the relations asked:
 * one statement. `columns`: only these columns of each restaurant (all when absent).
 */
export async function restaurantsWithRelated(
  db: Db,
  ids: readonly string[],
  want: RestaurantRelations,
  columns?: readonly RestaurantColumn[],
): Promise<RestaurantWithRelated[]> {
  if (ids.length === 0) return [];
  const related = relatedSql(want, db.sql.json);
  const raw = await db.read(
    Prisma.sql`SELECT ${restaurantSelectList(columns)}${related.columns} FROM "Restaurant" ${related.joins} WHERE "Restaurant"."id" IN (${inList(ids)})`,
  );
  return relatedRowsOf(raw, want, columns);
}
