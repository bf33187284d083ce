// A rated comment on SQLite: no data-changing WITH, so the totals' UPDATE and the INSERT run in one
// batch transaction in-process, then the row is read back with its author.
import type { DialectSql } from "../db.ts";
import { addToTotals } from "../comment-writes.ts";
import { Prisma } from "../prisma.ts";
import { COMMENT_WITH_AUTHOR_COLUMNS, commentsWithAuthorsOf } from "../reads/columns.ts";

export const insertRatedComment: DialectSql["insertRatedComment"] = async (db, { id, at, ...c }) => {
  // SQLite keeps Prisma's text form of a DateTime ("...T...+00:00"), so rows sort as text alike.
  const [updated] = await db.prisma.$transaction([
    db.prisma.$executeRaw(addToTotals(c.rating, c.restaurantId)),
    db.prisma
      .$executeRaw`INSERT INTO "Comment" ("id", "restaurantId", "authorId", "title", "body", "rating", "createdAt")
      SELECT ${id}, "id", ${c.authorId}, ${c.title}, ${c.body}, ${c.rating}, ${at.replace("Z", "+00:00")} FROM "Restaurant" WHERE "id" = ${c.restaurantId}`,
  ]);
  if (updated === 0) return null;
  const raw = await db.read(
    Prisma.sql`SELECT ${COMMENT_WITH_AUTHOR_COLUMNS} FROM "Comment" c JOIN "User" u ON u."id" = c."authorId" WHERE c."id" = ${id}`,
  );
  return commentsWithAuthorsOf(raw)[0] ?? null;
};
