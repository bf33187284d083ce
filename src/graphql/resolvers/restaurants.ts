// Resolvers for restaurants: thin; the rules live in src/domain/restaurants.ts. Every field that
// needs another table goes through a per-request loader, so a page costs a fixed number of queries.
// (latestComment and comments are in comments.ts; badges in badges.ts.)
import * as restaurants from "../../domain/restaurants.ts";
import { canEdit } from "../../domain/ownership.ts";
import { openingHoursFor, ownerRatingSums, restaurantPhotosFor, restaurantTagsFor, type ListField, type TagKind } from "../../domain/restaurants.ts";
import type { RestaurantRow } from "../../db/rows.ts";
import { listsByKind } from "../../domain/string-lists.ts";
import type { Address, Resolvers, Restaurant, User } from "../__generated__/resolvers.ts";
import { viewerOf, type Context } from "../data/context.ts";
import { bringAlong, broughtWith, byKey, groupedByKey, loadRestaurant, loadUser, primeRestaurants, referenced, rowsById } from "../data/loaders.ts";
import { defineLoader, type LoaderDefinition } from "../data/loader-definition.ts";
import {
  asksRelated,
  restaurantsWithRelated,
  type RestaurantColumn,
  type RestaurantRelations,
  type RestaurantWithRelated,
  type UserColumn,
} from "../../domain/restaurants.ts";
import { eitherOf, selectionOf, type Selection } from "../data/selection.ts";
import { primeLatestComment } from "./comments.ts";

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

// ---- Look-ahead: a root field reads the rows its selection will show in its own statement ------

/** The columns of a user's row each User field reads (its id is always read). */
const USER_COLUMNS_READ: Record<Exclude<keyof User, "__typename">, readonly UserColumn[]> = {
  id: [],
  username: ["username"],
  firstName: ["firstName"],
  avatar: ["avatar"],
  role: ["role"],
  rating: [],
  createdAt: ["createdAt"],
};

/** The columns named by the fields a selection shows, out of a field-to-columns table. */
function columnsRead<C extends string>(selection: Selection, table: Record<string, readonly C[]>): C[] {
  const columns = new Set<C>();
  for (const [field, read] of Object.entries(table)) if (selection.has(field)) for (const column of read) columns.add(column);
  return [...columns];
}

/**
 * What a selection of Restaurant fields shows beside the row's own columns. The owner comes with
 * the columns its selection shows: such a partial row answers that owner field only (bringAlong),
 * it never serves the request's other look-ups of the same user.
 */
const relationsAsked = (restaurant: Selection): RestaurantRelations => ({
  owner: restaurant.has("owner"),
  ownerColumns: columnsRead(restaurant.of("owner"), USER_COLUMNS_READ),
  ownerRating: restaurant.of("owner").has("rating"),
  latestComment: restaurant.has("latestComment"),
  authorRating: restaurant.of("latestComment").of("author").has("rating"),
  tags: (Object.keys(restaurants.LIST_KINDS) as ListField[]).some((field) => restaurant.has(field)),
  photos: restaurant.has("photos"),
  openingHours: restaurant.has("openingHours"),
  badges: restaurant.has("badges"),
});

/**
 * The columns of its row each Restaurant field reads (its resolver below, in comments.ts or
 * badges.ts, or the property of its name). A page reads only the columns its selection shows, as
 * PostGraphile does, so its rows hold those alone: every field must be listed (tsc checks that
 * none is missing; look-ahead.test.ts checks each field alone against a whole row). Fields that
 * read other tables by the restaurant's id need no column of their own: the id is always read.
 */
const COLUMNS_READ: Record<Exclude<keyof Restaurant, "__typename">, readonly RestaurantColumn[]> = {
  id: [],
  title: ["title"],
  description: ["description"],
  logo: ["logo"],
  cover: ["cover"],
  url: ["url"],
  acceptsReservations: ["acceptsReservations"],
  starRating: ["starRating"],
  canHomeDeliver: ["canHomeDeliver"],
  website: ["website"],
  contact: ["email", "phone"],
  address: [], // by the address's own selection: ADDRESS_COLUMNS_READ
  owner: ["ownerId"],
  viewerCanEdit: ["ownerId"],
  rating: ["ratingAvg"],
  commentCount: ["ratingCount"],
  createdAt: ["createdAt"],
  updatedAt: ["updatedAt"],
  types: [],
  categories: [],
  cuisines: [],
  dishes: [],
  distanceKm: [], // computed by a near search (searches.ts), never stored
  paymentMethods: [],
  priceRange: [],
  photos: [],
  openingHours: [],
  badges: [],
  latestComment: [],
  comments: [],
};

/** The columns each Address field reads. */
const ADDRESS_COLUMNS_READ: Record<Exclude<keyof Address, "__typename">, readonly RestaurantColumn[]> = {
  addressLine1: ["addressLine1"],
  addressLine2: ["addressLine2"],
  landmark: ["landmark"],
  state: ["state"],
  city: ["city"],
  district: ["district"],
  country: ["country"],
  geo: ["latitude", "longitude"],
  timeZone: ["timeZone"],
};

/** How many columns the fields read at most: a selection reading them all reads whole rows (search keys and sums too). */
const ALL_COLUMNS = new Set(["id", ...Object.values(COLUMNS_READ).flat(), ...restaurants.ADDRESS_COLUMNS]).size;

/**
 * The columns a selection of Restaurant fields reads (the id always). An address shown in part
 * reads its parts shown and whether it has any part at all (addressGiven), which decides if it is null.
 */
function columnsShown(restaurant: Selection): RestaurantColumn[] {
  const columns = new Set<RestaurantColumn>(["id", ...columnsRead(restaurant, COLUMNS_READ)]);
  if (restaurant.has("address")) {
    const parts = columnsRead(restaurant.of("address"), ADDRESS_COLUMNS_READ);
    for (const column of parts) columns.add(column);
    if (parts.length < restaurants.ADDRESS_COLUMNS.length) columns.add("addressGiven");
  }
  return [...columns];
}

/** Hands the related rows a statement brought to the loaders the nested fields use: they then send none. */
function primeRelated(ctx: Context, rows: RestaurantWithRelated[]) {
  const ratings = ctx.loaderOf(ownerRating);
  for (const row of rows) {
    for (const sums of [row.ownerRating, row.authorRating]) {
      if (sums) ratings.prime(sums.ownerId, restaurants.meanRating(sums.ratingSum, sums.ratingCount));
    }
    if (row.latestComment !== undefined) primeLatestComment(ctx, row.restaurant.id, row.latestComment);
    bringAlong(row.restaurant, {
      owner: row.owner,
      latestComment: row.latestComment,
      tagLists: row.tags && listsByKind<TagKind>(row.tags),
      photos: row.photos,
      openingHours: row.openingHours?.map(restaurants.openingPeriod),
      badges: row.badges,
    });
  }
}

/**
 * Restaurants by id with the relations and columns asked: one loader per combination, so each
 * batch is one statement. Selections are the client's to vary, so at most MAX_COMBINATIONS are
 * kept (past that the map starts over: a request then merely batches less). Whole rows (every
 * column asked) also serve the request's later look-ups of the same restaurants.
 */
const restaurantWithRelated = new Map<string, LoaderDefinition<string, RestaurantRow | null>>();
const MAX_COMBINATIONS = 64;
function loadRestaurantWith(ctx: Context, id: string, asked: RestaurantRelations, columns: RestaurantColumn[]) {
  const whole = columns.length === ALL_COLUMNS && !columns.includes("addressGiven");
  // A whole row serves other fields' look-ups of it, whose selections may show more of the owner.
  const want = whole ? { ...asked, ownerColumns: undefined } : asked;
  const owner = want.owner ? `o(${want.ownerColumns?.join(",") ?? "*"})` : "";
  const flags = (["ownerRating", "latestComment", "authorRating", "tags", "photos", "openingHours", "badges"] as const).filter((f) => want[f]).join("+");
  const key = `${owner}${flags}:${whole ? "*" : columns.sort().join(",")}`;
  let definition = restaurantWithRelated.get(key);
  if (!definition) {
    definition = defineLoader(`restaurantWithRelated:${key}`, (ctx: Context, ids: readonly string[]) =>
      rowsById(ids, async (some) => {
        const rows = await restaurantsWithRelated(ctx.db, some, want, whole ? undefined : columns);
        primeRelated(ctx, rows);
        const found = rows.map((r) => r.restaurant);
        if (whole) primeRestaurants(ctx, found);
        return found;
      }),
    );
    if (restaurantWithRelated.size >= MAX_COMBINATIONS) restaurantWithRelated.clear();
    restaurantWithRelated.set(key, definition);
  }
  return ctx.loaderOf(definition).load(id);
}

/** A list field: from the lists the restaurant's statement brought (at once), else through its loader. */
const list = (field: ListField) => (r: RestaurantRow, _: unknown, ctx: Context) => {
  const kind = restaurants.LIST_KINDS[field];
  const brought = broughtWith(r)?.tagLists;
  return brought ? (brought[kind] ?? []) : tagListsOf(ctx, r.id).then((lists) => lists[kind] ?? []);
};

export const restaurantsResolvers: Resolvers = {
  Query: {
    restaurant: (_, args, ctx, info) => {
      const restaurant = selectionOf(info);
      const want = relationsAsked(restaurant);
      return asksRelated(want) ? loadRestaurantWith(ctx, args.id, want, columnsShown(restaurant)) : loadRestaurant(ctx, args.id);
    },
    restaurants: async (_, args, ctx, info) => {
      const connection = selectionOf(info);
      const restaurant = eitherOf(connection.of("nodes"), connection.of("edges").of("node"));
      const page = await restaurants.searchRestaurants(ctx.db, args, {
        ...relationsAsked(restaurant),
        count: connection.has("totalCount"),
        columns: columnsShown(restaurant),
      });
      primeRelated(ctx, page.related);
      return page;
    },
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
    types: list("types"),
    categories: list("categories"),
    cuisines: list("cuisines"),
    dishes: list("dishes"),
    distanceKm: (r) => (r as RestaurantRow & { distanceKm?: number }).distanceKm ?? null,
    paymentMethods: list("paymentMethods"),
    priceRange: list("priceRange"),
    photos: (r, _, ctx) => broughtWith(r)?.photos ?? photosOf(ctx, r.id),
    openingHours: (r, _, ctx) => broughtWith(r)?.openingHours ?? openingHoursOf(ctx, r.id),
    contact: (r) => ({ email: r.email, phone: r.phone }),
    address: (r) => restaurants.addressOf(r),
    owner: (r, _, ctx) => broughtWith(r)?.owner ?? referenced(loadUser(ctx, r.ownerId)),
    rating: (r) => r.ratingAvg,
    commentCount: (r) => r.ratingCount,
    viewerCanEdit: (r, _, ctx) => canEdit(ctx.viewer, r),
  },
  User: {
    rating: (u, _, ctx) => ownerRatingOf(ctx, u.id),
  },
};
