// Restaurants: validation, who may change them, create / update / delete, search, and how stored
// rows read back (address, opening hours). Lists are tag rows; see string-lists.ts.
import { checkTitlePart } from "./title-parts.ts";
import tzlookup from "@photostructure/tz-lookup";
import { z } from "zod";
import type { Db } from "../../db/db.ts";
import type { Prisma } from "../../db/prisma.ts";
import type { EventBus } from "../../events/bus.ts";
import type { RestaurantPartial, RestaurantRow } from "../../db/rows.ts";
import {
  restaurantPage,
  type Facets,
  type RestaurantHit,
  type RestaurantPageAsks,
  type RestaurantQuery,
  type RestaurantSort,
} from "../../db/search/searches.ts";
import { ADDRESS_PARTS, addressGivenIn } from "../../db/reads/columns.ts";
import { badInput, notFound } from "../../contract/errors.ts";
import { searchWords } from "../../db/search/words.ts";
import {
  exactTotal,
  pageWindow,
  readWindow,
  toSearchConnection,
  type PageArgs,
  type SearchConnection,
} from "../pagination.ts";
import { isRecordNotFound } from "../prisma-errors.ts";
import { listRows, searchKey, stringList } from "./string-lists.ts";
import type { Viewer } from "../accounts/tokens.ts";
import { checkId, requiredText, storable } from "../text.ts";
import { imageReference, imageReferenceMessage, isImageReference } from "./image-references.ts";
import { editable } from "../ownership.ts";
import { parseInput } from "../validation.ts";

/** The string lists of a restaurant, each stored as tag rows of one kind. */
export const LIST_KINDS = {
  types: "TYPE",
  categories: "CATEGORY",
  cuisines: "CUISINE",
  paymentMethods: "PAYMENT_METHOD",
  priceRange: "PRICE_RANGE",
  dishes: "DISH",
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
const optionalText = (
  field: string,
  check?: { test: (v: string) => boolean; message: string; keepAsSent?: boolean },
  max = MAX_TEXT,
) =>
  storable(z.string().max(max, `${field} must have at most ${max} characters`), field)
    .transform((v) => (check && !check.keepAsSent ? v.trim() : v))
    .refine((v) => v.trim() === "" || !check || check.test(v), check?.message ?? "")
    .nullish()
    .transform((v) => (v === undefined ? undefined : v?.trim() ? v : null));

/** Logo and cover: stored as sent, like free text, but only an http(s) URL or a file name. */
const picture = (field: string) => ({
  test: isImageReference,
  message: imageReferenceMessage(field),
  keepAsSent: true,
});

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
const emailAddress = {
  test: (v: string) => /^[^\s@]+@[^\s@]+$/.test(v),
  message: "email must look like name@example.com",
};

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
  timeZone: z
    .string()
    .trim()
    .max(64, "timeZone must have at most 64 characters")
    .refine(isTimeZone, "timeZone must be an IANA time zone such as Europe/Lisbon")
    .nullish(),
});

/** Whether `zone` names a time zone this runtime knows (Intl reads the same IANA names as PostgreSQL). */
function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The zone of an address: the one given, else the one its coordinates lie in (tz-lookup's map of
 * zone boundaries, computed once at write time so searches compare stored zones), else none.
 */
function timeZoneOf(a: {
  timeZone?: string | null;
  geo?: { latitude: number; longitude: number } | null;
}): string | null {
  if (a.timeZone) return a.timeZone;
  return a.geo ? tzlookup(a.geo.latitude, a.geo.longitude) : null;
}

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
  dishes: list,
  acceptsReservations: flag,
  starRating: z.number().min(0, "starRating must be from 0 to 5").max(5, "starRating must be from 0 to 5").nullish(),
  openingHours: openingHoursInput,
  paymentMethods: list,
  canHomeDeliver: flag,
  priceRange: list,
  photos: z
    .array(
      imageReference(
        storable(
          z
            .string()
            .trim()
            .min(1, "photos must not be empty")
            .max(MAX_TEXT, `photos must have at most ${MAX_TEXT} characters`),
          "photos",
        ),
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
      timeZone: a ? timeZoneOf(a) : null,
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
  return db.prisma.restaurant.create({
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
  return editable(
    "Restaurant",
    id,
    await db.prisma.restaurant.findUnique({ where: { id }, select: { id: true, ownerId: true } }),
    viewer,
  );
}

/** Changes the restaurant (owner or admin); announced as UPDATED once committed. */
export async function updateRestaurant(
  db: Db,
  events: EventBus,
  viewer: Viewer,
  id: string,
  input: unknown,
): Promise<RestaurantRow> {
  const data = parseInput(updateRestaurantInput, input);
  await editableRestaurant(db, viewer, id);
  const { kinds, rows } = listRows(LIST_KINDS, data);
  const where = { restaurantId: id };
  // The row first: if it vanished meanwhile, the transaction stops there and nothing changes.
  const steps: Prisma.PrismaPromise<unknown>[] = [
    db.prisma.restaurant.update({ where: { id }, data: { ...columnsOf(data), updatedAt: new Date() } }),
  ];
  if (kinds.length > 0) steps.push(db.prisma.restaurantTag.deleteMany({ where: { ...where, kind: { in: kinds } } }));
  if (rows.length > 0) steps.push(db.prisma.restaurantTag.createMany({ data: rows.map((r) => ({ ...r, ...where })) }));
  if (data.photos !== undefined) {
    steps.push(db.prisma.restaurantPhoto.deleteMany({ where }));
    if (data.photos.length > 0)
      steps.push(
        db.prisma.restaurantPhoto.createMany({ data: photoRows(data.photos).map((r) => ({ ...r, ...where })) }),
      );
  }
  if (data.openingHours !== undefined) {
    steps.push(db.prisma.openingHours.deleteMany({ where }));
    if (data.openingHours.length > 0) {
      steps.push(
        db.prisma.openingHours.createMany({ data: hoursRows(data.openingHours).map((r) => ({ ...r, ...where })) }),
      );
    }
  }
  try {
    const [restaurant] = await db.prisma.$transaction(steps);
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
    await db.prisma.restaurant.delete({ where: { id }, select: { id: true } });
  } catch (error) {
    if (isRecordNotFound(error)) throw notFound("Restaurant", id);
    throw error;
  }
  events.publish({ topic: "restaurantChanged", restaurantId: id, change: "REMOVED" });
  return id;
}

// ---- Search ----------------------------------------------------------------------------------

const filterText = (field: string, max = 200) =>
  storable(
    z.string().trim().max(max, `filter.${field} must have at most ${max} characters`),
    `filter.${field}`,
  ).nullish();

/** A list of values to match: at most `max`, each a whole value (case-insensitive). */
const valueList = (field: string, max: number) =>
  z
    .array(storable(z.string().trim().max(200, `${field} values must have at most 200 characters`), field))
    .max(max, `${field} takes at most ${max} values`)
    .nullish();

const valueMatch = (field: string) =>
  z.object({ anyOf: valueList(`filter.${field}.anyOf`, 20), allOf: valueList(`filter.${field}.allOf`, 5) }).nullish();

/** The largest radius of a near search: the box read grows with its square. */
export const MAX_RADIUS_KM = 50;

export const restaurantFilter = z
  .object({
    search: filterText("search"),
    text: filterText("text"),
    category: filterText("category"),
    cuisine: filterText("cuisine"),
    cuisines: valueMatch("cuisines"),
    categories: valueMatch("categories"),
    city: filterText("city", MAX_CITY),
    canHomeDeliver: z.boolean().nullish(),
    acceptsReservations: z.boolean().nullish(),
    minRating: z
      .number()
      .min(0, "filter.minRating must be from 0 to 5")
      .max(5, "filter.minRating must be from 0 to 5")
      .nullish(),
    priceRange: valueList("filter.priceRange", 20),
    near: z
      .object({
        latitude: z
          .number()
          .min(-90, "filter.near.latitude must be from -90 to 90")
          .max(90, "filter.near.latitude must be from -90 to 90"),
        longitude: z
          .number()
          .min(-180, "filter.near.longitude must be from -180 to 180")
          .max(180, "filter.near.longitude must be from -180 to 180"),
        radiusKm: z
          .number()
          .gt(0, `filter.near.radiusKm must be more than 0 and at most ${MAX_RADIUS_KM}`)
          .max(MAX_RADIUS_KM, `filter.near.radiusKm must be more than 0 and at most ${MAX_RADIUS_KM}`)
          .nullish()
          .transform((v) => v ?? 5),
      })
      .nullish(),
    openNow: z.boolean().nullish(),
    openAt: z.date().nullish(),
  })
  .nullish();

type RestaurantFilterValue = z.output<typeof restaurantFilter>;

/** Tag conditions of a value match: one for any of the values, one per value that must all be there. */
function valueConditions<K extends string>(
  kind: K,
  single: string | null | undefined,
  match: { anyOf?: string[] | null; allOf?: string[] | null } | null | undefined,
) {
  const keys = (values: string[] | null | undefined) => [...new Set((values ?? []).map(searchKey).filter(Boolean))];
  const conditions: { kind: K; keys: string[] }[] = [];
  if (single) conditions.push({ kind, keys: [searchKey(single)] });
  const any = keys(match?.anyOf);
  if (any.length) conditions.push({ kind, keys: any });
  for (const key of keys(match?.allOf)) conditions.push({ kind, keys: [key] });
  return conditions;
}

/** The filter as search keys: an empty value matches everything, as if it were not given. */
function queryOf(filter: RestaurantFilterValue, sort: RestaurantSort | null | undefined, now: Date): RestaurantQuery {
  const words = filter?.search ? searchWords(filter.search) : [];
  const near = filter?.near ?? undefined;
  if (sort === "DISTANCE" && !near)
    throw badInput("sort DISTANCE needs filter.near (the point to measure from)", { field: "sort" });
  const priceKeys = [...new Set((filter?.priceRange ?? []).map(searchKey).filter(Boolean))];
  return {
    words: words.length ? words : undefined,
    titleKey: filter?.text ? searchKey(filter.text) : undefined,
    tags: [
      ...valueConditions("CATEGORY", filter?.category, filter?.categories),
      ...valueConditions("CUISINE", filter?.cuisine, filter?.cuisines),
      ...(priceKeys.length ? [{ kind: "PRICE_RANGE" as const, keys: priceKeys }] : []),
    ],
    cityKey: filter?.city ? searchKey(filter.city) : undefined,
    canHomeDeliver: filter?.canHomeDeliver ?? undefined,
    acceptsReservations: filter?.acceptsReservations ?? undefined,
    minRating: filter?.minRating ?? undefined,
    near,
    openAt: filter?.openAt ?? (filter?.openNow ? now : undefined),
    sort: sort ?? (words.length ? "RELEVANCE" : near ? "DISTANCE" : "NEWEST"),
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
  { anyTextLength = false }: { anyTextLength?: boolean } = {},
): Promise<SearchConnection<RestaurantPartial, Facets> & { related: RestaurantHit[] }> {
  const filter = parseInput(restaurantFilter, args.filter);
  checkTitlePart("filter.text", filter?.text, anyTextLength);
  const q = queryOf(filter, args.sort, new Date());
  // Counted from the end (`last` without `before`): a page of one row asked for the total first.
  const total = async () => (await restaurantPage(db, q, { skip: 0, take: 1 }, { count: true })).count();
  const window = await pageWindow(args, () => exactTotal(total, db.searchLimits.exactCountLimit));
  const page = await restaurantPage(db, q, readWindow(window), asks);
  const related = page.rows.slice(0, window.take);
  return { ...toSearchConnection(page.rows.map(withDistance), window, page), related };
}

/** The row a search returned, carrying its distance for the `distanceKm` field. */
const withDistance = (hit: RestaurantHit): RestaurantPartial =>
  hit.distanceKm === undefined ? hit.restaurant : Object.assign(hit.restaurant, { distanceKm: hit.distanceKm });

// ---- Reading by id, and the lists that follow a page ------------------------------------------

// No rule applies to reading rows by id and the lists that follow them (who may ask, and which
// fields they see, is the schema's directives): the GraphQL layer's loaders read them from
// src/db/reads/ themselves (src/graphql/data/). The facets a search answers:
export type { Facets } from "../../db/search/searches.ts";

// ---- Reading back ----------------------------------------------------------------------------

/** The columns of an address: its text parts and its coordinates. */
export const ADDRESS_COLUMNS = [...ADDRESS_PARTS, "latitude", "longitude", "timeZone"] as const;

/**
 * The address, or null when no part of it was given (null and "" are not); geo only when both
 * coordinates are known. A row read with only some address columns carries `addressGiven`, the
 * same rule computed by the database over all of them (db/reads/columns.ts holds the rule, once).
 */
export function addressOf(r: RestaurantPartial) {
  const geo = r.latitude != null && r.longitude != null ? { latitude: r.latitude, longitude: r.longitude } : null;
  const given = r.addressGiven ?? addressGivenIn(r);
  if (!given) return null;
  // One literal of a fixed shape: built by spreading, this object of nine properties made young
  // collections promote 4.2% of a page's allocations (test/operability/request-lifetime.test.ts;
  // 0.6% so, 2.3% with the eight-property spread before time zones).
  return {
    addressLine1: r.addressLine1,
    addressLine2: r.addressLine2,
    landmark: r.landmark,
    state: r.state,
    city: r.city,
    district: r.district,
    country: r.country,
    geo,
    timeZone: r.timeZone ?? null,
  };
}

/** A stored opening period; it runs past midnight when it closes earlier than it opens. */
export const openingPeriod = (h: { open: string; close: string }) => ({
  open: h.open,
  close: h.close,
  overnight: h.close < h.open,
});

/** Mean rating from summed ratings and counts; null when nothing was rated. */
export const meanRating = (sum: number, count: number) => (count > 0 ? sum / count : null);
