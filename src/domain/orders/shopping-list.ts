// The shopping list: one entry per user and grocery with a quantity; adding again raises it.
// Users see and change only their own list.
import { z } from "zod";
import type { Db } from "../../db/db.ts";
import type { Prisma } from "../../db/prisma.ts";
import type { ShoppingListRow } from "../../db/rows.ts";
import type { EventBus } from "../../events/bus.ts";
import { badInput, conflict, notFound } from "../../contract/errors.ts";
import { countedConnection, type Connection, type PageArgs } from "../pagination.ts";
import { isForeignKeyViolation, isUniqueViolation } from "../prisma-errors.ts";
import type { Viewer } from "../accounts/tokens.ts";
import { checkId, recordId } from "../text.ts";
import { parseInput } from "../validation.ts";

/** Ceiling of one entry's quantity, far below the 32-bit column limit. */
export const MAX_ENTRY_QUANTITY = 1_000_000;

const quantityMessage = "quantity must be a whole number from 1 to 1000";
export const addInput = z.object({
  groceryId: recordId("groceryId"),
  quantity: z
    .number({ error: quantityMessage })
    .int(quantityMessage)
    .min(1, quantityMessage)
    .max(1000, quantityMessage)
    .nullish()
    .transform((q) => q ?? 1),
});

/**
 * Puts a grocery on the caller's list, or raises its quantity, never past MAX_ENTRY_QUANTITY.
 * Raising is one conditional UPDATE (quantity + n, only while the result stays within the
 * ceiling) read back in the same transaction: parallel adds all count (no lost update) and
 * together never pass the ceiling (a look-up then an upsert would let each of them pass it).
 * A first add inserts; should two first adds race, the loser raises the winner's row.
 */
export async function addToShoppingList(
  db: Db,
  events: EventBus,
  viewer: Viewer,
  input: unknown,
): Promise<ShoppingListRow> {
  const entry = await addOrRaise(db, viewer, parseInput(addInput, input));
  events.publish({ topic: "shoppingListChanged", userId: viewer.id });
  return entry;
}

async function addOrRaise(
  db: Db,
  viewer: Viewer,
  { groceryId, quantity }: { groceryId: string; quantity: number },
): Promise<ShoppingListRow> {
  const key = { userId: viewer.id, groceryId };
  const where = { userId_groceryId: key };
  try {
    // More than a couple of rounds would take an entry created and removed again between each step.
    for (let round = 0; round < 5; round++) {
      const raised = await db.prisma.$transaction(async (tx) => {
        const { count } = await tx.shoppingListEntry.updateMany({
          where: { ...key, quantity: { lte: MAX_ENTRY_QUANTITY - quantity } },
          data: { quantity: { increment: quantity } },
        });
        return count === 1 ? tx.shoppingListEntry.findUniqueOrThrow({ where }) : null;
      });
      if (raised) return raised;
      const current = await db.prisma.shoppingListEntry.findUnique({ where, select: { quantity: true } });
      if (current && current.quantity + quantity > MAX_ENTRY_QUANTITY) {
        throw badInput(`quantity: an entry of the shopping list holds at most ${MAX_ENTRY_QUANTITY}`, {
          field: "quantity",
        });
      }
      if (current) continue; // created meanwhile, with room left: raise it
      try {
        return await db.prisma.shoppingListEntry.create({ data: { ...key, quantity } });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error; // another first add won: raise its row
      }
    }
    throw conflict("The shopping list entry kept changing while it was being added to; try again.");
  } catch (error) {
    // The foreign key is the existence check: no gap between a look-up and the insert.
    if (isForeignKeyViolation(error)) throw notFound("Grocery", groceryId);
    throw error;
  }
}

/** Takes a grocery off the caller's list; true if it was on it (then the change is announced). */
export async function removeFromShoppingList(
  db: Db,
  events: EventBus,
  viewer: Viewer,
  groceryId: string,
): Promise<boolean> {
  checkId(groceryId, "groceryId");
  const { count } = await db.prisma.shoppingListEntry.deleteMany({ where: { userId: viewer.id, groceryId } });
  if (count > 0) events.publish({ topic: "shoppingListChanged", userId: viewer.id });
  return count > 0;
}

/** The caller's list, most recently added first (the grocery id breaks ties within a millisecond). */
export async function myShoppingList(db: Db, viewer: Viewer, page: PageArgs): Promise<Connection<ShoppingListRow>> {
  const where = { userId: viewer.id };
  return countedConnection(
    page,
    () => db.prisma.shoppingListEntry.count({ where }),
    (window) =>
      db.prisma.shoppingListEntry.findMany({
        where,
        orderBy: [{ createdAt: "desc" }, { groceryId: "desc" }],
        ...window,
      }),
  );
}

/** How many of each grocery the user has on their list (0 when none), in the order of `groceryIds`. */
export async function quantitiesOnList(db: Db, userId: string, groceryIds: readonly string[]): Promise<number[]> {
  const rows = await db.prisma.shoppingListEntry.findMany({
    where: { userId, groceryId: { in: [...groceryIds] } },
    select: { groceryId: true, quantity: true },
  });
  const byGrocery = new Map(rows.map((r) => [r.groceryId, r.quantity]));
  return groceryIds.map((id) => byGrocery.get(id) ?? 0);
}
