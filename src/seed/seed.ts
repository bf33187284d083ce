// Writes the demo data set (dataset.ts) into a database, idempotently: rows are looked up by
// their fixed ids and only missing ones are inserted, with createMany in chunks. A restaurant is
// written in one transaction with its tags, hours, badges, comments, orders and reports (and a
// grocery with its tags and shopping-list entries), so a restaurant that exists has all its
// comments and its rating totals always match them, even after an interrupted run.
import type { Db } from "../db/db.ts";
import { hashPassword, verifyPassword } from "../domain/accounts/passwords.ts";
import {
  ADMIN_USER_ID,
  badges,
  DEMO_USER_ID,
  grocery,
  groceryId,
  restaurant,
  restaurantId,
  SIZES,
  users,
  type GrocerySeed,
  type RestaurantSeed,
  type Size,
  type SizeName,
} from "./dataset.ts";
import { storeImageOnce } from "./images.ts";
import { writeInBulk } from "./bulk/bulk.ts";
import { sharedCover } from "./bulk/bulk-rows.ts";
import type { Config } from "../config.ts";
import { filesystemStore } from "../storage/folder/filesystem-store.ts";
import type { UploadStore } from "../storage/upload-store.ts";

/** Used when SEED_PASSWORD is not set; every seeded account gets the same password. */
export const DEFAULT_SEED_PASSWORD = "demo-password";

export type SeedProgress = { phase: "users" | "restaurants" | "groceries"; done: number; total: number };

export type SeedOptions = {
  size: SizeName;
  /** The restaurants lie in the first `cities` of the seed's cities (all by default): `Size.cities`. */
  cities?: number;
  /** Where cover images go (the server's UPLOAD_DIR, or `store` when given). */
  uploadDir: string;
  /** The server's upload store (UPLOAD_STORE=s3: the bucket); UPLOAD_DIR's folder by default. */
  store?: UploadStore;
  /** The password of every seeded account (only hashed when some account is missing). */
  password: string;
  onProgress?: (progress: SeedProgress) => void;
  /** The database `db` talks to: the bulk sizes (BULK_FROM restaurants and up) write with its plain driver. */
  database?: Config["database"];
};

/** Sizes with this many restaurants or more are written in bulk (bulk.ts). */
export const BULK_FROM = 100_000;

const COUNTED = [
  "users",
  "badges",
  "restaurants",
  "restaurantTags",
  "openingHours",
  "restaurantBadges",
  "comments",
  "orders",
  "reports",
  "groceries",
  "groceryTags",
  "shoppingListEntries",
  "files",
] as const;
export type SeedCounts = Record<(typeof COUNTED)[number], number>;

export type SeedReport = {
  size: SizeName;
  /** What this run added; all zero when the data set was already there. */
  inserted: SeedCounts;
  /** Usernames of the demo user and the admin (a "-seed" suffix when the plain name was taken). */
  accounts: { demo: string; admin: string };
  /** Whether `password` signs the demo user in (false when an earlier run used another one). */
  passwordWorks: boolean;
};

const USER_CHUNK = 250;
const RESTAURANT_CHUNK = 50;
const GROCERY_CHUNK = 250;

const emptyCounts = (): SeedCounts => Object.fromEntries(COUNTED.map((k) => [k, 0])) as SeedCounts;

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

export async function seed(db: Db, options: SeedOptions): Promise<SeedReport> {
  const size: Size = { ...SIZES[options.size], cities: options.cities };
  const inserted = emptyCounts();
  const total = size.users + 2 + size.restaurants + size.groceries;
  let done = 0;
  const advance = (phase: SeedProgress["phase"], by: number) => {
    done += by;
    options.onProgress?.({ phase, done, total });
  };

  const accounts = await seedUsers(db, options, inserted, (n) => advance("users", n));
  const store = options.store ?? filesystemStore({ dir: options.uploadDir, diskReserveBytes: 0 });
  const badgeIds = await seedBadges(db, store, inserted);

  if (size.restaurants >= BULK_FROM) {
    if (!options.database) throw new Error(`seed size ${options.size} is written in bulk: pass the database settings`);
    // Grocery covers count against their owner's upload quota: each row records its file's size
    // (the server would otherwise measure every one of them at start-up).
    const coverBytes = new Map<string, number>();
    for (let n = 1; n <= 16; n++) {
      if (await storeImageOnce(store, sharedCover("restaurant", n), restaurant(n, size).cover.image()))
        inserted.files++;
      const image = grocery(n, size).cover.image();
      if (await storeImageOnce(store, sharedCover("grocery", n), image)) inserted.files++;
      coverBytes.set(sharedCover("grocery", n), image.length);
    }
    // The bulk writer has connections of its own: this one is let go meanwhile (Prisma opens it
    // again when next asked), so that on SQLite the load can have the file to itself (bulk.ts withoutWal).
    await db.prisma.$disconnect();
    const added = await writeInBulk({
      database: options.database,
      size,
      badgeIds,
      coverBytes,
      onProgress: (phase, n) => advance(phase, n),
    });
    inserted.restaurants += added.restaurants;
    inserted.groceries += added.groceries;
    const demo = await db.prisma.user.findUniqueOrThrow({
      where: { id: DEMO_USER_ID },
      select: { passwordHash: true },
    });
    return {
      size: options.size,
      inserted,
      accounts,
      passwordWorks: await verifyPassword(options.password, demo.passwordHash),
    };
  }

  for (let from = 1; from <= size.restaurants; from += RESTAURANT_CHUNK) {
    const numbers = range(from, Math.min(from + RESTAURANT_CHUNK - 1, size.restaurants));
    const existing = await existingIds(db, "restaurant", numbers.map(restaurantId));
    const missing = numbers.filter((n) => !existing.has(restaurantId(n))).map((n) => restaurant(n, size));
    if (missing.length) await writeRestaurants(db, missing, badgeIds, store, inserted);
    advance("restaurants", numbers.length);
  }

  for (let from = 1; from <= size.groceries; from += GROCERY_CHUNK) {
    const numbers = range(from, Math.min(from + GROCERY_CHUNK - 1, size.groceries));
    const existing = await existingIds(db, "grocery", numbers.map(groceryId));
    const missing = numbers.filter((n) => !existing.has(groceryId(n))).map((n) => grocery(n, size));
    if (missing.length) await writeGroceries(db, missing, store, inserted);
    advance("groceries", numbers.length);
  }

  const demo = await db.prisma.user.findUniqueOrThrow({ where: { id: DEMO_USER_ID }, select: { passwordHash: true } });
  const passwordWorks = await verifyPassword(options.password, demo.passwordHash);
  return { size: options.size, inserted, accounts, passwordWorks };
}

async function existingIds(db: Db, model: "restaurant" | "grocery" | "user", ids: string[]): Promise<Set<string>> {
  const where = { where: { id: { in: ids } }, select: { id: true } };
  const rows =
    model === "restaurant"
      ? await db.prisma.restaurant.findMany(where)
      : model === "grocery"
        ? await db.prisma.grocery.findMany(where)
        : await db.prisma.user.findMany(where);
  return new Set(rows.map((r) => r.id));
}

/** Inserts the missing accounts; a username someone else already has gets a "-seed" suffix. */
async function seedUsers(db: Db, options: SeedOptions, inserted: SeedCounts, advance: (n: number) => void) {
  const all = users(SIZES[options.size]);
  let passwordHash: string | undefined; // one scrypt hash for everybody, computed only if needed
  for (let from = 0; from < all.length; from += USER_CHUNK) {
    const chunk = all.slice(from, from + USER_CHUNK);
    const existing = await existingIds(
      db,
      "user",
      chunk.map((u) => u.id),
    );
    const missing = chunk.filter((u) => !existing.has(u.id));
    if (missing.length) {
      const names = missing.flatMap((u) => [u.username, `${u.username}-seed`]);
      const taken = new Set(
        (await db.prisma.user.findMany({ where: { username: { in: names } }, select: { username: true } })).map(
          (u) => u.username,
        ),
      );
      const rows = missing.map((u) => {
        if (!taken.has(u.username)) return u;
        const username = `${u.username}-seed`;
        if (taken.has(username))
          throw new Error(`usernames "${u.username}" and "${username}" are both taken; cannot add seed user ${u.id}`);
        return { ...u, username };
      });
      passwordHash ??= await hashPassword(options.password);
      const hash = passwordHash;
      const { count } = await db.prisma.user.createMany({ data: rows.map((u) => ({ ...u, passwordHash: hash })) });
      inserted.users += count;
    }
    advance(chunk.length);
  }
  const named = await db.prisma.user.findMany({
    where: { id: { in: [DEMO_USER_ID, ADMIN_USER_ID] } },
    select: { id: true, username: true },
  });
  const nameOf = (id: string) => named.find((u) => u.id === id)!.username;
  return { demo: nameOf(DEMO_USER_ID), admin: nameOf(ADMIN_USER_ID) };
}

/** Badges are unique by name: one an admin already made under a seed badge's name is reused. Returns ids by index. */
async function seedBadges(db: Db, store: UploadStore, inserted: SeedCounts): Promise<string[]> {
  const wanted = badges();
  const existing = await db.prisma.badge.findMany({
    where: { OR: [{ id: { in: wanted.map((b) => b.id) } }, { name: { in: wanted.map((b) => b.name) } }] },
    select: { id: true, name: true },
  });
  const missing = wanted.filter((b) => !existing.some((e) => e.id === b.id || e.name === b.name));
  for (const b of missing) if (await storeImageOnce(store, b.cover, b.image())) inserted.files++;
  if (missing.length) {
    const { count } = await db.prisma.badge.createMany({
      data: missing.map(({ id, name, cover, createdAt }) => ({ id, name, cover, createdAt })),
    });
    inserted.badges += count;
  }
  return wanted.map(
    (b) => existing.find((e) => e.id === b.id)?.id ?? existing.find((e) => e.name === b.name)?.id ?? b.id,
  );
}

async function storeCovers(
  store: UploadStore,
  items: { cover: { name: string; image: () => Buffer } }[],
  inserted: SeedCounts,
) {
  // Files first, rows after: a crash in between leaves at most unreferenced files, which the
  // next run finds in place and keeps.
  for (const item of items) if (await storeImageOnce(store, item.cover.name, item.cover.image())) inserted.files++;
}

async function writeRestaurants(
  db: Db,
  items: RestaurantSeed[],
  badgeIds: string[],
  store: UploadStore,
  inserted: SeedCounts,
) {
  await storeCovers(store, items, inserted);
  const all = <T>(pick: (r: RestaurantSeed) => T[]) => items.flatMap(pick);
  const restaurantBadges = all((r) =>
    r.badges.map((b) => ({ restaurantId: r.row.id, badgeId: badgeIds[b.badge]!, receivedAt: b.receivedAt })),
  );
  // The mean is computed by the database with the expression the comment mutation uses: Prisma
  // sends floats to SQLite with fewer digits than a double has, so a mean computed here and
  // written as a value could differ from that expression in the last digit.
  const ids = items.map((r) => r.row.id).sort();
  const [restaurants, tags, hours, granted, comments, orders, reports] = await db.prisma.$transaction([
    db.prisma.restaurant.createMany({ data: items.map((r) => r.row) }),
    db.prisma.restaurantTag.createMany({ data: all((r) => r.tags) }),
    db.prisma.openingHours.createMany({ data: all((r) => r.openingHours) }),
    db.prisma.restaurantBadge.createMany({ data: restaurantBadges }),
    db.prisma.comment.createMany({ data: all((r) => r.comments) }),
    db.prisma.order.createMany({ data: all((r) => r.orders) }),
    db.prisma.report.createMany({ data: all((r) => r.reports) }),
    // Seed ids only lie between the first and last seed id of the chunk (other ids are cuids).
    db.prisma.$executeRaw`
      UPDATE "Restaurant" SET "ratingAvg" = CAST("ratingSum" AS DOUBLE PRECISION) / "ratingCount"
      WHERE "ratingCount" > 0 AND "id" >= ${ids[0]} AND "id" <= ${ids.at(-1)}`,
  ]);
  inserted.restaurants += restaurants.count;
  inserted.restaurantTags += tags.count;
  inserted.openingHours += hours.count;
  inserted.restaurantBadges += granted.count;
  inserted.comments += comments.count;
  inserted.orders += orders.count;
  inserted.reports += reports.count;
}

async function writeGroceries(db: Db, items: GrocerySeed[], store: UploadStore, inserted: SeedCounts) {
  await storeCovers(store, items, inserted);
  const [groceries, tags, entries] = await db.prisma.$transaction([
    db.prisma.grocery.createMany({ data: items.map((g) => g.row) }),
    db.prisma.groceryTag.createMany({ data: items.flatMap((g) => g.tags) }),
    db.prisma.shoppingListEntry.createMany({ data: items.flatMap((g) => g.shoppingList) }),
  ]);
  inserted.groceries += groceries.count;
  inserted.groceryTags += tags.count;
  inserted.shoppingListEntries += entries.count;
}
