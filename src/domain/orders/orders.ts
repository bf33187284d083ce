// The order list: each user's recipes (dish names) ordered at restaurants. Users see only their own.
import { z } from "zod";
import type { Db } from "../../db/db.ts";
import type { EventBus } from "../../events/bus.ts";
import { forbidden, notFound } from "../../contract/errors.ts";
import { canEdit } from "../ownership.ts";
import { countedConnection, type PageArgs } from "../pagination.ts";
import { isForeignKeyViolation } from "../prisma-errors.ts";
import type { Viewer } from "../accounts/tokens.ts";
import { checkId, recordId, requiredText } from "../text.ts";
import { parseInput } from "../validation.ts";

export const orderInput = z.object({
  restaurantId: recordId("restaurantId"),
  recipe: requiredText("recipe", 200),
  quantity: z
    .number({ error: "quantity must be a whole number from 1 to 1000" })
    .int("quantity must be a whole number from 1 to 1000")
    .min(1, "quantity must be a whole number from 1 to 1000")
    .max(1000, "quantity must be a whole number from 1 to 1000")
    .nullish()
    .transform((quantity) => quantity ?? 1),
});

/** Puts the order on the caller's list; announces it to the restaurant's owner once committed. */
export async function orderRecipe(db: Db, events: EventBus, viewer: Viewer, input: unknown) {
  const data = parseInput(orderInput, input);
  try {
    // The foreign key is the existence check: no gap between a look-up and the insert.
    const order = await db.prisma.order.create({
      data: { userId: viewer.id, restaurantId: data.restaurantId, recipe: data.recipe, quantity: data.quantity },
    });
    events.publish({ topic: "orderPlaced", restaurantId: order.restaurantId, orderId: order.id });
    return order;
  } catch (error) {
    if (isForeignKeyViolation(error)) throw notFound("restaurant", data.restaurantId);
    throw error;
  }
}

/** The caller's orders, newest first (the id breaks ties within a millisecond). */
export async function myOrders(db: Db, viewer: Viewer, page: PageArgs) {
  const where = { userId: viewer.id };
  return countedConnection(
    page,
    () => db.prisma.order.count({ where }),
    (window) => db.prisma.order.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], ...window }),
  );
}

/** The caller's own orders among these ids (node(id:)): an order is its customer's alone, as in myOrders. */
export const viewerOrdersByIds = (db: Db, viewer: Viewer, ids: string[]) =>
  db.prisma.order.findMany({ where: { id: { in: ids }, userId: viewer.id } });

/**
 * Who may follow a restaurant's new orders (the orderPlaced subscription): its owner and admins,
 * the ownership rule of ownership.ts. NOT_FOUND for an unknown restaurant, FORBIDDEN for others.
 */
export async function checkMayFollowOrders(db: Db, viewer: Viewer, restaurantId: string): Promise<void> {
  checkId(restaurantId, "restaurantId");
  const restaurant = await db.prisma.restaurant.findUnique({ where: { id: restaurantId }, select: { ownerId: true } });
  if (!restaurant) throw notFound("restaurant", restaurantId);
  if (!canEdit(viewer, restaurant)) throw forbidden("Only the restaurant's owner or an admin may follow its orders.");
}
