// The bulk writer of the big seed sizes (src/seed/bulk/bulk.ts) on a small size of its own: it writes
// the generator's rows, the search finds them, and it leaves the database as the migrations made
// it (every index and trigger back, so later writes are indexed too); a second run adds nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { createDb } from "../../src/db/client.ts";
import type { Db } from "../../src/db/db.ts";
import { migrate } from "../../src/db/migrate.ts";
import { writeInBulk } from "../../src/seed/bulk/bulk.ts";
import {
  badges,
  grocery as generatedGrocery,
  restaurant as generatedRestaurant,
  users,
} from "../../src/seed/dataset.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

const SIZE = { users: 20, restaurants: 300, groceries: 400, maxComments: 3 };
let database: TestDatabase;
let db: Db;
let settings: ReturnType<typeof loadConfig>["database"];

/** Indexes, triggers and (PostgreSQL) constraints, by name: what the migrations made. */
async function schemaObjects(): Promise<string[]> {
  const rows =
    settings.dialect === "sqlite"
      ? await db.prisma.$queryRawUnsafe<{ name: string }[]>(
          `SELECT type || ' ' || name AS name FROM sqlite_master WHERE type IN ('index', 'trigger') ORDER BY 1`,
        )
      : await db.prisma.$queryRawUnsafe<{ name: string }[]>(
          `SELECT CAST('index ' || indexname AS TEXT) AS name FROM pg_indexes WHERE schemaname = current_schema()
           UNION ALL SELECT CAST('trigger ' || tgname || ' ' || CAST(tgenabled AS TEXT) AS TEXT) FROM pg_trigger WHERE NOT tgisinternal
           UNION ALL SELECT CAST('constraint ' || conname || ' ' || pg_get_constraintdef(oid) || ' ' || CAST(convalidated AS TEXT) AS TEXT) FROM pg_constraint
           WHERE connamespace = current_schema()::regnamespace ORDER BY 1`,
        );
  return rows.map((r) => r.name);
}

beforeAll(async () => {
  database = await createTestDatabase();
  settings = loadConfig({ DATABASE_URL: database.url }).database;
  await migrate(settings);
  db = createDb({ ...settings, sqliteReaders: 0 });
  await db.prisma.user.createMany({ data: users(SIZE).map((u) => ({ ...u, passwordHash: "x" })) });
  await db.prisma.badge.createMany({
    data: badges().map(({ id, name, cover, createdAt }) => ({ id, name, cover, createdAt })),
  });
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

describe(`bulk seed (${process.env.DATABASE_URL?.startsWith("postgres") ? "PostgreSQL" : "SQLite"})`, () => {
  it("writes the rows, indexes them for search, and puts every index and trigger back", async () => {
    const before = await schemaObjects();
    const badgeIds = badges().map((b) => b.id);
    // Alone with the file (as the seed command leaves it), SQLite loads without the WAL and puts
    // it back; the second and third runs below load with this connection open, through the WAL.
    if (settings.dialect === "sqlite") await db.prisma.$disconnect();
    expect(await writeInBulk({ database: settings, size: SIZE, badgeIds })).toEqual({
      restaurants: 300,
      groceries: 400,
    });
    if (settings.dialect === "sqlite")
      expect(await db.prisma.$queryRawUnsafe(`PRAGMA journal_mode`)).toEqual([{ journal_mode: "wal" }]);
    expect(await schemaObjects()).toEqual(before);
    expect(await db.prisma.restaurant.count()).toBe(300);
    expect(await db.prisma.restaurantTag.count({ where: { kind: "DISH" } })).toBe(900);
    expect(await db.prisma.restaurant.count({ where: { timeZone: null } })).toBe(0);

    // Every restaurant and grocery is searchable: a word of each one's title finds it.
    const search = async (field: "restaurants" | "groceries", text: string) => {
      const { searchRestaurants } = await import("../../src/domain/catalogue/restaurants.ts");
      const { searchGroceries } = await import("../../src/domain/catalogue/groceries.ts");
      const page =
        field === "restaurants"
          ? await searchRestaurants(db, { filter: { search: text }, first: 100 })
          : await searchGroceries(db, { filter: { search: text }, first: 100 });
      return page.totalCount();
    };
    const some = await db.prisma.restaurant.findFirstOrThrow({ where: { id: "seed-r-00123" } });
    // The values are the generator's, as written (COPY's text format on PostgreSQL: dates,
    // floats, nulls, quotes): the same rows the chunked Prisma path writes.
    const generated = generatedRestaurant(123, SIZE);
    const fields = [
      "title",
      "description",
      "createdAt",
      "latitude",
      "longitude",
      "starRating",
      "addressLine2",
      "landmark",
      "acceptsReservations",
      "timeZone",
      "ratingSum",
      "ratingCount",
    ] as const;
    expect(Object.fromEntries(fields.map((f) => [f, some[f]]))).toEqual(
      Object.fromEntries(fields.map((f) => [f, generated.row[f] ?? null])),
    );
    const comments = await db.prisma.comment.findMany({ where: { restaurantId: some.id }, orderBy: { id: "asc" } });
    expect(comments.map((c) => [c.id, c.title, c.body, c.rating, c.createdAt])).toEqual(
      generated.comments.map((c) => [c.id, c.title, c.body, c.rating, c.createdAt]),
    );
    const tags = await db.prisma.restaurantTag.findMany({
      where: { restaurantId: some.id },
      orderBy: [{ kind: "asc" }, { position: "asc" }],
    });
    expect(tags.length).toBe(generated.tags.length);
    const titled = generatedGrocery(321, SIZE).row;
    expect(
      await db.prisma.grocery.findUniqueOrThrow({
        where: { id: titled.id },
        select: { title: true, description: true, createdAt: true },
      }),
    ).toEqual({ title: titled.title, description: titled.description, createdAt: titled.createdAt });
    expect(await search("restaurants", some.title)).toBeGreaterThan(0);
    const grocery = await db.prisma.grocery.findFirstOrThrow({ where: { id: "seed-g-00321" } });
    expect(await search("groceries", grocery.title)).toBeGreaterThan(0);

    if (settings.dialect === "postgres") {
      // Groceries that share their words share one computed document: each is what the refresh
      // function (the triggers' own) computes for that grocery.
      const documents = () =>
        db.prisma.$queryRawUnsafe<{ id: string; d: string }[]>(
          `SELECT "groceryId" AS id, CAST("document" AS TEXT) AS d FROM "GrocerySearch" ORDER BY 1`,
        );
      const written = await documents();
      expect(written.length).toBe(400);
      await db.prisma.$executeRawUnsafe(`SELECT grocery_search_refresh(ARRAY(SELECT "id" FROM "Grocery"))`);
      expect(await documents()).toEqual(written);
    }

    // The stored counts are the real ones (the load sets their triggers aside, then counts again).
    const kept = await db.prisma.$queryRawUnsafe<{ kind: string; valueKey: string; n: bigint | number }[]>(
      `SELECT "kind", "valueKey", "n" FROM "RestaurantFacetCount" ORDER BY 1, 2`,
    );
    const real = await db.prisma.$queryRawUnsafe<{ kind: string; valueKey: string; n: bigint | number }[]>(
      `SELECT CAST("kind" AS TEXT) AS "kind", "valueKey", COUNT(*) AS "n" FROM "RestaurantTag" WHERE CAST("kind" AS TEXT) IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') GROUP BY 1, 2
       UNION ALL SELECT 'CITY', "citySearch", COUNT(*) FROM "Restaurant" WHERE "citySearch" IS NOT NULL GROUP BY 2
       UNION ALL SELECT 'ALL', '', COUNT(*) FROM "Restaurant" ORDER BY 1, 2`,
    );
    const plain = (rows: { kind: string; valueKey: string; n: bigint | number }[]) =>
      rows.map((r) => `${r.kind} ${r.valueKey} ${Number(r.n)}`);
    expect(plain(kept)).toEqual(plain(real));
    expect(kept.length).toBeGreaterThan(10);
    // Each label is a spelling of its own value that a row has (the tags' labels once all read the
    // commonest spelling of any value: "Berlin" for every cuisine).
    const labelsHeldByNoRow = await db.prisma.$queryRawUnsafe<{ kind: string; valueKey: string; value: string }[]>(
      `SELECT c."kind", c."valueKey", c."value" FROM "RestaurantFacetCount" c WHERE c."kind" <> 'ALL' AND NOT EXISTS (
         SELECT 1 FROM "RestaurantTag" t WHERE CAST(t."kind" AS TEXT) = c."kind" AND t."valueKey" = c."valueKey" AND t."value" = c."value"
         UNION ALL SELECT 1 FROM "Restaurant" r WHERE c."kind" = 'CITY' AND r."citySearch" = c."valueKey" AND r."city" = c."value")
       UNION ALL SELECT c."kind", c."valueKey", c."value" FROM "GroceryFacetCount" c WHERE c."kind" <> 'ALL' AND NOT EXISTS (
         SELECT 1 FROM "GroceryTag" t WHERE CAST(t."kind" AS TEXT) = c."kind" AND t."valueKey" = c."valueKey" AND t."value" = c."value")`,
    );
    expect(labelsHeldByNoRow).toEqual([]);
    // Each restaurant's opening pattern, named by the load, is the one the triggers derive from
    // its zone and hours (the load sets them aside); no pattern is left unused.
    const derived =
      settings.dialect === "sqlite"
        ? `SELECT "restaurantId", "timeZone", "periods" FROM "RestaurantOpeningPeriods"`
        : `SELECT * FROM restaurant_opening_periods(ARRAY(SELECT "id" FROM "Restaurant"))`;
    const patterned = await db.prisma.$queryRawUnsafe<{ id: string; derived: string | null; named: string | null }[]>(
      `SELECT r."id", d."timeZone" || ' ' || d."periods" AS "derived", o."timeZone" || ' ' || o."periods" AS "named"
       FROM "Restaurant" r JOIN (${derived}) d ON d."restaurantId" = r."id" LEFT JOIN "OpeningPattern" o ON o."id" = r."openingPattern" ORDER BY 1`,
    );
    expect(patterned.length).toBe(300);
    expect(patterned.filter((r) => r.named !== r.derived)).toEqual([]);
    expect(patterned.filter((r) => r.named === null)).toEqual([]);
    const patternCount = (
      await db.prisma.$queryRawUnsafe<{ n: bigint | number }[]>(`SELECT COUNT(*) AS "n" FROM "OpeningPattern"`)
    )[0]!.n;
    expect(Number(patternCount)).toBe(new Set(patterned.map((r) => r.named)).size);
    // A near search finds a seeded restaurant by its own coordinates (SQLite: from the R*Tree).
    const { searchRestaurants } = await import("../../src/domain/catalogue/restaurants.ts");
    const near = await searchRestaurants(db, {
      filter: { near: { latitude: some.latitude!, longitude: some.longitude!, radiusKm: 1 } },
      first: 100,
    });
    expect(near.nodes.map((r: { id: string }) => r.id)).toContain(some.id);
    // With words too: the circle is then tested on the search row's (SQLite) or the search
    // document's (PostgreSQL) copy of the coordinates, which the load fills.
    const nearWords = await searchRestaurants(db, {
      filter: { search: some.title, near: { latitude: some.latitude!, longitude: some.longitude!, radiusKm: 1 } },
      first: 100,
    });
    expect(nearWords.nodes.map((r: { id: string }) => r.id)).toContain(some.id);

    // The triggers work again: a restaurant written afterwards is found.
    await db.prisma.restaurant.create({
      data: {
        id: "after-bulk",
        title: "Zanzibarian Teahouse",
        titleSearch: "zanzibarian teahouse",
        ownerId: "seed-u-demo",
      },
    });
    expect(await search("restaurants", "zanzibarian")).toBe(1);

    expect(await writeInBulk({ database: settings, size: SIZE, badgeIds })).toEqual({ restaurants: 0, groceries: 0 });
    expect(await db.prisma.restaurant.count()).toBe(301);

    // A run after a partial one adds what is missing (PostgreSQL: COPY into a staging table, then
    // the rows not there) and leaves the rest: the re-added restaurant has its children and the
    // pattern its hours name, the one the others already share.
    await db.prisma.restaurant.deleteMany({ where: { id: { in: ["seed-r-00299", "seed-r-00300"] } } });
    expect(await db.prisma.restaurantTag.count({ where: { restaurantId: "seed-r-00300" } })).toBe(0);
    expect(await writeInBulk({ database: settings, size: SIZE, badgeIds })).toEqual({ restaurants: 2, groceries: 0 });
    expect(await db.prisma.restaurant.count()).toBe(301);
    expect(await db.prisma.restaurantTag.count({ where: { restaurantId: "seed-r-00300" } })).toBe(
      generatedRestaurant(300, SIZE).tags.length,
    );
    const readded = await db.prisma.$queryRawUnsafe<{ id: string; derived: string | null; named: string | null }[]>(
      `SELECT r."id", d."timeZone" || ' ' || d."periods" AS "derived", o."timeZone" || ' ' || o."periods" AS "named"
       FROM "Restaurant" r JOIN (${derived}) d ON d."restaurantId" = r."id" LEFT JOIN "OpeningPattern" o ON o."id" = r."openingPattern"
       WHERE r."id" IN ('seed-r-00299', 'seed-r-00300') ORDER BY 1`,
    );
    expect(readded.length).toBe(2);
    expect(readded.filter((r) => r.named !== r.derived)).toEqual([]);
    expect(
      Number(
        (await db.prisma.$queryRawUnsafe<{ n: bigint | number }[]>(`SELECT COUNT(*) AS "n" FROM "OpeningPattern"`))[0]!
          .n,
      ),
    ).toBe(Number(patternCount));
  }, 120_000);
});
