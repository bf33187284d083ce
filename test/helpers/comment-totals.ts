// Comments written straight into the database, as fixtures do, with their restaurants' rating
// totals brought up to date as addComment keeps them (db/comment-writes.ts): a restaurant's
// ratingCount is its number of comments, which its comment pages show as their total.
import type { Db } from "../../src/db/db.ts";
import type { Prisma } from "../../src/db/prisma.ts";

export async function insertComments(db: Db, data: Prisma.CommentCreateManyInput[]) {
  await db.prisma.comment.createMany({ data });
  for (const restaurantId of new Set(data.map((c) => c.restaurantId))) {
    await db.prisma.$executeRaw`UPDATE "Restaurant" SET
      "ratingSum" = (SELECT COALESCE(SUM("rating"), 0) FROM "Comment" WHERE "restaurantId" = ${restaurantId}),
      "ratingCount" = (SELECT COUNT(*) FROM "Comment" WHERE "restaurantId" = ${restaurantId}),
      "ratingAvg" = (SELECT CAST(AVG("rating") AS DOUBLE PRECISION) FROM "Comment" WHERE "restaurantId" = ${restaurantId})
      WHERE "id" = ${restaurantId}`;
  }
}
