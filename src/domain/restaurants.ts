// Restaurants: validation, who may change them, create / update / delete, search, and how stored
// rows read back (address, opening hours). Lists are tag rows; see string-lists.ts.
import { z } from "zod";
import type { Db, Prisma } from "../db/client.ts";
import type { EventBus } from "../events/bus.ts";
import type { RestaurantRow } from "../db/rows.ts";
import { restaurantPage, type RestaurantPageAsks, type RestaurantQuery } from "../db/searches.ts";
import { ADDRESS_PARTS, type RestaurantWithRelated } from "../db/reads.ts";
import { notFound } from "./errors.ts";
import { pageWindow, toLazyConnection, type LazyConnection, type PageArgs } from "./pagination.ts";
import { isRecordNotFound } from "./prisma-errors.ts";
import { listRows, searchKey, stringList } from "./string-lists.ts";
import type { Viewer } from "./tokens.ts";
import { checkId, requiredText, storable } from "./text.ts";
import { imageReference, imageReferenceMessage, isImageReference } from "./image-references.ts";
import { editable } from "./ownership.ts";
import { parseInput } from "./validation.ts";

/** The string lists of a restaurant, each stored as tag rows of one kind. */
export const LIST_KINDS = {
  types: "TYPE",
  categories: "CATEGORY",
  cuisines: "CUISINE",
  paymentMethods: "PAYMENT_METHOD",
  priceRange: "PRICE_RANGE",
} as const;
export type ListField = keyof typeof LIST_KINDS;
export type TagKind = (typeof LIST_KINDS)[ListField];

const MAX_TEXT = 2000;
const MAX_OPENING_HOURS = 50;
const MAX_CITY = 200;

// ---- Validation ------------------------------------------------------------------------------

/**
 * Optional text of at most 2000 characters; "", blank and null all mean "none" (null). Free text is
 * stored as sent; a value with a format (web or e-mail address) is trimmed first, as spaces around
 * an address are never part of it. Pictures are checked but kept as sent (`keepAsSent`).
 */
const optionalText = (field: string, check?: { test: (v: string) => boolean; message: string; keepAsSent?: boolean }, max = MAX_TEXT) =>
  storable(z.string().max(max, `${field} must have at most ${max} characters`), field)
    .transform((v) => (check && !check.keepAsSent ? v.trim() : v))
    .refine((v) => v.trim() === "" || !check || check.test(v), check?.message ?? "")
    .nullish()
    .transform((v) => (v === undefined ? undefined : v?.trim() ? v : null));

/** Logo and cover: stored as sent, like free text, but only an http(s) URL or a file name. */
const picture = (field: string) => ({ test: isImageReference, message: imageReferenceMessage(field), keepAsSent: true });

/** A web address, loosely: no spaces, and either http(s)://host... or a bare host name with a dot. */
function looksLikeWebAddress(value: string): boolean {
  if (/\s/.test(value)) return false;
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return /^https?:\/\/[^/?#]+/i.test(value);
  return /^[^/?#]+\.[^/?#]+/.test(value);
}
const webAddress = (field: string) => ({
  test: looksLikeWebAddress,
  message: `${field} must be a web address such as https://example.com`,
});
const emailAddress = { test: (v: string) => /^[^\s@]+@[^\s@]+$/.test(v), message: "email must look like name@example.com" };

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const timeOfDay = (field: string) => z.string().regex(TIME, `${field} must be HH:MM on a 24-hour clock`);

/** null resets a flag to its default (false), like an omitted flag on create. */
const flag = z
  .boolean()
  .nullish()
  .transform((v) => (v === null ? false : v));

/** null empties a list. */
const list = stringList.nullish().transform((v) => (v === null ? [] : v));

const geoInput = z.object({
  latitude: z.number().min(-90, "latitude must be from -90 to 90").max(90, "latitude must be from -90 to 90"),
  longitude: z.number().min(-180, "longitude must be from -180 to 180").max(180, "longitude must be from -180 to 180"),
});

const addressInput = z.object({
  addressLine1: optionalText("addressLine1"),
  addressLine2: optionalText("addressLine2"),
  landmark: optionalText("landmark"),
  state: optionalText("state"),
  // Searched through an index: PostgreSQL cannot index a key of more than ~2.7 kB (2000 CJK characters are 6 kB).
  city: optionalText("city", undefined, MAX_CITY),
  district: optionalText("district"),
  country: optionalText("country"),
  geo: geoInput.nullish(),
});

const openingHoursInput = z
  .array(z.object({ open: timeOfDay("open"), close: timeOfDay("close") }))
  .max(MAX_OPENING_HOURS, `openingHours holds at most ${MAX_OPENING_HOURS} periods`)
  .nullish()
  .transform((v) => (v === null ? [] : v));

const title = requiredText("title", 200, "title is required and may not be null");

/** Every field but the title; all optional, so the same shape serves create and update. */
const restaurantFields = {
  description: optionalText("description"),
  logo: optionalText("logo", picture("logo")),
  cover: optionalText("cover", picture("cover")),
  // Free text (issue 14): the original service's examples are slugs such as "kababish-bangalore".
  url: optionalText("url"),
  types: list,
  categories: list,
  cuisines: list,
  acceptsReservations: flag,
  starRating: z.number().min(0, "starRating must be from 0 to 5").max(5, "starRating must be from 0 to 5").nullish(),
  openingHours: openingHoursInput,
  paymentMethods: list,
  canHomeDeliver: flag,
  priceRange: list,
  photos: z
    .array(
      imageReference(
        storable(z.string().trim().min(1, "photos must not be empty").max(MAX_TEXT, `photos must have at most ${MAX_TEXT} characters`), "photos"),
        "photos",
      ),
    )
    .max(50, "photos holds at most 50 items")
    .nullish()
    .transform((v) => (v === null ? [] : v)),
  email: optionalText("email", emailAddress),
  phone: optionalText("phone"),
  website: optionalText("website", webAddress("website")),
  address: addressInput.nullish(),
};

export const createRestaurantInput = z.object({ title, ...restaurantFields });
export const updateRestaurantInput = z.object({ title: title.optional(), ...restaurantFields });
type UpdateInput = z.output<typeof updateRestaurantInput>;

// ---- Writing ---------------------------------------------------------------------------------

/** The restaurant's own columns for the fields given (undefined = leave as is). */
function columnsOf(input: UpdateInput): Prisma.RestaurantUncheckedUpdateInput {
  const data: Prisma.RestaurantUncheckedUpdateInput = {};
  if (input.title !== undefined) Object.assign(data, { title: input.title, titleSearch: searchKey(input.title) });
  for (const key of ["description", "logo", "cover", "url", "starRating", "email", "phone", "website"] as const) {
    if (input[key] !== undefined) data[key] = input[key];
  }
  if (input.acceptsReservations !== undefined) data.acceptsReservations = input.acceptsReservations;
  if (input.canHomeDeliver !== undefined) data.canHomeDeliver = input.canHomeDeliver;
  if (input.address !== undefined) {
    // An address given replaces the whole address; null removes it.
    const a = input.address;
    Object.assign(data, {
      addressLine1: a?.addressLine1 ?? null,
      addressLine2: a?.addressLine2 ?? null,
      landmark: a?.landmark ?? null,
      state: a?.state ?? null,
      city: a?.city ?? null,
      citySearch: a?.city ? searchKey(a.city) : null,
      district: a?.district ?? null,
      country: a?.country ?? null,
      latitude: a?.geo?.latitude ?? null,
      longitude: a?.geo?.longitude ?? null,
    });
  }
  return data;
}


const photoRows = (photos: string[]) => photos.map((url, position) => ({ position, url }));
const hoursRows = (hours: { open: string; close: string }[]) => hours.map((h, position) => ({ position, ...h }));

export async function createRestaurant(db: Db, viewer: Viewer, input: unknown): Promise<RestaurantRow> {
  const data = parseInput(createRestaurantInput, input);
  const { rows } = listRows(LIST_KINDS, data);
  // One nested create: Prisma writes the row and its lists in one transaction.
  return db.restaurant.create({
    data: {
      ...(columnsOf(data) as Prisma.RestaurantUncheckedCreateInput),
      title: data.title,
      titleSearch: searchKey(data.title),
      ownerId: viewer.id,
      tags: { createMany: { data: rows } },
      photos: { createMany: { data: photoRows(data.photos ?? []) } },
      openingHours: { createMany: { data: hoursRows(data.openingHours ?? []) } },
    },
  });
}

/** Finds the restaurant and checks the viewer may change it: NOT_FOUND, then FORBIDDEN. */
async function editableRestaurant(db: Db, viewer: Viewer, id: string) {
  checkId(id, "id");
  return editable("Restaurant", id, await db.restaurant.findUnique({ where: { id }, select: { id: true, ownerId: true } }), viewer);
}

/** Changes the restaurant (owner or admin); announced as UPDATED once committed. */
export async function updateRestaurant(db: Db, events: EventBus, viewer: Viewer, id: string, input: unknown): Promise<RestaurantRow> {
  const data = parseInput(updateRestaurantInput, input);
  await editableRestaurant(db, viewer, id);
  const { kinds, rows } = listRows(LIST_KINDS, data);
  const where = { restaurantId: id };
  // The row first: if it vanished meanwhile, the transaction stops there and nothing changes.
  const steps: Prisma.PrismaPromise<unknown>[] = [
    db.restaurant.update({ where: { id }, data: { ...columnsOf(data), updatedAt: new Date() } }),
  ];
  if (kinds.length > 0) steps.push(db.restaurantTag.deleteMany({ where: { ...where, kind: { in: kinds } } }));
  if (rows.length > 0) steps.push(db.restaurantTag.createMany({ data: rows.map((r) => ({ ...r, ...where })) }));
  if (data.photos !== undefined) {
    steps.push(db.restaurantPhoto.deleteMany({ where }));
    if (data.photos.length > 0) steps.push(db.restaurantPhoto.createMany({ data: photoRows(data.photos).map((r) => ({ ...r, ...where })) }));
  }
  if (data.openingHours !== undefined) {
    steps.push(db.openingHours.deleteMany({ where }));
    if (data.openingHours.length > 0) {
      steps.push(db.openingHours.createMany({ data: hoursRows(data.openingHours).map((r) => ({ ...r, ...where })) }));
    }
  }
  try {
    const [restaurant] = await db.$transaction(steps);
    events.publish({ topic: "restaurantChanged", restaurantId: id, change: "UPDATED" });
    return restaurant as RestaurantRow;
  } catch (error) {
    if (isRecordNotFound(error)) throw notFound("Restaurant", id);
    throw error;
  }
}

/** Removes the restaurant; its lists, comments, orders and badges go with it (cascade). Announced as REMOVED. */
export async function deleteRestaurant(db: Db, events: EventBus, viewer: Viewer, id: string): Promise<string> {
  await editableRestaurant(db, viewer, id);
  try {
    await db.restaurant.delete({ where: { id }, select: { id: true } });
  } catch (error) {
    if (isRecordNotFound(error)) throw notFound("Restaurant", id);
    throw error;
  }
  events.publish({ topic: "restaurantChanged", restaurantId: id, change: "REMOVED" });
  return id;
}

// ---- Search ----------------------------------------------------------------------------------

export type RestaurantSort = "RATING" | "TITLE" | "NEWEST";

export const restaurantFilter = z
  .object({
    text: storable(z.string().trim().max(200, "filter.text must have at most 200 characters"), "filter.text").nullish(),
    category: storable(z.string().trim().max(200, "filter.category must have at most 200 characters"), "filter.category").nullish(),
    cuisine: storable(z.string().trim().max(200, "filter.cuisine must have at most 200 characters"), "filter.cuisine").nullish(),
    city: storable(z.string().trim().max(MAX_CITY, `filter.city must have at most ${MAX_CITY} characters`), "filter.city").nullish(),
    canHomeDeliver: z.boolean().nullish(),
  })
  .nullish();

/** The filter as search keys: an empty value matches everything, as if it were not given. */
function queryOf(filter: z.output<typeof restaurantFilter>, sort: RestaurantSort): RestaurantQuery {
  const tags: RestaurantQuery["tags"] = [];
  if (filter?.category) tags.push({ kind: "CATEGORY", key: searchKey(filter.category) });
  if (filter?.cuisine) tags.push({ kind: "CUISINE", key: searchKey(filter.cuisine) });
  return {
    titleKey: filter?.text ? searchKey(filter.text) : undefined,
    tags,
    cityKey: filter?.city ? searchKey(filter.city) : undefined,
    canHomeDeliver: filter?.canHomeDeliver ?? undefined,
    sort,
  };
}

/**
 * Restaurants matching every filter given, in the order asked (the id breaks ties). `asks` names
 * what the caller will show of each (owner, latest comment...) and whether it shows the total:
 * they come in the same statement, `related` holding them beside each restaurant of the page.
 */
export async function searchRestaurants(
  db: Db,
  args: { filter?: unknown; sort?: RestaurantSort | null } & PageArgs,
  asks: RestaurantPageAsks = {},
): Promise<LazyConnection<RestaurantRow> & { related: RestaurantWithRelated[] }> {
  const window = pageWindow(args);
  const { rows, count } = await restaurantPage(db, queryOf(parseInput(restaurantFilter, args.filter), args.sort ?? "NEWEST"), window, asks);
  const related = rows.slice(0, window.take);
  return { ...toLazyConnection(rows.map((r) => r.restaurant), window, count), related };
}

// ---- Reading by id, and the lists that follow a page ------------------------------------------

// No rule applies to these reads (who may ask, and which fields they see, is the schema's directives), so the domain hands
// out the raw reads of src/db/reads.ts as they are; loaders batch them.
export { asksRelated, openingHoursFor, ownerRatingSums, restaurantPhotosFor, restaurantsByIds, restaurantsWithRelated, restaurantTagsFor } from "../db/reads.ts";
export type { RestaurantColumn, RestaurantRelations, RestaurantWithRelated, UserColumn } from "../db/reads.ts";

// ---- Reading back ----------------------------------------------------------------------------

/** The columns of an address: its text parts and its coordinates. */
export const ADDRESS_COLUMNS = [...ADDRESS_PARTS, "latitude", "longitude"] as const;

/**
 * The address, or null when no part of it was given (null and "" are not); geo only when both
 * coordinates are known. A row read with only some address columns carries `addressGiven`, the
 * same rule computed by the database over all of them (db/reads.ts).
 */
export function addressOf(r: Partial<RestaurantRow> & { addressGiven?: boolean }) {
  const geo = r.latitude != null && r.longitude != null ? { latitude: r.latitude, longitude: r.longitude } : null;
  const parts = {
    addressLine1: r.addressLine1,
    addressLine2: r.addressLine2,
    landmark: r.landmark,
    state: r.state,
    city: r.city,
    district: r.district,
    country: r.country,
  };
  const given = r.addressGiven ?? (geo !== null || ADDRESS_PARTS.some((part) => Boolean(parts[part])));
  return given ? { ...parts, geo } : null;
}

/** A stored opening period; it runs past midnight when it closes earlier than it opens. */
export const openingPeriod = (h: { open: string; close: string }) => ({ open: h.open, close: h.close, overnight: h.close < h.open });

/** Mean rating from summed ratings and counts; null when nothing was rated. */
export const meanRating = (sum: number, count: number) => (count > 0 ? sum / count : null);

