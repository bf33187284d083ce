// The Subscription fields: which events each follows (`subscribe`, with the subscriber's own
// filter and the ownership check at the start) and what each event shows (`resolve`, which loads
// the row the event names: events carry ids only). Auth (@requireAuth, role) is wrapped around
// both by policy/auth.ts. An event whose row is gone by the time it is read is skipped, and
// so is one whose row is not what the subscription follows: whoever can publish on the bus
// (NOTIFY, Redis PUBLISH) can name any ids, so the restaurant of a delivered comment or order is
// checked against the subscription's own argument, never taken from the event.
import { commentById, existingRestaurantId, orderById, reportById } from "../../domain/event-rows.ts";
import { checkMayFollowOrders } from "../../domain/orders/orders.ts";
import * as shoppingList from "../../domain/orders/shopping-list.ts";
import type { Resolvers } from "../__generated__/resolvers.ts";
import { viewerOf, type Context } from "../data/context.ts";
import { loadRestaurant } from "../data/loaders.ts";
import { GoneEvent } from "../subscriptions/execute.ts";
import { liveEvents, type LiveOf } from "../subscriptions/events/live-source.ts";
import { onceForEvent, readAhead } from "../subscriptions/events/event-rows.ts";

/** The row, when it exists and belongs to `restaurantId` (the subscription's argument); else the event is skipped. */
const ofRestaurant = <T extends { restaurantId: string }>(row: T | null, restaurantId: string): T => {
  if (row === null || row.restaurantId !== restaurantId) throw new GoneEvent();
  return row;
};

const present = <T>(row: T | null): T => {
  if (row === null) throw new GoneEvent();
  return row;
};

/** An event's row, as both the read ahead (in the filter) and the resolver read it: once per event. */
const commentOf = (ctx: Context, e: LiveOf<"commentAdded">) => () => commentById(ctx.db, e.commentId);
const orderOf = (ctx: Context, e: LiveOf<"orderPlaced">) => () => orderById(ctx.db, e.orderId);

export const subscriptionResolvers: Resolvers = {
  Subscription: {
    commentAdded: {
      subscribe: async (_, args, ctx) => {
        const id = await existingRestaurantId(ctx.db, args.restaurantId, "restaurantId");
        return liveEvents(
          ctx.events,
          "commentAdded",
          (e) => e.restaurantId === id && readAhead(e, "comment", commentOf(ctx, e)),
        );
      },
      resolve: async (event: LiveOf<"commentAdded">, args: { restaurantId: string }, ctx: Context) =>
        ofRestaurant(await onceForEvent(event, "comment", commentOf(ctx, event)), args.restaurantId),
    },
    restaurantChanged: {
      subscribe: async (_, args, ctx) => {
        const id = await existingRestaurantId(ctx.db, args.id, "id");
        return liveEvents(ctx.events, "restaurantChanged", (e) => e.restaurantId === id);
      },
      resolve: (event: LiveOf<"restaurantChanged">) => event,
    },
    orderPlaced: {
      subscribe: async (_, args, ctx) => {
        await checkMayFollowOrders(ctx.db, viewerOf(ctx), args.restaurantId);
        return liveEvents(
          ctx.events,
          "orderPlaced",
          (e) => e.restaurantId === args.restaurantId && readAhead(e, "order", orderOf(ctx, e)),
        );
      },
      resolve: async (event: LiveOf<"orderPlaced">, args: { restaurantId: string }, ctx: Context) =>
        ofRestaurant(await onceForEvent(event, "order", orderOf(ctx, event)), args.restaurantId),
    },
    reportFiled: {
      subscribe: (_, __, ctx) => liveEvents(ctx.events, "reportFiled", () => true),
      resolve: async (event: LiveOf<"reportFiled">, _: unknown, ctx: Context) =>
        present(await onceForEvent(event, "report", () => reportById(ctx.db, event.reportId))),
    },
    shoppingListChanged: {
      subscribe: (_, __, ctx) => {
        const userId = viewerOf(ctx).id;
        return liveEvents(ctx.events, "shoppingListChanged", (e) => e.userId === userId);
      },
      resolve: (event: LiveOf<"shoppingListChanged">) => event,
    },
  },
  RestaurantChange: {
    // After REMOVED, null; an UPDATED restaurant removed before this event was read is null too.
    restaurant: (event, _, ctx) => (event.change === "REMOVED" ? null : loadRestaurant(ctx, event.restaurantId)),
  },
  ShoppingListChange: {
    changedAt: (event) => new Date(event.publishedAt),
    shoppingList: (_, args, ctx) => shoppingList.myShoppingList(ctx.db, viewerOf(ctx), args),
  },
};
