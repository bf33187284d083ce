// Resolvers for the shopping list: thin; the rules live in src/domain/orders/shopping-list.ts.
import * as shoppingList from "../../../domain/orders/shopping-list.ts";
import type { Resolvers } from "../../__generated__/resolvers.ts";
import { viewerOf } from "../../data/context.ts";
import { loadGrocery, referenced } from "../../data/loaders.ts";

export const shoppingListResolvers: Resolvers = {
  Query: {
    myShoppingList: (_, args, ctx) => shoppingList.myShoppingList(ctx.db, viewerOf(ctx), args),
  },
  Mutation: {
    addToShoppingList: (_, args, ctx) => shoppingList.addToShoppingList(ctx.db, ctx.events, viewerOf(ctx), args),
    removeFromShoppingList: (_, args, ctx) =>
      shoppingList.removeFromShoppingList(ctx.db, ctx.events, viewerOf(ctx), args.groceryId),
  },
  ShoppingListEntry: {
    grocery: (e, _, ctx) => referenced(loadGrocery(ctx, e.groceryId)),
    addedAt: (e) => e.createdAt,
  },
};
