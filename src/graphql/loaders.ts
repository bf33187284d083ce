// Batch-loading helpers shared by resolver files.
import type { Context } from "./context.ts";

/** Orders rows fetched for `keys` back into key order (null where none), as DataLoader expects. */
export function byKey<K, R>(keys: readonly K[], rows: R[], keyOf: (row: R) => K): (R | null)[] {
  const map = new Map<K, R>();
  for (const row of rows) map.set(keyOf(row), row);
  return keys.map((k) => map.get(k) ?? null);
}

/** Groups rows fetched for `keys` into one array per key, in key order. */
export function groupedByKey<K, R>(keys: readonly K[], rows: R[], keyOf: (row: R) => K): R[][] {
  const map = new Map<K, R[]>();
  for (const row of rows) {
    const list = map.get(keyOf(row));
    if (list) list.push(row);
    else map.set(keyOf(row), [row]);
  }
  return keys.map((k) => map.get(k) ?? []);
}

// ---- Rows by id, shared by every resolver file that follows a reference (owner, author, target).

export const loadUser = (ctx: Context, id: string) =>
  ctx
    .loader("userById", async (ids: readonly string[]) =>
      byKey(ids, await ctx.db.user.findMany({ where: { id: { in: [...ids] } } }), (u) => u.id),
    )
    .load(id);

export const loadRestaurant = (ctx: Context, id: string) =>
  ctx
    .loader("restaurantById", async (ids: readonly string[]) =>
      byKey(ids, await ctx.db.restaurant.findMany({ where: { id: { in: [...ids] } } }), (r) => r.id),
    )
    .load(id);

export const loadGrocery = (ctx: Context, id: string) =>
  ctx
    .loader("groceryById", async (ids: readonly string[]) =>
      byKey(ids, await ctx.db.grocery.findMany({ where: { id: { in: [...ids] } } }), (g) => g.id),
    )
    .load(id);
