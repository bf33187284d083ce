// Resolvers for restaurants: thin; the rules live in src/domain/restaurants.ts. Every field that
// needs another table goes through a per-request loader, so a page costs a fixed number of queries.
// (latestComment and comments are in comments.ts; badges in badges.ts.)
import * as restaurants from "../../domain/restaurants.ts";
import { canEdit } from "../../domain/ownership.ts";
import { openingHoursFor, ownerRatingSums, restaurantPhotosFor, restaurantTagsFor, type ListField, type TagKind } from "../../domain/restaurants.ts";
import type { RestaurantRow } from "../../db/rows.ts";
import { listsByKind } from "../../domain/string-lists.ts";
import type { Resolvers } from "../__generated__/resolvers.ts";
import { viewerOf, type Context } from "../context.ts";
import { byKey, groupedByKey, loadRestaurant, loadUser, referenced } from "../loaders.ts";
import { defineLoader } from "../loader-definition.ts";

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

export const restaurantsResolvers: Resolvers = {
  Query: {
    restaurant: (_, args, ctx) => loadRestaurant(ctx, args.id),
    restaurants: (_, args, ctx) => restaurants.searchRestaurants(ctx.db, args),
  },
  Mutation: {
    createRestaurant: (_, args, ctx) => restaurants.createRestaurant(ctx.db, viewerOf(ctx), args.input),
    updateRestaurant: (_, args, ctx) =>
      restaurants.updateRestaurant(ctx.db, ctx.events, viewerOf(ctx), args.id, args.input),
    deleteRestaurant: (_, args, ctx) => restaurants.deleteRestaurant(ctx.db, ctx.events, viewerOf(ctx), args.id),
  },
  Restaurant: {
    types: list("types"),
    categories: list("categories"),
    cuisines: list("cuisines"),
    paymentMethods: list("paymentMethods"),
    priceRange: list("priceRange"),
    photos: (r, _, ctx) => photosOf(ctx, r.id),
    openingHours: (r, _, ctx) => openingHoursOf(ctx, r.id),
    contact: (r) => ({ email: r.email, phone: r.phone }),
    address: (r) => restaurants.addressOf(r),
    owner: (r, _, ctx) => referenced(loadUser(ctx, r.ownerId)),
    rating: (r) => r.ratingAvg,
    commentCount: (r) => r.ratingCount,
    viewerCanEdit: (r, _, ctx) => canEdit(ctx.viewer, r),
  },
  User: {
    rating: (u, _, ctx) => ownerRatingOf(ctx, u.id),
  },
};
