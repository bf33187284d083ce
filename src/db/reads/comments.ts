// A restaurant's comments with their authors: the newest of each restaurant, a page, their number.
import type { Db } from "../db.ts";
import { Prisma } from "../prisma.ts";
import type { CommentWithAuthor } from "../rows.ts";
import { COMMENT_WITH_AUTHOR_COLUMNS, commentsWithAuthorsOf, inList, latestCommentIdOf, query } from "./columns.ts";

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

/**
 * A page of a restaurant's comments, newest first (the highest id wins a tie), each with its
 * author, in one statement; with `count`, the restaurant's number of comments rides along as a
 * scalar subquery. `take + 1` rows come back at most (the extra one tells a next page exists).
 * A page past the end has no row to carry the total: then `total` is null (count it apart).
 */
export async function commentPageFor(
  db: Db,
  restaurantId: string,
  { skip, take }: { skip: number; take: number },
  count: boolean,
): Promise<{ comments: CommentWithAuthor[]; total: number | null }> {
  if (!Number.isSafeInteger(take) || take < 1 || !Number.isSafeInteger(skip) || skip < 0)
    throw new Error(`page window ${skip}+${take} is not whole`);
  // LIMIT as a literal (a few page sizes), OFFSET as a parameter (many): see search/sql.ts windowSql.
  const window = Prisma.raw(`LIMIT ${take + 1}`);
  const total = count
    ? Prisma.sql`, (SELECT COUNT(*) FROM "Comment" n WHERE n."restaurantId" = ${restaurantId}) AS "totalCount"`
    : Prisma.empty;
  // The page is cut in a subquery and only its rows meet their authors: joined first, a deep page
  // looked up the author of every comment it skipped.
  const raw = await db.read(
    Prisma.sql`SELECT ${LATEST_COMMENT_COLUMNS}${total} FROM (SELECT * FROM "Comment" p WHERE p."restaurantId" = ${restaurantId}
        ORDER BY p."createdAt" DESC, p."id" DESC ${window}${skip > 0 ? Prisma.sql` OFFSET ${skip}` : Prisma.empty}) c
      JOIN "User" u ON u."id" = c."authorId" ORDER BY c."createdAt" DESC, c."id" DESC`,
  );
  const comments = commentsWithAuthorsOf(raw);
  const counted = count && raw.rows.length > 0 ? Number(raw.rows[0][raw.names.indexOf("totalCount")]) : null;
  return { comments, total: counted };
}

/** How many comments a restaurant has. */
export async function commentCountOf(db: Db, restaurantId: string): Promise<number> {
  const rows = await query<{ n: number }>(
    db,
    { n: "int" },
    Prisma.sql`SELECT COUNT(*) AS "n" FROM "Comment" WHERE "restaurantId" = ${restaurantId}`,
  );
  return rows[0]?.n ?? 0;
}
