// Adding a rated comment: the comment row and its restaurant's rating totals change together, by
// column arithmetic in the database (no read-modify-write in JavaScript, so no lost update), and
// the new comment comes back with its author. Each dialect writes it its own way (db.sql).
import { randomFillSync } from "node:crypto";
import type { Db } from "./db.ts";
import { Prisma } from "./prisma.ts";
import type { CommentWithAuthor, NewComment } from "./rows.ts";

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
export const addToTotals = (rating: number, restaurantId: string) => Prisma.sql`UPDATE "Restaurant"
  SET "ratingSum" = "ratingSum" + ${rating},
      "ratingCount" = "ratingCount" + 1,
      "ratingAvg" = CAST("ratingSum" + ${rating} AS DOUBLE PRECISION) / ("ratingCount" + 1)
  WHERE "id" = ${restaurantId}`;

/** Adds the comment and its rating to the restaurant's totals; null when the restaurant does not exist (nothing changed). */
export function insertRatedComment(db: Db, c: NewComment): Promise<CommentWithAuthor | null> {
  return db.sql.insertRatedComment(db, { ...c, id: newRowId(), at: new Date().toISOString() });
}
