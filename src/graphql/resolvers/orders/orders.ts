// Resolvers for orders: thin; the rules live in src/domain/orders/orders.ts.
import * as orders from "../../../domain/orders/orders.ts";
import type { Resolvers } from "../../__generated__/resolvers.ts";
import { viewerOf } from "../../data/context.ts";
import { loadRestaurant, referenced } from "../../data/loaders.ts";

export const ordersResolvers: Resolvers = {
  Query: {
    myOrders: (_, args, ctx) => orders.myOrders(ctx.db, viewerOf(ctx), args),
  },
  Mutation: {
    orderRecipe: (_, args, ctx) => orders.orderRecipe(ctx.db, ctx.events, viewerOf(ctx), args.input),
  },
  Order: {
    restaurant: (order, _, ctx) => referenced(loadRestaurant(ctx, order.restaurantId)),
  },
};
