// Badges: distinctions admins grant to restaurants. A badge is found by its exact name or created
// on first grant; granting one a restaurant already holds is a no-op that returns what it holds.
import { z } from "zod";
import type { Db } from "../../db/db.ts";
import type { EventBus } from "../../events/bus.ts";
import { notFound } from "../../contract/errors.ts";
import { imageReference } from "./image-references.ts";
import { isForeignKeyViolation, isRecordNotFound, isUniqueViolation } from "../prisma-errors.ts";
import { checkId, storable } from "../text.ts";
import { parseInput } from "../validation.ts";

/** The badges restaurants hold, for the loaders: no rule applies to reading them (see restaurants.ts). */

const grantInput = z.object({
  name: storable(
    z.string().trim().min(1, "name must not be empty").max(100, "name must have at most 100 characters"),
    "name",
  ),
  cover: imageReference(
    storable(z.string().trim(), "cover").max(2000, "cover must have at most 2000 characters"),
    "cover",
  )
    .nullish()
    .transform((v) => v || null),
});

export const listBadges = (db: Db) => db.prisma.badge.findMany({ orderBy: [{ name: "asc" }, { id: "asc" }] });

/** Badges by id (node(id:)): any signed-in user may list them all. */
export const badgesByIds = (db: Db, ids: string[]) => db.prisma.badge.findMany({ where: { id: { in: ids } } });

/** The badge with this name; created (with `cover`) if none exists. A cover is not changed on an existing badge. */
async function badgeNamed(db: Db, name: string, cover: string | null) {
  const existing = await db.prisma.badge.findUnique({ where: { name } });
  if (existing) return existing;
  try {
    return await db.prisma.badge.create({ data: { name, cover } });
  } catch (error) {
    // Another admin created it at the same moment: use theirs.
    if (isUniqueViolation(error)) return db.prisma.badge.findUniqueOrThrow({ where: { name } });
    throw error;
  }
}

/** A badge granted changes the restaurant: announced as UPDATED (not for one it already held). */
export async function grantBadge(
  db: Db,
  events: EventBus,
  restaurantId: string,
  input: { name: unknown; cover?: unknown },
) {
  const { name, cover } = parseInput(grantInput, input);
  checkId(restaurantId, "restaurantId");
  const restaurant = await db.prisma.restaurant.findUnique({ where: { id: restaurantId }, select: { id: true } });
  if (!restaurant) throw notFound("Restaurant", restaurantId);
  const badge = await badgeNamed(db, name, cover);
  const key = { restaurantId_badgeId: { restaurantId, badgeId: badge.id } };
  const held = await db.prisma.restaurantBadge.findUnique({ where: key, include: { badge: true } });
  if (held) return held;
  try {
    const granted = await db.prisma.restaurantBadge.create({
      data: { restaurantId, badgeId: badge.id },
      include: { badge: true },
    });
    events.publish({ topic: "restaurantChanged", restaurantId, change: "UPDATED" });
    return granted;
  } catch (error) {
    if (isUniqueViolation(error))
      return db.prisma.restaurantBadge.findUniqueOrThrow({ where: key, include: { badge: true } });
    if (isForeignKeyViolation(error) || isRecordNotFound(error)) throw notFound("Restaurant", restaurantId);
    throw error;
  }
}

/** Takes the badge back; true if the restaurant held it. NOT_FOUND for an unknown restaurant. */
export async function revokeBadge(db: Db, events: EventBus, restaurantId: string, badgeId: string): Promise<boolean> {
  checkId(restaurantId, "restaurantId");
  checkId(badgeId, "badgeId");
  const restaurant = await db.prisma.restaurant.findUnique({ where: { id: restaurantId }, select: { id: true } });
  if (!restaurant) throw notFound("Restaurant", restaurantId);
  const { count } = await db.prisma.restaurantBadge.deleteMany({ where: { restaurantId, badgeId } });
  if (count > 0) events.publish({ topic: "restaurantChanged", restaurantId, change: "UPDATED" });
  return count > 0;
}
