// Resolvers for orders: thin; the rules live in src/domain/orders.ts.
import * as orders from "../../domain/orders.ts";
import type { PageArgs } from "../../domain/pagination.ts";
import { viewerOf, type Context } from "../context.ts";
import { loadRestaurant } from "../loaders.ts";

export const ordersResolvers = {
  Query: {
    myOrders: (_: unknown, args: PageArgs, ctx: Context) => orders.myOrders(ctx.db, viewerOf(ctx), args),
  },
  Mutation: {
    orderRecipe: (_: unknown, args: { input: unknown }, ctx: Context) => orders.orderRecipe(ctx.db, ctx.events, viewerOf(ctx), args.input),
  },
  Order: {
    restaurant: (order: { restaurantId: string }, _: unknown, ctx: Context) => loadRestaurant(ctx, order.restaurantId),
  },
};
