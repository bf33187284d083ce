// The demo data set, generated (not stored): pure functions from an index to the rows of one
// user, restaurant or grocery. Everything is drawn from named PRNG streams and fixed dates, so
// every machine generates the same rows with the same ids (`seed-r-00001`, ...), which is what
// makes seeding idempotent: a row whose id exists is never written again.
import tzlookup from "@photostructure/tz-lookup";
import type { Prisma } from "../db/prisma.ts";
import { searchKey, tagRows } from "../domain/catalogue/string-lists.ts";
import { drawCover, encodePng, seedUploadName, type Rgb } from "./images.ts";
import { createRandom, type Random } from "./random.ts";
import {
  BADGES,
  CATEGORIES,
  CITIES,
  CUISINES,
  DESCRIPTION_PHRASES,
  FIRST_NAMES,
  GROCERIES,
  GROCERY_VARIANTS,
  LANDMARKS,
  LAST_NAMES,
  NAME_WORDS,
  OPENING_PATTERNS,
  PACK_SIZES,
  PAYMENT_METHODS,
  PRICE_RANGES,
  REVIEW_SENTENCES,
  REVIEW_TITLES,
  TYPES,
} from "./vocabulary.ts";

export const SIZES = {
  /** The demo: a few dozen of everything. */
  small: { users: 20, restaurants: 40, groceries: 60, maxComments: 12 },
  /** The benchmark's quick mode. */
  medium: { users: 100, restaurants: 400, groceries: 1000, maxComments: 30 },
  /** The benchmark's size. */
  large: { users: 400, restaurants: 2000, groceries: 5000, maxComments: 30 },
  /** A city's catalogue (issue 31): written in bulk (bulk.ts), covers shared, ~1.5 comments a restaurant. */
  "200k": { users: 4000, restaurants: 200_000, groceries: 400_000, maxComments: 3 },
  /** A country's catalogue: 1,000,000 restaurants and 2,000,000 groceries, in bulk. */
  "1m": { users: 10_000, restaurants: 1_000_000, groceries: 2_000_000, maxComments: 3 },
} as const;
export type SizeName = keyof typeof SIZES;
/** How much of everything a data set holds. */
export type Size = {
  users: number;
  restaurants: number;
  groceries: number;
  maxComments: number;
  /**
   * How many of the seed's cities the restaurants share, the first ones of CITIES (Lisbon first):
   * all of them by default. Fewer make each city denser, as a big-city deployment is (`--cities`).
   */
  cities?: number;
};

/** The seed's cities, in order: `--cities N` keeps the first N. */
export const SEED_CITIES = CITIES.map((c) => c.name);

export const isSizeName = (name: string): name is SizeName => Object.hasOwn(SIZES, name);

/** Bump to get a different (but again fixed) data set. */
const SEED = "restaurants-groceries-demo-v1";
const stream = (name: string): Random => createRandom(`${SEED}:${name}`);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Fixed dates, never the clock: users join from here, restaurants and groceries follow. */
const USERS_FROM = Date.UTC(2024, 9, 1);
const CATALOGUE_FROM = Date.UTC(2025, 0, 1);
/** Comments, orders and reports fall before this instant. */
const SEED_UNTIL = Date.UTC(2026, 10, 1, 12);

const pad = (n: number, width: number) => String(n).padStart(width, "0");
export const restaurantId = (n: number) => `seed-r-${pad(n, 5)}`;
export const groceryId = (n: number) => `seed-g-${pad(n, 5)}`;
export const userId = (n: number) => `seed-u-${pad(n, 4)}`;
export const badgeId = (n: number) => `seed-b-${pad(n, 2)}`;
export const DEMO_USER_ID = "seed-u-demo";
export const ADMIN_USER_ID = "seed-u-admin";
export const DEMO_USERNAME = "demo";
export const ADMIN_USERNAME = "admin";

/** ASCII-only lower-case words joined by `sep`: for usernames, slugs and web addresses. */
function ascii(text: string, sep: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .join(sep);
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

// ---- Users -------------------------------------------------------------------------------------

export type UserSeed = Omit<Prisma.UserCreateManyInput, "passwordHash"> & { id: string; username: string };

/** The demo user, the admin, then `size.users` generated people (names unique by construction). */
export function users(size: Size): UserSeed[] {
  const at = (n: number) => new Date(USERS_FROM + n * 12 * HOUR);
  const people: UserSeed[] = [
    { id: DEMO_USER_ID, username: DEMO_USERNAME, firstName: "Demo", role: "USER", createdAt: at(0), updatedAt: at(0) },
    {
      id: ADMIN_USER_ID,
      username: ADMIN_USERNAME,
      firstName: "Admin",
      role: "ADMIN",
      createdAt: at(0),
      updatedAt: at(0),
    },
  ];
  for (let n = 1; n <= size.users; n++) {
    const first = FIRST_NAMES[(n - 1) % FIRST_NAMES.length]!;
    const last = LAST_NAMES[Math.floor((n - 1) / FIRST_NAMES.length) % LAST_NAMES.length]!;
    // first x last covers 1,200 people; beyond that a number keeps names apart.
    const cycle = Math.floor((n - 1) / (FIRST_NAMES.length * LAST_NAMES.length));
    const username = `${ascii(first, "")}.${ascii(last, "")}${cycle ? cycle + 1 : ""}`;
    people.push({ id: userId(n), username, firstName: first, role: "USER", createdAt: at(n), updatedAt: at(n) });
  }
  return people;
}

/** A generated person (never the demo user or the admin). */
const someone = (rng: Random, size: Size) => userId(rng.int(1, size.users));

// ---- Badges ------------------------------------------------------------------------------------

export type BadgeSeed = { id: string; name: string; cover: string; image: () => Buffer; createdAt: Date };

export function badges(): BadgeSeed[] {
  return BADGES.map((name, i) => {
    const rng = stream(`badge:${i}`);
    const colour = hsl(rng.next(), 0.65, 0.5);
    return {
      id: badgeId(i + 1),
      name,
      cover: seedUploadName(`badge:${badgeId(i + 1)}`),
      image: () => encodePng(32, 32, drawCover(32, 32, colour, shade(colour, 0.5), 3)),
      createdAt: new Date(CATALOGUE_FROM - DAY),
    };
  });
}

// ---- Restaurants -------------------------------------------------------------------------------

export type RestaurantSeed = {
  row: Prisma.RestaurantCreateManyInput & { id: string };
  tags: Prisma.RestaurantTagCreateManyInput[];
  openingHours: Prisma.OpeningHoursCreateManyInput[];
  /** Badges by index into `badges()`; the writer maps them to stored ids. */
  badges: { badge: number; receivedAt: Date }[];
  comments: Prisma.CommentCreateManyInput[];
  orders: Prisma.OrderCreateManyInput[];
  reports: Prisma.ReportCreateManyInput[];
  cover: { name: string; image: () => Buffer };
};

const CUISINE_NAMES = Object.keys(CUISINES);

/** The zone of a city's centre (its restaurants lie a few km around it): looked up once per city. */
const zones = new Map<string, string>();
const timeZoneOf = (city: { name: string; latitude: number; longitude: number }) => {
  let zone = zones.get(city.name);
  if (!zone) zones.set(city.name, (zone = tzlookup(city.latitude, city.longitude)));
  return zone;
};
const REPORT_REASONS = ["wrong information", "closed down", "spam", "offensive content"];

function hsl(h: number, s: number, l: number): Rgb {
  const f = (n: number) => {
    const k = (n + h * 12) % 12;
    return Math.round(255 * (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}
const shade = (c: Rgb, by: number): Rgb => [Math.round(c[0] * by), Math.round(c[1] * by), Math.round(c[2] * by)];

function restaurantTitle(rng: Random, cuisine: string): string {
  const word = rng.pick(CUISINES[cuisine]!.nameWords);
  const name = rng.pick(NAME_WORDS);
  switch (rng.int(0, 3)) {
    case 0:
      return `${word} ${name}`;
    case 1:
      return `The ${name} ${word}`;
    case 2:
      return `${name} & ${rng.pick(NAME_WORDS.filter((w) => w !== name))}`;
    default:
      return `${rng.pick(FIRST_NAMES)}'s ${word}`;
  }
}

/** A review rating around the place's quality: mostly 3 to 5, sometimes harsh. */
function reviewRating(rng: Random, quality: number): number {
  const noise = (rng.next() + rng.next() + rng.next() - 1.5) * 1.6;
  return Math.min(5, Math.max(1, Math.round(quality + noise)));
}

function reviewBody(rng: Random, rating: number, dishes: string[]): string {
  const mood = rating >= 4 ? "good" : rating === 3 ? "mixed" : "bad";
  const sentences = rng.sample(REVIEW_SENTENCES[mood], rng.int(1, 3));
  if (mood === "mixed") sentences.push(rng.pick(REVIEW_SENTENCES.good));
  return sentences.map((s) => s.replace("{dish}", rng.pick(dishes))).join(" ");
}

/** Sorted distinct instants between `from` and SEED_UNTIL (distinct, so "newest" is never a tie). */
function instants(rng: Random, count: number, from: number): Date[] {
  const span = Math.max(SEED_UNTIL - from, DAY);
  const times = new Set<number>();
  while (times.size < count) times.add(from + Math.floor(rng.next() * span));
  return [...times].sort((a, b) => a - b).map((t) => new Date(t));
}

/**
 * Restaurant number `n` (1-based) with everything that hangs off it. `coverName` names the row's
 * cover file (the bulk sizes share a few; hashing a name of its own costs a third of the time).
 */
export function restaurant(n: number, size: Size, coverName?: string): RestaurantSeed {
  const rng = stream(`restaurant:${n}`);
  const id = restaurantId(n);
  const city = CITIES[(n - 1) % (size.cities ?? CITIES.length)]!;
  const mainCuisine = rng.chance(0.5) ? rng.pick(city.localCuisines) : rng.pick(CUISINE_NAMES);
  const cuisines = [
    mainCuisine,
    ...(rng.chance(0.3) ? [rng.pick(CUISINE_NAMES.filter((c) => c !== mainCuisine))] : []),
  ];
  const dishes = cuisines.flatMap((c) => CUISINES[c]!.dishes);
  const title = restaurantTitle(rng, mainCuisine);
  const slug = `${ascii(title, "-")}-${n}`;
  const district = rng.pick(city.districts);
  const createdAt = new Date(CATALOGUE_FROM + (n - 1) * 7 * HOUR + rng.int(0, 6 * 60) * 60_000);
  // The demo user owns the first two, so the demo can show editing.
  const ownerId = n <= 2 ? DEMO_USER_ID : someone(rng, size);

  const quality = 2.2 + rng.next() * 2.7;
  const comments: Prisma.CommentCreateManyInput[] = instants(
    rng,
    rng.int(0, size.maxComments),
    createdAt.getTime(),
  ).map((at, i) => {
    const rating = reviewRating(rng, quality);
    let authorId = someone(rng, size);
    while (authorId === ownerId) authorId = someone(rng, size); // owners do not review themselves
    return {
      id: `seed-c-${pad(n, 5)}-${pad(i + 1, 2)}`,
      restaurantId: id,
      authorId,
      title: rng.pick(REVIEW_TITLES[rating]!),
      body: reviewBody(rng, rating, dishes),
      rating,
      createdAt: at,
    };
  });
  // The totals the comment mutation keeps up to date; the writer has the database compute the
  // mean from them (see seed.ts).
  const ratingSum = comments.reduce((sum, c) => sum + c.rating, 0);
  const ratingCount = comments.length;

  const orderers = [
    ...(n <= 5 ? [DEMO_USER_ID] : []),
    ...Array.from({ length: rng.int(0, 2) }, () => someone(rng, size)),
  ];
  const orders = instants(rng, orderers.length, createdAt.getTime()).map((at, i) => ({
    id: `seed-o-${pad(n, 5)}-${i + 1}`,
    userId: orderers[i]!,
    restaurantId: id,
    recipe: rng.pick(dishes),
    quantity: rng.int(1, 4),
    createdAt: at,
  }));

  const reports: Prisma.ReportCreateManyInput[] = rng.chance(0.03)
    ? [
        {
          id: `seed-rep-r${pad(n, 5)}`,
          reporterId: someone(rng, size),
          targetKind: "RESTAURANT",
          targetId: id,
          reasonType: rng.pick(REPORT_REASONS),
          reasonBody: "Seen on a visit last week.",
          createdAt: instants(rng, 1, createdAt.getTime())[0]!,
        },
      ]
    : [];

  const payments = [
    ...rng.sample(PAYMENT_METHODS, rng.int(1, 3)),
    ...(city.localPayments.length && rng.chance(0.6) ? city.localPayments : []),
  ];
  const lists = {
    TYPE: rng.sample(TYPES, rng.chance(0.2) ? 2 : 1),
    CATEGORY: rng.sample(CATEGORIES, rng.int(1, 3)),
    CUISINE: cuisines,
    PAYMENT_METHOD: payments,
    PRICE_RANGE: [rng.weighted(PRICE_RANGES)],
  } as const;
  const hours = rng.pick(OPENING_PATTERNS);
  const colour = hsl(CUISINE_NAMES.indexOf(mainCuisine) / CUISINE_NAMES.length, 0.55, 0.55);
  const stripes = rng.int(0, 5);
  const cover = coverName ?? seedUploadName(`restaurant:${id}`);
  const latitude = round(city.latitude + (rng.next() - 0.5) * 0.08, 6);
  const longitude = round(city.longitude + ((rng.next() - 0.5) * 0.08) / Math.cos((city.latitude * Math.PI) / 180), 6);
  const phone = `${city.phonePrefix} ${rng.int(100, 999)} ${pad(rng.int(0, 9999), 4)}`;
  // Drawn last, so every value drawn before stays what it was before dishes existed.
  const menu = rng.sample(dishes, 3);

  return {
    row: {
      id,
      title,
      titleSearch: searchKey(title),
      description: `${rng.pick(DESCRIPTION_PHRASES)} in ${district}, serving ${cuisines.join(" and ")} food.`,
      cover,
      url: `https://eats.example/${ascii(city.name, "-")}/${slug}`,
      acceptsReservations: rng.chance(0.6),
      starRating: rng.chance(0.6) ? rng.pick([2, 3, 3.5, 4, 4.5, 5]) : null,
      canHomeDeliver: rng.chance(0.45),
      email: `hello@${slug}.example`,
      phone,
      website: `https://${slug}.example`,
      addressLine1: `${rng.pick(city.streets)} ${rng.int(1, 240)}`,
      addressLine2: rng.chance(0.3)
        ? rng.pick(["Ground floor", "1st floor", "Unit 3", "Shop 12", "Rear entrance"])
        : null,
      landmark: rng.chance(0.4) ? rng.pick(LANDMARKS) : null,
      state: city.state,
      city: city.name,
      citySearch: searchKey(city.name),
      district,
      country: city.country,
      latitude,
      longitude,
      timeZone: timeZoneOf(city),
      ratingSum,
      ratingCount,
      ownerId,
      createdAt,
      updatedAt: createdAt,
    },
    tags: Object.entries({ ...lists, DISH: menu }).flatMap(([kind, values]) =>
      tagRows(kind as keyof typeof lists, [...values]).map((t) => ({ ...t, restaurantId: id })),
    ),
    openingHours: hours.map((h, position) => ({ restaurantId: id, position, open: h.open, close: h.close })),
    badges: rng.chance(0.25)
      ? rng
          .sample(
            BADGES.map((_, i) => i),
            rng.int(1, 2),
          )
          .map((badge) => ({
            badge,
            receivedAt: instants(rng, 1, createdAt.getTime())[0]!,
          }))
      : [],
    comments,
    orders,
    reports,
    cover: { name: cover, image: () => encodePng(96, 64, drawCover(96, 64, colour, shade(colour, 0.45), stripes)) },
  };
}

// ---- Groceries ---------------------------------------------------------------------------------

export type GrocerySeed = {
  row: Prisma.GroceryCreateManyInput & { id: string };
  tags: Prisma.GroceryTagCreateManyInput[];
  shoppingList: Prisma.ShoppingListEntryCreateManyInput[];
  cover: { name: string; image: () => Buffer };
};

const GROCERY_CATEGORY_NAMES = [...new Set(GROCERIES.flatMap((g) => g.categories))];

/**
 * Grocery number `n` (1-based): products cycle, then brands, then pack sizes, so titles repeat
 * late. `coverName` as for restaurants.
 */
export function grocery(n: number, size: Size, coverName?: string): GrocerySeed {
  const rng = stream(`grocery:${n}`);
  const id = groceryId(n);
  const i = n - 1;
  const base = GROCERIES[i % GROCERIES.length]!;
  const variant = GROCERY_VARIANTS[Math.floor(i / GROCERIES.length) % GROCERY_VARIANTS.length]!;
  const packs = PACK_SIZES[base.units[0]!] ?? [];
  const pack = packs[Math.floor(i / (GROCERIES.length * GROCERY_VARIANTS.length)) % (packs.length + 1)];
  const title = [variant, base.title].filter(Boolean).join(" ") + (pack ? `, ${pack}` : "");
  const createdAt = new Date(CATALOGUE_FROM + i * 3 * HOUR + rng.int(0, 150) * 60_000);
  const cover = coverName ?? seedUploadName(`grocery:${id}`);
  const colour = hsl(GROCERY_CATEGORY_NAMES.indexOf(base.categories[0]!) / GROCERY_CATEGORY_NAMES.length, 0.6, 0.6);
  const stripes = Math.floor(i / GROCERIES.length) % 6;

  const shoppers = [...(n <= 6 ? [DEMO_USER_ID] : []), ...(rng.chance(0.05) ? [someone(rng, size)] : [])];
  const [added] = instants(rng, 1, createdAt.getTime());
  return {
    row: {
      id,
      title,
      titleSearch: searchKey(title),
      description: `${base.description}${variant ? ` By ${variant}.` : ""}`,
      alsoKnownAs: base.alsoKnownAs ?? "",
      cover,
      ownerId: n <= 3 ? DEMO_USER_ID : someone(rng, size),
      createdAt,
      updatedAt: createdAt,
    },
    tags: [...tagRows("CATEGORY", base.categories), ...tagRows("METRIC_UNIT", base.units)].map((t) => ({
      ...t,
      groceryId: id,
    })),
    shoppingList: [...new Set(shoppers)].map((userId) => ({
      userId,
      groceryId: id,
      quantity: rng.int(1, 5),
      createdAt: added!,
      updatedAt: added!,
    })),
    cover: { name: cover, image: () => encodePng(64, 48, drawCover(64, 48, colour, shade(colour, 0.55), stripes)) },
  };
}
