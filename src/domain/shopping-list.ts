// The shopping list: one entry per user and grocery with a quantity; adding again raises it.
// Users see and change only their own list.
import { z } from "zod";
import type { Db, Prisma } from "../db/client.ts";
import { badInput, notFound } from "./errors.ts";
import { pageWindow, toConnection, type Connection, type PageArgs } from "./pagination.ts";
import { isForeignKeyViolation, isUniqueViolation } from "./prisma-errors.ts";
import type { Viewer } from "./tokens.ts";
import { checkId, recordId } from "./text.ts";
import { parseInput } from "./validation.ts";

export type ShoppingListRow = Prisma.ShoppingListEntryGetPayload<object>;

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
 * Puts a grocery on the caller's list, or raises its quantity. One upsert with an increment
 * (INSERT ... ON CONFLICT DO UPDATE on both databases), so parallel adds all count; should two
 * first adds still race to insert, the loser retries once and then finds the row to update.
 */
export async function addToShoppingList(db: Db, viewer: Viewer, input: unknown): Promise<ShoppingListRow> {
  const { groceryId, quantity } = parseInput(addInput, input);
  const key = { userId: viewer.id, groceryId };
  const current = await db.shoppingListEntry.findUnique({ where: { userId_groceryId: key }, select: { quantity: true } });
  if ((current?.quantity ?? 0) + quantity > MAX_ENTRY_QUANTITY) {
    throw badInput(`quantity: an entry of the shopping list holds at most ${MAX_ENTRY_QUANTITY}`, { field: "quantity" });
  }
  const upsert = () =>
    db.shoppingListEntry.upsert({
      where: { userId_groceryId: key },
      create: { ...key, quantity },
      update: { quantity: { increment: quantity } },
    });
  try {
    try {
      return await upsert();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return await upsert();
    }
  } catch (error) {
    // The foreign key is the existence check: no gap between a look-up and the insert.
    if (isForeignKeyViolation(error)) throw notFound("Grocery", groceryId);
    throw error;
  }
}

/** Takes a grocery off the caller's list; true if it was on it. */
export async function removeFromShoppingList(db: Db, viewer: Viewer, groceryId: string): Promise<boolean> {
  checkId(groceryId, "groceryId");
  const { count } = await db.shoppingListEntry.deleteMany({ where: { userId: viewer.id, groceryId } });
  return count > 0;
}

/** The caller's list, most recently added first (the grocery id breaks ties within a millisecond). */
export async function myShoppingList(db: Db, viewer: Viewer, page: PageArgs): Promise<Connection<ShoppingListRow>> {
  const window = pageWindow(page);
  const where = { userId: viewer.id };
  const [items, total] = await Promise.all([
    db.shoppingListEntry.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { groceryId: "desc" }],
      skip: window.skip,
      take: window.take,
    }),
    db.shoppingListEntry.count({ where }),
  ]);
  return toConnection(items, total, window);
}

/** How many of each grocery the user has on their list (0 when none), in the order of `groceryIds`. */
export async function quantitiesOnList(db: Db, userId: string, groceryIds: readonly string[]): Promise<number[]> {
  const rows = await db.shoppingListEntry.findMany({
    where: { userId, groceryId: { in: [...groceryIds] } },
    select: { groceryId: true, quantity: true },
  });
  const byGrocery = new Map(rows.map((r) => [r.groceryId, r.quantity]));
  return groceryIds.map((id) => byGrocery.get(id) ?? 0);
}
