// Rows by id, and the lists that follow a page of restaurants or groceries, as SQL that skips
// Prisma's query compiler and row mapping (why: docs/performance.md#raw-reads-against-prisma-7).
// Each returns exactly what the equivalent Prisma call returns (test/graphql/reads.test.ts compares
// them on both databases), so callers cannot tell. Writes stay on Prisma's API.
import type { Db } from "../db.ts";
import { Prisma } from "../prisma.ts";
import type {
  GroceryRow,
  GroceryTagKind,
  RestaurantBadgeWithBadge,
  RestaurantRow,
  RestaurantTagKind,
  UserRow,
} from "../rows.ts";
import {
  BADGE,
  BADGE_GRANT_COLUMNS,
  GROCERY,
  GROCERY_COLUMNS,
  inList,
  query,
  RESTAURANT,
  RESTAURANT_BADGE,
  RESTAURANT_COLUMNS,
  rowsOf,
  USER,
  USER_COLUMNS,
} from "./columns.ts";

/** Users with these ids (any order; unknown ids are absent), as `db.user.findMany` omitting the password hash. */
export async function usersByIds(db: Pick<Db, "read">, ids: readonly string[]): Promise<UserRow[]> {
  if (ids.length === 0) return [];
  return query(db, USER, Prisma.sql`SELECT ${USER_COLUMNS} FROM "User" WHERE "User"."id" IN (${inList(ids)})`);
}

/** Restaurants with these ids (any order; unknown ids are absent), as `db.restaurant.findMany`. */
export async function restaurantsByIds(db: Db, ids: readonly string[]): Promise<RestaurantRow[]> {
  if (ids.length === 0) return [];
  return query(
    db,
    RESTAURANT,
    Prisma.sql`SELECT ${RESTAURANT_COLUMNS} FROM "Restaurant" WHERE "Restaurant"."id" IN (${inList(ids)})`,
  );
}

/** Groceries with these ids (any order; unknown ids are absent), as `db.grocery.findMany`. */
export async function groceriesByIds(db: Db, ids: readonly string[]): Promise<GroceryRow[]> {
  if (ids.length === 0) return [];
  return query(
    db,
    GROCERY,
    Prisma.sql`SELECT ${GROCERY_COLUMNS} FROM "Grocery" WHERE "Grocery"."id" IN (${inList(ids)})`,
  );
}

// ---- Lists that follow a restaurant ------------------------------------------------------------

/** Tag values of these restaurants, each list in position order. */
export async function restaurantTagsFor(
  db: Db,
  restaurantIds: readonly string[],
): Promise<{ restaurantId: string; kind: RestaurantTagKind; value: string }[]> {
  if (restaurantIds.length === 0) return [];
  return query(
    db,
    { restaurantId: "text", kind: "text", value: "text" },
    Prisma.sql`SELECT "restaurantId", "kind", "value" FROM "RestaurantTag" WHERE "restaurantId" IN (${inList(restaurantIds)})
      ORDER BY "restaurantId", "kind", "position"`,
  );
}

/** Photo URLs of these restaurants, in position order. */
export async function restaurantPhotosFor(
  db: Db,
  restaurantIds: readonly string[],
): Promise<{ restaurantId: string; url: string }[]> {
  if (restaurantIds.length === 0) return [];
  return query(
    db,
    { restaurantId: "text", url: "text" },
    Prisma.sql`SELECT "restaurantId", "url" FROM "RestaurantPhoto" WHERE "restaurantId" IN (${inList(restaurantIds)})
      ORDER BY "restaurantId", "position"`,
  );
}

/** Opening hours of these restaurants, in position order. */
export async function openingHoursFor(
  db: Db,
  restaurantIds: readonly string[],
): Promise<{ restaurantId: string; open: string; close: string }[]> {
  if (restaurantIds.length === 0) return [];
  return query(
    db,
    { restaurantId: "text", open: "text", close: "text" },
    Prisma.sql`SELECT "restaurantId", "open", "close" FROM "OpeningHours" WHERE "restaurantId" IN (${inList(restaurantIds)})
      ORDER BY "restaurantId", "position"`,
  );
}

/** Badges these restaurants hold, oldest grant first, each with its badge: one statement. */
export async function restaurantBadgesFor(
  db: Db,
  restaurantIds: readonly string[],
): Promise<RestaurantBadgeWithBadge[]> {
  if (restaurantIds.length === 0) return [];
  const raw = await db.read(
    Prisma.sql`SELECT ${BADGE_GRANT_COLUMNS}
      FROM "RestaurantBadge" rb JOIN "Badge" b ON b."id" = rb."badgeId"
      WHERE rb."restaurantId" IN (${inList(restaurantIds)})
      ORDER BY rb."receivedAt" ASC, rb."badgeId" ASC`,
  );
  const badges = rowsOf<RestaurantBadgeWithBadge["badge"]>(BADGE, raw, "badge_");
  return rowsOf<Omit<RestaurantBadgeWithBadge, "badge">>(RESTAURANT_BADGE, raw).map((grant, i) => ({
    ...grant,
    badge: badges[i],
  }));
}

/** Summed ratings of the restaurants each of these users owns (owners of none are absent). */
export async function ownerRatingSums(
  db: Db,
  ownerIds: readonly string[],
): Promise<{ ownerId: string; ratingSum: number; ratingCount: number }[]> {
  if (ownerIds.length === 0) return [];
  return query(
    db,
    { ownerId: "text", ratingSum: "int", ratingCount: "int" },
    Prisma.sql`SELECT "ownerId", SUM("ratingSum") AS "ratingSum", SUM("ratingCount") AS "ratingCount"
      FROM "Restaurant" WHERE "ownerId" IN (${inList(ownerIds)}) GROUP BY "ownerId"`,
  );
}

// ---- Lists that follow a grocery ---------------------------------------------------------------

/** Tag values of these groceries, each list in position order. */
export async function groceryTagsFor(
  db: Db,
  groceryIds: readonly string[],
): Promise<{ groceryId: string; kind: GroceryTagKind; value: string }[]> {
  if (groceryIds.length === 0) return [];
  return query(
    db,
    { groceryId: "text", kind: "text", value: "text" },
    Prisma.sql`SELECT "groceryId", "kind", "value" FROM "GroceryTag" WHERE "groceryId" IN (${inList(groceryIds)})
      ORDER BY "groceryId", "kind", "position"`,
  );
}
