// A restaurant's comments with their authors: the newest of each restaurant, a page, their number.
import type { Db, JsonFunctions } from "../db.ts";
import { Prisma } from "../prisma.ts";
import type { CommentRow, CommentWithAuthor, UserRow } from "../rows.ts";
import {
  COMMENT,
  COMMENT_WITH_AUTHOR_COLUMNS,
  commentsWithAuthorsOf,
  fromJson,
  inList,
  latestCommentIdOf,
  normalisers,
  USER,
} from "./columns.ts";

const LATEST_COMMENT_COLUMNS = COMMENT_WITH_AUTHOR_COLUMNS;

/**
 * The newest comment of each of these restaurants (the highest id wins a tie, as in
 * listComments), with its author, in one statement: one index probe on (restaurantId,
 * createdAt) per restaurant. The author comes along because a latest comment is nearly always
 * shown with its author, which would otherwise cost a statement of its own.
 */
export async function latestCommentsFor(db: Db, restaurantIds: readonly string[]): Promise<CommentWithAuthor[]> {
  if (restaurantIds.length === 0) return [];
  const raw = await db.read(
    Prisma.sql`SELECT ${LATEST_COMMENT_COLUMNS} FROM "Comment" c JOIN "User" u ON u."id" = c."authorId" WHERE c."id" IN (
        SELECT ${latestCommentIdOf("r")} FROM "Restaurant" r WHERE r."id" IN (${inList(restaurantIds)}))`,
  );
  return commentsWithAuthorsOf(raw);
}

/** A page of comments to read: `take` shown after `skip`, and one more row that tells a next page exists. */
export type CommentWindow = { skip: number; take: number };

function checkWindow({ skip, take }: CommentWindow) {
  if (!Number.isSafeInteger(take) || take < 1 || !Number.isSafeInteger(skip) || skip < 0)
    throw new Error(`page window ${skip}+${take} is not whole`);
}

/**
 * The window's comments of the restaurant `restaurantId` names (SQL: a bound value, or a column of
 * the enclosing statement), newest first (the highest id wins a tie), `take + 1` at most. LIMIT as
 * a literal (a few page sizes), OFFSET as a parameter (many): see search/sql.ts windowSql. The
 * page is cut before its rows meet their authors: joined first, a deep page looked up the author
 * of every comment it skipped.
 */
function pageRowsSql(restaurantId: Prisma.Sql, { skip, take }: CommentWindow): Prisma.Sql {
  return Prisma.sql`(SELECT * FROM "Comment" p WHERE p."restaurantId" = ${restaurantId}
        ORDER BY p."createdAt" DESC, p."id" DESC ${Prisma.raw(`LIMIT ${take + 1}`)}${skip > 0 ? Prisma.sql` OFFSET ${skip}` : Prisma.empty}) c
      JOIN "User" u ON u."id" = c."authorId"`;
}

/**
 * A page of a restaurant's comments, newest first (the highest id wins a tie), each with its
 * author, in one statement: `take + 1` rows at most (the extra one tells a next page exists).
 * Its total is the restaurant's kept comment count (ratingCount), which its row carries.
 */
export async function commentPageFor(
  db: Db,
  restaurantId: string,
  window: CommentWindow,
): Promise<CommentWithAuthor[]> {
  checkWindow(window);
  const raw = await db.read(
    Prisma.sql`SELECT ${LATEST_COMMENT_COLUMNS} FROM ${pageRowsSql(Prisma.sql`${restaurantId}`, window)} ORDER BY c."createdAt" DESC, c."id" DESC`,
  );
  return commentsWithAuthorsOf(raw);
}

/** The columns of a comment, then of its author, in the order a folded page lists them. */
const PAGE_ITEM_COLUMNS = [
  ...Object.keys(COMMENT).map((column) => `c."${column}"`),
  ...Object.keys(USER).map((column) => `u."${column}"`),
].join(", ");
const COMMENT_KINDS = Object.entries(COMMENT).map(([name, kind]) => [name, normalisers[kind]] as const);
const AUTHOR_KINDS = Object.entries(USER).map(([name, kind]) => [name, normalisers[kind]] as const);

/**
 * commentPageFor's page as one column of a statement reading `"Restaurant"` rows (relatedSql): a
 * JSON array of [comment's columns..., author's columns...], newest first. So the restaurant and
 * its page of comments are one statement.
 */
export function commentPageColumn(json: JsonFunctions, window: CommentWindow): Prisma.Sql {
  checkWindow(window);
  return Prisma.sql`(SELECT ${Prisma.raw(`${json.aggregate}(${json.array}(${PAGE_ITEM_COLUMNS}) ORDER BY c."createdAt" DESC, c."id" DESC)`)}
      FROM ${pageRowsSql(Prisma.raw(`"Restaurant"."id"`), window)}) AS "comment_page"`;
}

/** The comments of a folded page (commentPageColumn's value), each with its author; none is NULL. */
export function commentPageOf(value: unknown): CommentWithAuthor[] {
  const items = (fromJson(value) ?? []) as unknown[][];
  const valuesOf = <T>(kinds: typeof COMMENT_KINDS, values: unknown[], from: number) => {
    const row: Record<string, unknown> = {};
    kinds.forEach(([name, normalise], i) => {
      const v = values[from + i];
      row[name] = v === null || v === undefined ? null : normalise(v);
    });
    return row as T;
  };
  return items.map((values) => ({
    ...valuesOf<CommentRow>(COMMENT_KINDS, values, 0),
    author: valuesOf<UserRow>(AUTHOR_KINDS, values, COMMENT_KINDS.length),
  }));
}
