// The rows live events name (events carry ids only, see src/events/live-event.ts): each
// subscriber loads them with its own rights, and checks them against what it subscribed to.
import type { Db } from "../db/db.ts";
import { notFound } from "../contract/errors.ts";
import { checkId } from "./text.ts";

export const commentById = (db: Db, id: string) => db.prisma.comment.findUnique({ where: { id } });

export const orderById = (db: Db, id: string) => db.prisma.order.findUnique({ where: { id } });

export const reportById = (db: Db, id: string) => db.prisma.report.findUnique({ where: { id } });

/** `id` when a restaurant has it; NOT_FOUND otherwise (a subscription to a mistyped id would wait forever). */
export async function existingRestaurantId(db: Db, id: string, field: string): Promise<string> {
  checkId(id, field);
  if (!(await db.prisma.restaurant.findUnique({ where: { id }, select: { id: true } })))
    throw notFound("restaurant", id);
  return id;
}
