// Resolvers for restaurants: thin; the rules live in src/domain/restaurants.ts. Every field that
// needs another table goes through a per-request loader, so a page costs a fixed number of queries.
// (latestComment and comments are in comments.ts; badges in badges.ts.)
import * as restaurants from "../../domain/restaurants.ts";
import { canEdit } from "../../domain/ownership.ts";
import type { ListField, RestaurantRow, RestaurantSort, TagKind } from "../../domain/restaurants.ts";
import { listsByKind } from "../../domain/string-lists.ts";
import type { PageArgs } from "../../domain/pagination.ts";
import { viewerOf, type Context } from "../context.ts";
import { byKey, groupedByKey, loadRestaurant, loadUser } from "../loaders.ts";
import { defineLoader } from "../loader-definition.ts";
import { openingHoursFor, ownerRatingSums, restaurantPhotosFor, restaurantTagsFor } from "../../db/reads.ts";

const restaurantTagLists = defineLoader("restaurantTagLists", async (ctx: Context, ids: readonly string[]) => {
  const rows = await restaurantTagsFor(ctx.db, ids);
  return groupedByKey(ids, rows, (r) => r.restaurantId).map((list) => listsByKind<TagKind>(list));
});
const tagListsOf = (ctx: Context, restaurantId: string) => ctx.loaderOf(restaurantTagLists).load(restaurantId);

const restaurantPhotos = defineLoader("restaurantPhotos", async (ctx: Context, ids: readonly string[]) => {
  const rows = await restaurantPhotosFor(ctx.db, ids);
  return groupedByKey(ids, rows, (r) => r.restaurantId).map((list) => list.map((p) => p.url));
});
const photosOf = (ctx: Context, restaurantId: string) => ctx.loaderOf(restaurantPhotos).load(restaurantId);

const restaurantOpeningHours = defineLoader("restaurantOpeningHours", async (ctx: Context, ids: readonly string[]) => {
  const rows = await openingHoursFor(ctx.db, ids);
  return groupedByKey(ids, rows, (r) => r.restaurantId).map((list) => list.map(restaurants.openingPeriod));
});
const openingHoursOf = (ctx: Context, restaurantId: string) => ctx.loaderOf(restaurantOpeningHours).load(restaurantId);

const ownerRating = defineLoader("ownerRating", async (ctx: Context, ids: readonly string[]) => {
  const sums = await ownerRatingSums(ctx.db, ids);
  return byKey(ids, sums, (s) => s.ownerId).map((s) => restaurants.meanRating(s?.ratingSum ?? 0, s?.ratingCount ?? 0));
});
/** Mean comment rating over the restaurants a user owns, from the denormalised sums. */
const ownerRatingOf = (ctx: Context, userId: string) => ctx.loaderOf(ownerRating).load(userId);

const list = (field: ListField) => async (r: RestaurantRow, _: unknown, ctx: Context) =>
  (await tagListsOf(ctx, r.id))[restaurants.LIST_KINDS[field]] ?? [];

export const restaurantsResolvers = {
  Query: {
    restaurant: (_: unknown, args: { id: string }, ctx: Context) => loadRestaurant(ctx, args.id),
    restaurants: (_: unknown, args: { filter?: unknown; sort?: RestaurantSort } & PageArgs, ctx: Context) =>
      restaurants.searchRestaurants(ctx.db, args),
  },
  Mutation: {
    createRestaurant: (_: unknown, args: { input: unknown }, ctx: Context) =>
      restaurants.createRestaurant(ctx.db, viewerOf(ctx), args.input),
    updateRestaurant: (_: unknown, args: { id: string; input: unknown }, ctx: Context) =>
      restaurants.updateRestaurant(ctx.db, ctx.events, viewerOf(ctx), args.id, args.input),
    deleteRestaurant: (_: unknown, args: { id: string }, ctx: Context) => restaurants.deleteRestaurant(ctx.db, ctx.events, viewerOf(ctx), args.id),
  },
  Restaurant: {
    types: list("types"),
    categories: list("categories"),
    cuisines: list("cuisines"),
    paymentMethods: list("paymentMethods"),
    priceRange: list("priceRange"),
    photos: (r: RestaurantRow, _: unknown, ctx: Context) => photosOf(ctx, r.id),
    openingHours: (r: RestaurantRow, _: unknown, ctx: Context) => openingHoursOf(ctx, r.id),
    contact: (r: RestaurantRow) => ({ email: r.email, phone: r.phone }),
    address: (r: RestaurantRow) => restaurants.addressOf(r),
    owner: (r: RestaurantRow, _: unknown, ctx: Context) => loadUser(ctx, r.ownerId),
    rating: (r: RestaurantRow) => r.ratingAvg,
    commentCount: (r: RestaurantRow) => r.ratingCount,
    viewerCanEdit: (r: RestaurantRow, _: unknown, ctx: Context) => canEdit(ctx.viewer, r),
  },
  User: {
    rating: (u: { id: string }, _: unknown, ctx: Context) => ownerRatingOf(ctx, u.id),
  },
};
