// Batch-loading helpers shared by resolver files, and the rows every resolver file may follow a
// reference to (users, restaurants, groceries by id). The reads are src/db/reads/'s, imported
// openly (see restaurant-plan.ts for why).
import { badInput } from "../../contract/errors.ts";
import { idProblem } from "../../domain/text.ts";
import { groceriesByIds, groceryTagsFor, restaurantsByIds, usersByIds } from "../../db/reads/by-id.ts";
import type { GroceryRow, GroceryTagKind, RestaurantRow, UserRow } from "../../db/rows.ts";
import { listsByKind } from "../../domain/catalogue/string-lists.ts";
import type { Context } from "./context.ts";
import { defineLoader } from "./loader-definition.ts";
import { sharedBatches } from "./shared-batches.ts";

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

/**
 * Rows by id, in key order (null where none). An id no row can have (over-long, or holding a NUL
 * or a lone surrogate: see domain/text.ts) is not sent to the database, which could not even
 * compare it: it is answered as bad input on its own, without failing the rest of the batch.
 */
export async function rowsById<R extends { id: string }>(ids: readonly string[], find: (ids: string[]) => Promise<R[]>): Promise<(R | null | Error)[]> {
  const rows = byKey(ids, await find(ids.filter((id) => !idProblem(id))), (r) => r.id);
  return ids.map((id, i) => {
    const problem = idProblem(id);
    return problem ? badInput(`id ${problem}`, { field: "id" }) : rows[i];
  });
}

// Users and restaurants are read with the other requests of the moment (shared-batches.ts).
const usersShared = sharedBatches(usersByIds, (row) => row.id);
const restaurantsShared = sharedBatches(restaurantsByIds, (row) => row.id);

const userById = defineLoader<string, UserRow | null>("userById", (ctx: Context, ids: readonly string[]) =>
  rowsById(ids, (some) => usersShared(ctx.db, some)),
);
const restaurantById = defineLoader<string, RestaurantRow | null>("restaurantById", (ctx: Context, ids: readonly string[]) =>
  rowsById(ids, (some) => restaurantsShared(ctx.db, some)),
);
const groceryById = defineLoader<string, GroceryRow | null>("groceryById", (ctx: Context, ids: readonly string[]) =>
  rowsById(ids, (some) => groceriesByIds(ctx.db, some)),
);

const userLoader = (ctx: Context) => ctx.loaderOf(userById);

export const loadUser = (ctx: Context, id: string) => userLoader(ctx).load(id);

/** Users another statement already brought (a comment's author): later loads need no statement. */
export function primeUsers(ctx: Context, users: Iterable<UserRow>) {
  const loader = userLoader(ctx);
  for (const user of users) loader.prime(user.id, user);
}

export const loadRestaurant = (ctx: Context, id: string) => ctx.loaderOf(restaurantById).load(id);

/** Restaurants another statement already brought: later loads of them need no statement. */
export function primeRestaurants(ctx: Context, restaurants: Iterable<RestaurantRow>) {
  const loader = ctx.loaderOf(restaurantById);
  for (const restaurant of restaurants) loader.prime(restaurant.id, restaurant);
}

export const loadGrocery = (ctx: Context, id: string) => ctx.loaderOf(groceryById).load(id);

/**
 * A row a foreign key points at (an owner, an author, an order's restaurant), for a non-null
 * field. It is there unless removed after the referring row was read in this same request; that
 * race is left as it was: graphql-js answers the null on a non-null field with its own error.
 */
export const referenced = <R>(row: Promise<R | null>) => row as Promise<R>;

// ---- What follows a grocery ---------------------------------------------------------------------

const groceryTagLists = defineLoader("groceryTagLists", async (ctx: Context, ids: readonly string[]) => {
  const rows = await groceryTagsFor(ctx.db, ids);
  return groupedByKey(ids, rows, (r) => r.groceryId).map((list) => listsByKind<GroceryTagKind>(list));
});

/** A grocery's lists (categories, also-known-as names, units), by kind. */
export const groceryListsOf = (ctx: Context, groceryId: string) => ctx.loaderOf(groceryTagLists).load(groceryId);
