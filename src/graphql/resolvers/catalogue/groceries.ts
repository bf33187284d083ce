// Resolvers for groceries: thin; the rules live in src/domain/catalogue/groceries.ts. Lists, owner and the
// caller's shopping-list quantity go through per-request loaders (a fixed number of queries a page).
import * as groceries from "../../../domain/catalogue/groceries.ts";
import { canEdit } from "../../../domain/ownership.ts";
import type { GroceryRow } from "../../../db/rows.ts";
import { quantitiesOnList } from "../../../domain/orders/shopping-list.ts";
import type { CreateGroceryInput, Resolvers, UpdateGroceryInput } from "../../__generated__/resolvers.ts";
import { viewerOf, type Context } from "../../data/context.ts";
import { groceryListsOf, loadGrocery, loadUser, referenced } from "../../data/loaders.ts";
import { defineLoader } from "../../data/loader-definition.ts";
import { incomingFile } from "../../transport/multipart-request.ts";

const myShoppingListQuantity = defineLoader("myShoppingListQuantity", (ctx: Context, ids: readonly string[]) =>
  quantitiesOnList(ctx.db, viewerOf(ctx).id, ids),
);
const quantityOnMyList = (ctx: Context, groceryId: string) => ctx.loaderOf(myShoppingListQuantity).load(groceryId);

const list = (field: groceries.ListField) => async (g: GroceryRow, _: unknown, ctx: Context) =>
  (await groceryListsOf(ctx, g.id))[groceries.LIST_KINDS[field]] ?? [];

/** The input without its Upload (the domain gets the file separately, as an IncomingFile). */
async function splitCover(ctx: Context, input: CreateGroceryInput | UpdateGroceryInput) {
  const { cover, ...fields } = input;
  return { fields, cover: await incomingFile(cover, "cover", ctx.settings.uploads.maxBytes) };
}

export const groceriesResolvers: Resolvers = {
  Query: {
    grocery: (_, args, ctx) => loadGrocery(ctx, args.id),
    groceries: (_, args, ctx) => groceries.searchGroceries(ctx.db, args, { anyTextLength: ctx.legacyRest }),
  },
  Mutation: {
    createGrocery: async (_, args, ctx) => {
      const { fields, cover } = await splitCover(ctx, args.input);
      return groceries.createGrocery(ctx.db, ctx.settings.uploads, viewerOf(ctx), fields, cover);
    },
    updateGrocery: async (_, args, ctx) => {
      const { fields, cover } = await splitCover(ctx, args.input);
      return groceries.updateGrocery(ctx.db, ctx.settings.uploads, viewerOf(ctx), args.id, fields, cover);
    },
    deleteGrocery: (_, args, ctx) =>
      groceries.deleteGrocery(ctx.db, ctx.events, ctx.settings.uploads, viewerOf(ctx), args.id),
    removeGrocery: (_, args, ctx) =>
      groceries.removeGrocery(ctx.db, ctx.events, ctx.settings.uploads, viewerOf(ctx), args.id, args.from ?? undefined),
  },
  // Counted only when asked (see RestaurantConnection in restaurants.ts).
  GroceryConnection: {
    totalCount: (page) => page.totalCount(),
    totalCountIsEstimate: (page) => page.totalCountIsEstimate(),
    facets: (page) => page.facets(),
  },
  GroceryFacets: {
    categories: (f) => f.lists.categories ?? [],
  },
  Grocery: {
    metricUnits: list("metricUnits"),
    categories: list("categories"),
    coverUrl: (g) => groceries.coverUrl(g.cover),
    owner: (g, _, ctx) => referenced(loadUser(ctx, g.ownerId)),
    inMyShoppingList: (g, _, ctx) => (ctx.viewer ? quantityOnMyList(ctx, g.id) : 0),
    viewerCanEdit: (g, _, ctx) => canEdit(ctx.viewer, g),
  },
};
