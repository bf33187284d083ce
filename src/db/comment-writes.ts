// Adding a rated comment: the comment row and its restaurant's rating totals change together, by
// column arithmetic in the database (no read-modify-write in JavaScript, so no lost update), and
// the new comment comes back with its author. PostgreSQL does it all in one statement (a
// data-changing WITH: one round trip, atomic on its own); SQLite, which has no such WITH, in one
// batch transaction in-process, then reads the row back with its author.
import { randomFillSync } from "node:crypto";
import type { Db } from "./db.ts";
import { Prisma } from "./prisma.ts";
import { COMMENT_WITH_AUTHOR_COLUMNS, commentsWithAuthorsOf } from "./reads.ts";
import type { CommentWithAuthor } from "./rows.ts";

export type NewComment = { restaurantId: string; authorId: string; title: string; body: string; rating: number };

let sequence = 0;

/** Random bytes drawn 4 KB at a time: one call into OpenSSL per ~680 ids, not one per id. */
const entropy = Buffer.alloc(4096);
let entropyUsed = entropy.length;

/** 12 hex digits (48 bits) of fresh randomness. */
function randomHex12(): string {
  if (entropyUsed + 6 > entropy.length) {
    randomFillSync(entropy);
    entropyUsed = 0;
  }
  return entropy.toString("hex", entropyUsed, (entropyUsed += 6));
}

/**
 * A new row id, as Prisma's cuid() ids: "c", the time in base 36, a per-process counter, then
 * randomness. Ids made later sort later (within a process), so "the highest id wins a tie"
 * between comments of the same millisecond still means the later one.
 */
export function newRowId(): string {
  sequence = (sequence + 1) % 36 ** 4;
  return `c${Date.now().toString(36).padStart(9, "0")}${sequence.toString(36).padStart(4, "0")}${randomHex12()}`;
}

/** The totals' change, shared by both databases' statements. */
const addToTotals = (rating: number, restaurantId: string) => Prisma.sql`UPDATE "Restaurant"
  SET "ratingSum" = "ratingSum" + ${rating},
      "ratingCount" = "ratingCount" + 1,
      "ratingAvg" = CAST("ratingSum" + ${rating} AS DOUBLE PRECISION) / ("ratingCount" + 1)
  WHERE "id" = ${restaurantId}`;

/** Adds the comment and its rating to the restaurant's totals; null when the restaurant does not exist (nothing changed). */
export async function insertRatedComment(db: Db, c: NewComment): Promise<CommentWithAuthor | null> {
  const id = newRowId();
  const at = new Date().toISOString();
  if (db.dialect === "postgres") {
    // SET expressions see the row as it was before this UPDATE; the INSERT runs only if it found the restaurant.
    const raw = await db.writeReturning(
      Prisma.sql`WITH totals AS (${addToTotals(c.rating, c.restaurantId)} RETURNING "id"),
        c AS (INSERT INTO "Comment" ("id", "restaurantId", "authorId", "title", "body", "rating", "createdAt")
          SELECT CAST(${id} AS TEXT), totals."id", CAST(${c.authorId} AS TEXT), CAST(${c.title} AS TEXT), CAST(${c.body} AS TEXT),
            CAST(${c.rating} AS INTEGER), CAST(${at.slice(0, -1)} AS TIMESTAMP(3)) FROM totals RETURNING *)
        SELECT ${COMMENT_WITH_AUTHOR_COLUMNS} FROM c JOIN "User" u ON u."id" = c."authorId"`,
    );
    return commentsWithAuthorsOf(raw)[0] ?? null;
  }
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
}
