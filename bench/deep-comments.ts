// Restaurants with thousands of comments, added after the seed (whose restaurants have at most 30):
// the comment scenarios page through them down to their last page, where an OFFSET makes the
// database step over every comment before it. Same rows on every run and on both databases, with
// the restaurants' rating totals kept equal to their comments, as the service keeps them.
import type { Db } from "../src/db/db.ts";
import { restaurant, restaurantId, SIZES, users, type SizeName } from "../src/seed/dataset.ts";

/** How many restaurants get the deep comment lists, and how many comments each. */
export const DEEP_RESTAURANTS = 4;
export const DEEP_COMMENTS = 5_000;
const BATCH = 2_000;
const FROM = Date.UTC(2026, 0, 1);

/** The restaurants given deep comment lists: the last ones of the seed (the scenarios' first picks stay as they were). */
export function deepCommentRestaurants(size: SizeName): { id: string; comments: number }[] {
  const count = SIZES[size].restaurants;
  return Array.from({ length: DEEP_RESTAURANTS }, (_, i) => ({ id: restaurantId(count - i), comments: DEEP_COMMENTS }));
}

/**
 * The seed's own most commented restaurants (the deep ones aside), most first, then by number: on
 * the `large` seed, restaurants with 30 comments, whose pages at offsets 40 and 100 are past the end.
 */
export function mostCommentedSeedRestaurants(size: SizeName, count: number): { id: string; comments: number }[] {
  const deep = new Set(deepCommentRestaurants(size).map((r) => r.id));
  return Array.from({ length: SIZES[size].restaurants }, (_, i) => restaurant(i + 1, SIZES[size]))
    .map((r) => ({ id: r.row.id, comments: r.comments.length }))
    .filter((r) => !deep.has(r.id))
    .sort((a, b) => b.comments - a.comments || a.id.localeCompare(b.id))
    .slice(0, count);
}

export async function addDeepComments(db: Db, size: SizeName): Promise<number> {
  const authors = users(SIZES[size]).map((u) => u.id);
  let added = 0;
  for (const { id, comments } of deepCommentRestaurants(size)) {
    for (let first = 0; first < comments; first += BATCH) {
      const data = Array.from({ length: Math.min(BATCH, comments - first) }, (_, k) => {
        const n = first + k;
        return {
          id: `bench-deep-${id}-${String(n).padStart(5, "0")}`,
          restaurantId: id,
          authorId: authors[n % authors.length]!,
          title: `Visit ${n}`,
          body: `Deep-page comment ${n}: a regular's notes on the dish of the day, the service and the wait.`,
          rating: 1 + (n % 5),
          createdAt: new Date(FROM + n * 60_000),
        };
      });
      added += (await db.prisma.comment.createMany({ data })).count;
    }
    await db.prisma.$executeRaw`UPDATE "Restaurant" SET
      "ratingSum" = (SELECT COALESCE(SUM("rating"), 0) FROM "Comment" WHERE "restaurantId" = ${id}),
      "ratingCount" = (SELECT COUNT(*) FROM "Comment" WHERE "restaurantId" = ${id}),
      "ratingAvg" = (SELECT CAST(AVG("rating") AS DOUBLE PRECISION) FROM "Comment" WHERE "restaurantId" = ${id})
      WHERE "id" = ${id}`;
  }
  return added;
}
