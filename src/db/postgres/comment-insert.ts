// A rated comment on PostgreSQL: one statement, a data-changing WITH (one round trip, atomic on its
// own). SET expressions see the row as it was before the UPDATE; the INSERT runs only if it found
// the restaurant.
import type { DialectSql } from "../db.ts";
import { addToTotals } from "../comment-writes.ts";
import { Prisma } from "../prisma.ts";
import { COMMENT_WITH_AUTHOR_COLUMNS, commentsWithAuthorsOf } from "../reads/columns.ts";

export const insertRatedComment: DialectSql["insertRatedComment"] = async (db, { id, at, ...c }) => {
  const raw = await db.writeReturning(
    Prisma.sql`WITH totals AS (${addToTotals(c.rating, c.restaurantId)} RETURNING "id"),
        c AS (INSERT INTO "Comment" ("id", "restaurantId", "authorId", "title", "body", "rating", "createdAt")
          SELECT CAST(${id} AS TEXT), totals."id", CAST(${c.authorId} AS TEXT), CAST(${c.title} AS TEXT), CAST(${c.body} AS TEXT),
            CAST(${c.rating} AS INTEGER), CAST(${at.slice(0, -1)} AS TIMESTAMP(3)) FROM totals RETURNING *)
        SELECT ${COMMENT_WITH_AUTHOR_COLUMNS} FROM c JOIN "User" u ON u."id" = c."authorId"`,
  );
  return commentsWithAuthorsOf(raw)[0] ?? null;
};
