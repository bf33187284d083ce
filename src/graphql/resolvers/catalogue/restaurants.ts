// Resolvers for restaurants: thin. The rules live in src/domain/catalogue/restaurants.ts; what a selection
// reads, and the loaders of what follows a restaurant, in src/graphql/data/restaurant-plan.ts.
// (latestComment and comments are in comments.ts; badges in badges.ts.)
import * as restaurants from "../../../domain/catalogue/restaurants.ts";
import { canEdit } from "../../../domain/ownership.ts";
import type { Resolvers } from "../../__generated__/resolvers.ts";
import { viewerOf } from "../../data/context.ts";
import {
  column,
  listOf,
  openingHoursOf,
  ownerOf,
  ownerRatingOf,
  photosOf,
  restaurantFor,
  restaurantPageFor,
} from "../../data/restaurant-plan.ts";

export const restaurantsResolvers: Resolvers = {
  Query: {
    restaurant: (_, args, ctx, info) => restaurantFor(ctx, args.id, info),
    restaurants: (_, args, ctx, info) => restaurantPageFor(ctx, args, info),
  },
  Mutation: {
    createRestaurant: (_, args, ctx) => restaurants.createRestaurant(ctx.db, viewerOf(ctx), args.input),
    updateRestaurant: (_, args, ctx) =>
      restaurants.updateRestaurant(ctx.db, ctx.events, viewerOf(ctx), args.id, args.input),
    deleteRestaurant: (_, args, ctx) => restaurants.deleteRestaurant(ctx.db, ctx.events, viewerOf(ctx), args.id),
  },
  // The total is counted only when asked (LazyConnection): an explicit resolver, since compiled
  // execution reads a field without one as a plain property and never calls it.
  RestaurantConnection: {
    totalCount: (page) => page.totalCount(),
    totalCountIsEstimate: (page) => page.totalCountIsEstimate(),
    facets: (page) => page.facets(),
  },
  RestaurantFacets: {
    cuisines: (f) => f.lists.cuisines ?? [],
    categories: (f) => f.lists.categories ?? [],
    priceRanges: (f) => f.lists.priceRanges ?? [],
    cities: (f) => f.lists.cities ?? [],
  },
  Restaurant: {
    types: (r, _, ctx) => listOf(ctx, r, "types"),
    categories: (r, _, ctx) => listOf(ctx, r, "categories"),
    cuisines: (r, _, ctx) => listOf(ctx, r, "cuisines"),
    dishes: (r, _, ctx) => listOf(ctx, r, "dishes"),
    distanceKm: (r) => (r as { distanceKm?: number }).distanceKm ?? null,
    paymentMethods: (r, _, ctx) => listOf(ctx, r, "paymentMethods"),
    priceRange: (r, _, ctx) => listOf(ctx, r, "priceRange"),
    photos: (r, _, ctx) => photosOf(ctx, r),
    openingHours: (r, _, ctx) => openingHoursOf(ctx, r),
    contact: (r) => ({ email: column(r, "email"), phone: column(r, "phone") }),
    address: (r) => restaurants.addressOf(r),
    owner: (r, _, ctx) => ownerOf(ctx, r),
    rating: (r) => column(r, "ratingAvg"),
    commentCount: (r) => column(r, "ratingCount"),
    viewerCanEdit: (r, _, ctx) => canEdit(ctx.viewer, { ownerId: column(r, "ownerId") }),
  },
  User: {
    rating: (u, _, ctx) => ownerRatingOf(ctx, u.id),
  },
};
