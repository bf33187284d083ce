// Resolvers for the shopping list: thin; the rules live in src/domain/shopping-list.ts.
import type { PageArgs } from "../../domain/pagination.ts";
import * as shoppingList from "../../domain/shopping-list.ts";
import type { ShoppingListRow } from "../../domain/shopping-list.ts";
import { viewerOf, type Context } from "../context.ts";
import { loadGrocery } from "../loaders.ts";

export const shoppingListResolvers = {
  Query: {
    myShoppingList: (_: unknown, args: PageArgs, ctx: Context) => shoppingList.myShoppingList(ctx.db, viewerOf(ctx), args),
  },
  Mutation: {
    addToShoppingList: (_: unknown, args: { groceryId: string; quantity?: number | null }, ctx: Context) =>
      shoppingList.addToShoppingList(ctx.db, ctx.events, viewerOf(ctx), args),
    removeFromShoppingList: (_: unknown, args: { groceryId: string }, ctx: Context) =>
      shoppingList.removeFromShoppingList(ctx.db, ctx.events, viewerOf(ctx), args.groceryId),
  },
  ShoppingListEntry: {
    grocery: (e: ShoppingListRow, _: unknown, ctx: Context) => loadGrocery(ctx, e.groceryId),
    addedAt: (e: ShoppingListRow) => e.createdAt,
  },
};
