// The restaurant read plan, in one place: which columns and related rows a selection of
// Restaurant fields shows (look-ahead), the one statement that reads them (by id, or a search
// page through the domain), and the per-request loaders of the lists and relations that follow a
// restaurant (tags, photos, opening hours, badges, the owner's rating, the latest comment),
// answered from that statement wherever it brought them. The resolvers of Restaurant's fields ask here.
//
// The reads are src/db/reads/'s, imported openly: no rule applies to them (who may ask and
// which fields they see is the schema's directives), so the domain does not hand them out; the
// layers test allows this folder, and only it, to import them.
import type { GraphQLResolveInfo } from "graphql";
import {
  openingHoursFor,
  ownerRatingSums,
  restaurantBadgesFor,
  restaurantPhotosFor,
  restaurantTagsFor,
} from "../../db/reads/by-id.ts";
import type { Db } from "../../db/db.ts";
import type { RestaurantColumn, UserColumn } from "../../db/reads/columns.ts";
import { latestCommentsFor, type CommentWindow } from "../../db/reads/comments.ts";
import {
  asksRelated,
  restaurantsWithRelated,
  type RestaurantRelations,
  type RestaurantWithRelated,
} from "../../db/reads/related.ts";
import type { CommentWithAuthor, RestaurantBadgeWithBadge, RestaurantPartial, RestaurantRow, RestaurantTagKind, UserRow } from "../../db/rows.ts";
import * as comments from "../../domain/catalogue/comments.ts";
import * as restaurants from "../../domain/catalogue/restaurants.ts";
import { readWindow, windowOf, type PageArgs } from "../../domain/pagination.ts";
import { listsByKind } from "../../domain/catalogue/string-lists.ts";
import type { Address, QueryRestaurantsArgs, Restaurant, User } from "../__generated__/resolvers.ts";
import type { Context } from "./context.ts";
import { defineLoader, type LoaderDefinition } from "./loader-definition.ts";
import { byKey, groupedByKey, loadRestaurant, loadUser, primeRestaurants, primeUsers, referenced, rowsById } from "./loaders.ts";
import { eitherOf, selectionOf, type Selection } from "./selection.ts";
import { sharedBatches } from "./shared-batches.ts";

// ---- Which columns each field reads ------------------------------------------------------------

/** The columns of a user's row each User field reads (its id is always read). */
const USER_COLUMNS_READ = {
  id: [],
  username: ["username"],
  firstName: ["firstName"],
  avatar: ["avatar"],
  role: ["role"],
  rating: [],
  createdAt: ["createdAt"],
} satisfies Record<Exclude<keyof User, "__typename">, readonly UserColumn[]>;

/**
 * The columns of its row each Restaurant field reads (its resolver in resolvers/catalogue/restaurants.ts,
 * comments.ts or badges.ts, or the property of its name). A page reads only the columns its
 * selection shows, as PostGraphile does, so its rows hold those alone (RestaurantPartial): every
 * field is listed (tsc checks none is missing; look-ahead.test.ts checks each field alone against
 * a whole row). Fields that read other tables by the restaurant's id need no column: the id is always read.
 */
const COLUMNS_READ = {
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
  distanceKm: [], // computed by a near search (src/db/search/), never stored
  paymentMethods: [],
  priceRange: [],
  photos: [],
  openingHours: [],
  badges: [],
  latestComment: [],
  comments: ["ratingCount"], // the page's total: the restaurant's kept comment count
} satisfies Record<Exclude<keyof Restaurant, "__typename">, readonly RestaurantColumn[]>;

/** The columns each Address field reads. */
const ADDRESS_COLUMNS_READ = {
  addressLine1: ["addressLine1"],
  addressLine2: ["addressLine2"],
  landmark: ["landmark"],
  state: ["state"],
  city: ["city"],
  district: ["district"],
  country: ["country"],
  geo: ["latitude", "longitude"],
  timeZone: ["timeZone"],
} satisfies Record<Exclude<keyof Address, "__typename">, readonly RestaurantColumn[]>;

/** How many columns the fields read at most: a selection reading them all reads whole rows (search keys and sums too). */
const ALL_COLUMNS = new Set(["id", ...Object.values(COLUMNS_READ).flat(), ...restaurants.ADDRESS_COLUMNS]).size;

/** The columns named by the fields a selection shows, out of a field-to-columns table. */
function columnsRead<C extends string>(selection: Selection, table: Record<string, readonly C[]>): C[] {
  const columns = new Set<C>();
  for (const [field, read] of Object.entries(table)) if (selection.has(field)) for (const column of read) columns.add(column);
  return [...columns];
}

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

/**
 * What a selection of Restaurant fields shows beside the row's own columns: each comes in the
 * restaurant's statement. The owner comes with the columns its selection shows: such a partial
 * row answers that owner field only (attachRelated), it never serves the request's other look-ups
 * of the same user.
 */
const relationsAsked = (restaurant: Selection): RestaurantRelations => ({
  owner: restaurant.has("owner"),
  ownerColumns: columnsRead(restaurant.of("owner"), USER_COLUMNS_READ),
  ownerRating: restaurant.of("owner").has("rating"),
  latestComment: restaurant.has("latestComment"),
  authorRating: restaurant.of("latestComment").of("author").has("rating"),
  tags: (Object.keys(restaurants.LIST_KINDS) as restaurants.ListField[]).some((field) => restaurant.has(field)),
  photos: restaurant.has("photos"),
  openingHours: restaurant.has("openingHours"),
  badges: restaurant.has("badges"),
  comments: commentWindowAsked(restaurant),
});

/**
 * The window of the page of comments a selection shows, when it can be read in the restaurant's
 * statement: the same window for every `comments` field selected, and known without the list's
 * total (not `last` without `before`). Arguments the window refuses are left to the field's
 * resolver, which answers them as before.
 */
function commentWindowAsked(restaurant: Selection): CommentWindow | undefined {
  if (!restaurant.has("comments")) return undefined;
  try {
    const windows = restaurant.argumentsOf("comments").map((args) => windowOf(args));
    const reads = windows.map((window) => (typeof window === "function" ? null : readWindow(window)));
    const [first] = reads;
    return first && reads.every((read) => read && read.skip === first.skip && read.take === first.take) ? first : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A column of a restaurant the look-ahead read for the field asking. Undefined means COLUMNS_READ
 * does not list it for that field: a bug, said so (a stored null reads as null).
 */
export function column<K extends keyof RestaurantRow>(row: RestaurantPartial, name: K): RestaurantRow[K] {
  const value = row[name];
  if (value === undefined) throw new Error(`restaurant column ${String(name)} was not read: list it in COLUMNS_READ`);
  return value as RestaurantRow[K];
}

// ---- Rows a restaurant's statement read with it (owner, latest comment, lists) -------------------

/**
 * What the statement that read a row also read for it, kept on the row itself. A field can
 * then answer it at once instead of through its loader: a loaded value is a promise even when
 * primed, and each promise a field returns costs the executor (graphql-jit) an allocation-heavy
 * asynchronous step per item of a page. Rows live for their request only.
 */
type RelatedOfRow = {
  owner?: UserRow | null;
  latestComment?: CommentWithAuthor | null;
  /** The restaurant's lists, folded into its statement (src/db/reads/related.ts relatedSql). */
  tagLists?: Partial<Record<RestaurantTagKind, string[]>>;
  photos?: string[];
  openingHours?: { open: string; close: string; overnight: boolean }[];
  badges?: RestaurantBadgeWithBadge[];
  /** A page of its comments (commentWindowAsked). */
  commentPage?: RestaurantWithRelated["commentPage"];
};

const RELATED = Symbol("related rows read with it");

function attachRelated(row: object, related: RelatedOfRow) {
  (row as { [RELATED]?: RelatedOfRow })[RELATED] = related;
}

const relatedOf = (row: object): RelatedOfRow | undefined => (row as { [RELATED]?: RelatedOfRow })[RELATED];

// ---- What follows a restaurant, loaded per request in batches ----------------------------------

const restaurantTagLists = defineLoader("restaurantTagLists", async (ctx: Context, ids: readonly string[]) => {
  const rows = await restaurantTagsFor(ctx.db, ids);
  return groupedByKey(ids, rows, (r) => r.restaurantId).map((list) => listsByKind<restaurants.TagKind>(list));
});

const restaurantPhotos = defineLoader("restaurantPhotos", async (ctx: Context, ids: readonly string[]) => {
  const rows = await restaurantPhotosFor(ctx.db, ids);
  return groupedByKey(ids, rows, (r) => r.restaurantId).map((list) => list.map((p) => p.url));
});

const restaurantOpeningHours = defineLoader("restaurantOpeningHours", async (ctx: Context, ids: readonly string[]) => {
  const rows = await openingHoursFor(ctx.db, ids);
  return groupedByKey(ids, rows, (r) => r.restaurantId).map((list) => list.map(restaurants.openingPeriod));
});

const restaurantBadges = defineLoader("restaurantBadges", async (ctx: Context, ids: readonly string[]) => {
  const rows = await restaurantBadgesFor(ctx.db, ids);
  return groupedByKey(ids, rows, (r) => r.restaurantId);
});

const ownerRating = defineLoader("ownerRating", async (ctx: Context, ids: readonly string[]) => {
  const sums = await ownerRatingSums(ctx.db, ids);
  return byKey(ids, sums, (s) => s.ownerId).map((s) => restaurants.meanRating(s?.ratingSum ?? 0, s?.ratingCount ?? 0));
});

const latestCommentByRestaurant = defineLoader("latestCommentByRestaurant", async (ctx: Context, ids: readonly string[]) => {
  const latest = await latestCommentsFor(ctx.db, ids);
  primeUsers(ctx, latest.map((comment) => comment.author));
  const byRestaurant = new Map(latest.map((comment) => [comment.restaurantId, comment]));
  return ids.map((id) => byRestaurant.get(id) ?? null);
});

// Each answers from what the restaurant's statement brought (at once) when it brought it, else
// through its loader.

/** One of a restaurant's lists (types, categories, cuisines, dishes, payment methods, price range). */
export function listOf(ctx: Context, restaurant: RestaurantPartial, field: restaurants.ListField) {
  const kind = restaurants.LIST_KINDS[field];
  const brought = relatedOf(restaurant)?.tagLists;
  return brought ? (brought[kind] ?? []) : ctx.loaderOf(restaurantTagLists).load(restaurant.id).then((lists) => lists[kind] ?? []);
}

export const photosOf = (ctx: Context, restaurant: RestaurantPartial) => relatedOf(restaurant)?.photos ?? ctx.loaderOf(restaurantPhotos).load(restaurant.id);

export const openingHoursOf = (ctx: Context, restaurant: RestaurantPartial) =>
  relatedOf(restaurant)?.openingHours ?? ctx.loaderOf(restaurantOpeningHours).load(restaurant.id);

/** The badges a restaurant holds, oldest grant first, each with its badge. */
export const badgesOf = (ctx: Context, restaurant: RestaurantPartial) => relatedOf(restaurant)?.badges ?? ctx.loaderOf(restaurantBadges).load(restaurant.id);

/** Mean comment rating over the restaurants a user owns, from the denormalised sums. */
export const ownerRatingOf = (ctx: Context, userId: string) => ctx.loaderOf(ownerRating).load(userId);

/** The restaurant's owner: brought by its statement when the selection showed it, else by id. */
export const ownerOf = (ctx: Context, restaurant: RestaurantPartial) =>
  relatedOf(restaurant)?.owner ?? referenced(loadUser(ctx, column(restaurant, "ownerId")));

/** The restaurant's newest comment with its author (null: none): brought by its statement, else batched. */
export function latestCommentOf(ctx: Context, restaurant: RestaurantPartial) {
  const brought = relatedOf(restaurant)?.latestComment;
  return brought !== undefined ? brought : ctx.loaderOf(latestCommentByRestaurant).load(restaurant.id);
}

/**
 * A page of the restaurant's comments with their authors: the one its statement brought when the
 * window is the same, else one statement of its own. Its total is the restaurant's kept count.
 */
export function commentsOf(ctx: Context, restaurant: RestaurantPartial, args: PageArgs) {
  const total = column(restaurant, "ratingCount");
  const brought = relatedOf(restaurant)?.commentPage;
  if (brought) {
    const window = windowOf(args);
    if (typeof window !== "function") {
      const read = readWindow(window);
      if (read.skip === brought.window.skip && read.take === brought.window.take)
        return comments.commentConnection(brought.comments, window, total);
    }
  }
  return comments.listComments(ctx.db, restaurant.id, args, total);
}

/** Hands the related rows a statement brought to the loaders the nested fields use, and to the fields: they then send none. */
function primeRelated(ctx: Context, rows: RestaurantWithRelated[]) {
  const ratings = ctx.loaderOf(ownerRating);
  const latest = ctx.loaderOf(latestCommentByRestaurant);
  for (const row of rows) {
    for (const sums of [row.ownerRating, row.authorRating]) {
      if (sums) ratings.prime(sums.ownerId, restaurants.meanRating(sums.ratingSum, sums.ratingCount));
    }
    if (row.latestComment !== undefined) {
      if (row.latestComment) primeUsers(ctx, [row.latestComment.author]);
      latest.prime(row.restaurant.id, row.latestComment);
    }
    attachRelated(row.restaurant, {
      owner: row.owner,
      latestComment: row.latestComment,
      tagLists: row.tags && listsByKind<restaurants.TagKind>(row.tags),
      photos: row.photos,
      openingHours: row.openingHours?.map(restaurants.openingPeriod),
      badges: row.badges,
      commentPage: row.commentPage,
    });
    if (row.commentPage) primeUsers(ctx, row.commentPage.comments.map((comment) => comment.author));
  }
}

// ---- The statements a root field runs ----------------------------------------------------------

/**
 * Restaurants by id with the relations and columns asked: one loader per combination, so each
 * batch is one statement, shared with the other requests of the moment that ask the same
 * (shared-batches.ts). Selections are the client's to vary, so at most MAX_COMBINATIONS are
 * kept (past that the map starts over: a request then merely batches less). Whole rows (every
 * column asked) also serve the request's later look-ups of the same restaurants.
 */
const restaurantWithRelated = new Map<string, LoaderDefinition<string, RestaurantPartial | null>>();
const MAX_COMBINATIONS = 64;
function loadRestaurantWith(ctx: Context, id: string, asked: RestaurantRelations, columns: RestaurantColumn[]) {
  const whole = columns.length === ALL_COLUMNS && !columns.includes("addressGiven");
  // A whole row serves other fields' look-ups of it, whose selections may show more of the owner.
  const want = whole ? { ...asked, ownerColumns: undefined } : asked;
  const owner = want.owner ? `o(${want.ownerColumns?.join(",") ?? "*"})` : "";
  const flags = (["ownerRating", "latestComment", "authorRating", "tags", "photos", "openingHours", "badges"] as const).filter((f) => want[f]).join("+");
  const comments = want.comments ? `c(${want.comments.skip}+${want.comments.take})` : "";
  const key = `${owner}${flags}${comments}:${whole ? "*" : columns.sort().join(",")}`;
  let definition = restaurantWithRelated.get(key);
  if (!definition) {
    const readNow = (db: Db, some: string[]) => restaurantsWithRelated(db, some, want, whole ? undefined : columns);
    // Shared only when a statement's cost is mostly fixed: lists and a page of comments cost as
    // much per restaurant as the statement itself (and few requests ask the same comment window),
    // so sharing them made requests wait on each other's rows (docs/performance.md, "One statement
    // for the requests of a moment").
    const perRestaurant = want.comments || want.tags || want.photos || want.openingHours || want.badges;
    const read = perRestaurant ? readNow : sharedBatches(readNow, (row) => row.restaurant.id);
    definition = defineLoader(`restaurantWithRelated:${key}`, (ctx: Context, ids: readonly string[]) =>
      rowsById(ids, async (some) => {
        const rows = await read(ctx.db, some);
        primeRelated(ctx, rows);
        if (whole) primeRestaurants(ctx, rows.map((r) => r.restaurant as RestaurantRow));
        return rows.map((r) => r.restaurant);
      }),
    );
    if (restaurantWithRelated.size >= MAX_COMBINATIONS) restaurantWithRelated.clear();
    restaurantWithRelated.set(key, definition);
  }
  return ctx.loaderOf(definition).load(id);
}

/** Query.restaurant: the restaurant with what its selection shows, in one statement. */
export const restaurantFor = (ctx: Context, id: string, info: GraphQLResolveInfo) => restaurantShowing(ctx, id, selectionOf(info));

/** A restaurant with what a selection of its fields shows (Query.restaurant's, or node's fragments on Restaurant). */
export function restaurantShowing(ctx: Context, id: string, restaurant: Selection): Promise<RestaurantPartial | null> {
  const want = relationsAsked(restaurant);
  return asksRelated(want) ? loadRestaurantWith(ctx, id, want, columnsShown(restaurant)) : loadRestaurant(ctx, id);
}

/** Query.restaurants: a search page reading what the selection of its items shows (the domain checks the search). */
export async function restaurantPageFor(ctx: Context, args: QueryRestaurantsArgs, info: GraphQLResolveInfo) {
  const connection = selectionOf(info);
  const restaurant = eitherOf(connection.of("nodes"), connection.of("edges").of("node"));
  const page = await restaurants.searchRestaurants(
    ctx.db,
    args,
    {
      ...relationsAsked(restaurant),
      count: connection.has("totalCount"),
      facets: connection.has("facets"),
      columns: columnsShown(restaurant),
    },
    { anyTextLength: ctx.legacyRest },
  );
  primeRelated(ctx, page.related);
  return page;
}
