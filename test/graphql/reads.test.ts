// The raw-SQL read functions (src/db/reads/) must return exactly what Prisma returns for the
// same rows: same keys in the same order, same value types (Date, boolean, number, null), same
// values, same order within each list. Seeded rows hold every kind of value: nulls, floats,
// dates with milliseconds, booleans both ways, unicode, quotes, ties.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsThroughPrisma } from "../../src/db/raw-rows.ts";
import * as rowsById from "../../src/db/reads/by-id.ts";
import * as columns from "../../src/db/reads/columns.ts";
import * as comments from "../../src/db/reads/comments.ts";
import * as related from "../../src/db/reads/related.ts";
import type { Prisma } from "../../src/db/prisma.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** The raw reads of src/db/reads/. */
const reads = { ...rowsById, ...columns, ...comments, ...related };

let s: TestServer;
const ids = { users: [] as string[], restaurants: [] as string[], groceries: [] as string[] };
const UNKNOWN = ["no-such-id", 'it\'s "quoted"', "ünïcødé 🍜"];

/** Same rows, same keys in the same order, same types and values. */
function expectSameRows(raw: object[], prisma: object[]) {
  expect(raw).toStrictEqual(prisma);
  expect(raw.map((r) => Object.keys(r))).toEqual(prisma.map((r) => Object.keys(r)));
  const kinds = (rows: object[]) =>
    rows.map((r) => Object.values(r).map((v) => (v instanceof Date ? "Date" : v === null ? "null" : typeof v)));
  expect(kinds(raw)).toEqual(kinds(prisma));
}

const byId = <T extends { id: string }>(rows: T[]) =>
  [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

beforeAll(async () => {
  s = await startServer();
  const db = s.db;
  const plain = await db.prisma.user.create({ data: { username: "plain", passwordHash: "h1", firstName: "Ann" } });
  const fancy = await db.prisma.user.create({
    data: { username: "zoë_🍕", passwordHash: "h2", firstName: 'Zoë "Z" O\'Neil 日本', avatar: "a.png", role: "ADMIN" },
  });
  const idle = await db.prisma.user.create({ data: { username: "idle", passwordHash: "h3", firstName: "Idle" } });
  ids.users = [plain.id, fancy.id, idle.id];

  const full = await db.prisma.restaurant.create({
    data: {
      title: "Café «Ünïcode» 🍜",
      titleSearch: "café «ünïcode» 🍜",
      description: "Line one\nline two, 'quoted' and \"double\"",
      logo: "logo.png",
      cover: "cover.png",
      url: "https://example.test/x?a=1&b=2",
      acceptsReservations: true,
      starRating: 4.25,
      canHomeDeliver: false,
      email: "a@b.test",
      phone: "+33 1 23",
      website: "https://w.test",
      addressLine1: "1 Rue",
      addressLine2: "Bât. B",
      landmark: "near 🗼",
      state: "IDF",
      city: "Paris",
      citySearch: "paris",
      district: "11e",
      country: "FR",
      latitude: 48.856613,
      longitude: -0.1,
      ratingSum: 9,
      ratingCount: 2,
      ratingAvg: 4.5,
      ownerId: fancy.id,
      createdAt: new Date("2024-02-29T23:59:59.999Z"),
      tags: {
        create: [
          { kind: "CUISINE", position: 1, value: "Thaï", valueKey: "thaï" },
          { kind: "CUISINE", position: 0, value: "日本料理", valueKey: "日本料理" },
          { kind: "TYPE", position: 0, value: "Bistro", valueKey: "bistro" },
          { kind: "PRICE_RANGE", position: 2, value: "$$$", valueKey: "$$$" },
          { kind: "PRICE_RANGE", position: 0, value: "$", valueKey: "$" },
          { kind: "PRICE_RANGE", position: 1, value: "$$", valueKey: "$$" },
        ],
      },
      photos: {
        create: [
          { position: 1, url: "b.jpg" },
          { position: 0, url: "a.jpg" },
        ],
      },
      openingHours: {
        create: [
          { position: 1, open: "18:00", close: "02:00" },
          { position: 0, open: "08:00", close: "12:00" },
        ],
      },
    },
  });
  const bare = await db.prisma.restaurant.create({
    data: {
      title: "Bare",
      titleSearch: "bare",
      acceptsReservations: false,
      canHomeDeliver: true,
      starRating: 3,
      ownerId: fancy.id,
    },
  });
  const third = await db.prisma.restaurant.create({
    data: { title: "Third", titleSearch: "third", ratingSum: 1, ratingCount: 1, ratingAvg: 1, ownerId: plain.id },
  });
  ids.restaurants = [full.id, bare.id, third.id];

  // Badges: two granted at the same instant (badgeId breaks the tie), one earlier.
  const gold = await db.prisma.badge.create({ data: { name: "Gold ★", cover: "gold.png" } });
  const green = await db.prisma.badge.create({ data: { name: "Green" } });
  const old = await db.prisma.badge.create({ data: { name: "Old", createdAt: new Date("2001-01-01T00:00:00.001Z") } });
  const same = new Date("2025-06-01T12:00:00.500Z");
  await db.prisma.restaurantBadge.createMany({
    data: [
      { restaurantId: full.id, badgeId: gold.id, receivedAt: same },
      { restaurantId: full.id, badgeId: green.id, receivedAt: same },
      { restaurantId: full.id, badgeId: old.id, receivedAt: new Date("2020-01-01T00:00:00Z") },
      { restaurantId: third.id, badgeId: gold.id, receivedAt: new Date("2030-12-31T23:59:59.999Z") },
    ],
  });

  // Comments: on `full` two share the latest time (the higher id wins); `bare` has none.
  const latest = new Date("2025-01-01T10:00:00.123Z");
  for (const [i, createdAt] of [
    new Date("2024-01-01T00:00:00Z"),
    latest,
    latest,
    new Date("2023-05-05T05:05:05.005Z"),
  ].entries())
    await db.prisma.comment.create({
      data: {
        restaurantId: full.id,
        authorId: i % 2 ? plain.id : fancy.id,
        title: `Tïtle ${i} 👍`,
        body: `Body '${i}'\n"x"`,
        rating: i + 1,
        createdAt,
      },
    });
  await db.prisma.comment.create({
    data: { restaurantId: third.id, authorId: plain.id, title: "Only", body: "", rating: 1 },
  });

  const grocery = await db.prisma.grocery.create({
    data: {
      title: "Crème fraîche 🥛",
      titleSearch: "crème fraîche 🥛",
      description: "épaisse",
      alsoKnownAs: 'sour cream, "smetana"',
      cover: "c.png",
      ownerId: plain.id,
      tags: {
        create: [
          { kind: "METRIC_UNIT", position: 1, value: "ml", valueKey: "ml" },
          { kind: "METRIC_UNIT", position: 0, value: "l", valueKey: "l" },
          { kind: "CATEGORY", position: 0, value: "Laitier", valueKey: "laitier" },
        ],
      },
    },
  });
  const defaults = await db.prisma.grocery.create({ data: { title: "Salt", titleSearch: "salt", ownerId: fancy.id } });
  ids.groceries = [grocery.id, defaults.id];
});
afterAll(async () => s?.close());

describe("value normalisers (what either driver may hand back for a computed column)", () => {
  it("reads dates from Date, ISO text, SQLite's zone-less text (UTC) and epoch milliseconds", () => {
    const at = new Date("2026-11-22T06:08:28.957Z");
    expect(reads.normalisers.date(at)).toBe(at);
    expect(reads.normalisers.date("2026-11-22T06:08:28.957+00:00")).toEqual(at);
    expect(reads.normalisers.date("2026-11-22 06:08:28.957")).toEqual(at);
    expect(reads.normalisers.date(at.getTime())).toEqual(at);
    expect(reads.normalisers.date(BigInt(at.getTime()))).toEqual(at);
  });

  it("reads booleans from booleans, SQLite's 0/1 (number or bigint) and PostgreSQL's text", () => {
    for (const yes of [true, 1, 1n, "1", "t", "true"]) expect(reads.normalisers.bool(yes)).toBe(true);
    for (const no of [false, 0, 0n, "0", "f", "false"]) expect(reads.normalisers.bool(no)).toBe(false);
  });

  it("reads integers and floats from numbers, bigints and text", () => {
    expect(reads.normalisers.int(7n)).toBe(7);
    expect(reads.normalisers.int("12")).toBe(12);
    expect(reads.normalisers.float("0.1")).toBe(0.1);
    expect(reads.normalisers.float(-122.4194)).toBe(-122.4194);
    expect(reads.normalisers.text("日本 🍜")).toBe("日本 🍜");
  });
});

describe("the connection reads run on", () => {
  it("reads straight from Prisma's open connection, and counts each statement", async () => {
    const before = s.sql.length;
    await reads.usersByIds(s.db, ids.users);
    expect(s.sql.slice(before).filter((q) => q.includes(`FROM "User"`))).toHaveLength(1);
  });

  it("inside a transaction, reads can go through the transaction (they see its own writes)", async () => {
    await s.db.prisma
      .$transaction(async (tx) => {
        const user = await tx.user.create({ data: { username: "in_tx", passwordHash: "h", firstName: "Tx" } });
        const throughTransaction = { read: (sql: Prisma.Sql) => rowsThroughPrisma(tx, sql) };
        expect(await reads.usersByIds(throughTransaction, [user.id])).toHaveLength(1);
        throw new Error("roll back");
      })
      .catch((error: Error) => expect(error.message).toBe("roll back"));
    expect(await s.db.prisma.user.findUnique({ where: { username: "in_tx" } })).toBeNull();
  });
});

describe("rows by id", () => {
  it("usersByIds returns what user.findMany returns, without the password hash", async () => {
    const asked = [...ids.users, ...UNKNOWN];
    const raw = await reads.usersByIds(s.db, asked);
    expect(raw).toHaveLength(3);
    expectSameRows(
      byId(raw),
      byId(await s.db.prisma.user.findMany({ where: { id: { in: asked } }, omit: { passwordHash: true } })),
    );
    expect(raw[0]).not.toHaveProperty("passwordHash");
  });

  it("restaurantsByIds returns what restaurant.findMany returns (nulls, floats, booleans, dates)", async () => {
    const asked = [...ids.restaurants, ...UNKNOWN];
    const raw = await reads.restaurantsByIds(s.db, asked);
    expect(raw).toHaveLength(3);
    expectSameRows(byId(raw), byId(await s.db.prisma.restaurant.findMany({ where: { id: { in: asked } } })));
    const full = raw.find((r) => r.id === ids.restaurants[0])!;
    expect(full).toMatchObject({ acceptsReservations: true, canHomeDeliver: false, starRating: 4.25, longitude: -0.1 });
    expect(full.createdAt).toEqual(new Date("2024-02-29T23:59:59.999Z"));
  });

  it("groceriesByIds returns what grocery.findMany returns", async () => {
    const raw = await reads.groceriesByIds(s.db, [...ids.groceries, ...UNKNOWN]);
    expect(raw).toHaveLength(2);
    expectSameRows(byId(raw), byId(await s.db.prisma.grocery.findMany({ where: { id: { in: ids.groceries } } })));
  });

  it("answers an empty list without asking the database", async () => {
    s.sql.length = 0;
    expect(await reads.usersByIds(s.db, [])).toEqual([]);
    expect(await reads.latestCommentsFor(s.db, [])).toEqual([]);
    expect(s.sql).toHaveLength(0);
  });
});

describe("lists that follow a restaurant", () => {
  it("restaurantTagsFor gives each list in position order, as tag.findMany ordered by position", async () => {
    const raw = await reads.restaurantTagsFor(s.db, ids.restaurants);
    const prisma = await s.db.prisma.restaurantTag.findMany({
      where: { restaurantId: { in: ids.restaurants } },
      select: { restaurantId: true, kind: true, value: true },
      orderBy: { position: "asc" },
    });
    const lists = (rows: { restaurantId: string; kind: string; value: string }[]) =>
      rows.reduce<Record<string, string[]>>(
        (acc, r) => ((acc[`${r.restaurantId}/${r.kind}`] ??= []).push(r.value), acc),
        {},
      );
    expect(lists(raw)).toStrictEqual(lists(prisma));
    expect(lists(raw)[`${ids.restaurants[0]}/PRICE_RANGE`]).toEqual(["$", "$$", "$$$"]);
    expect(lists(raw)[`${ids.restaurants[0]}/CUISINE`]).toEqual(["日本料理", "Thaï"]);
    expectSameRows(
      [...raw].sort((a, b) => (a.value < b.value ? -1 : 1)),
      [...prisma].sort((a, b) => (a.value < b.value ? -1 : 1)),
    );
  });

  it("restaurantPhotosFor and openingHoursFor keep position order", async () => {
    const photos = await reads.restaurantPhotosFor(s.db, ids.restaurants);
    const prismaPhotos = await s.db.prisma.restaurantPhoto.findMany({
      where: { restaurantId: { in: ids.restaurants } },
      select: { restaurantId: true, url: true },
      orderBy: [{ restaurantId: "asc" }, { position: "asc" }],
    });
    expectSameRows(photos, prismaPhotos);
    expect(photos.map((p) => p.url)).toEqual(["a.jpg", "b.jpg"]);
    const hours = await reads.openingHoursFor(s.db, ids.restaurants);
    const prismaHours = await s.db.prisma.openingHours.findMany({
      where: { restaurantId: { in: ids.restaurants } },
      select: { restaurantId: true, open: true, close: true },
      orderBy: [{ restaurantId: "asc" }, { position: "asc" }],
    });
    expectSameRows(hours, prismaHours);
    expect(hours.map((h) => h.open)).toEqual(["08:00", "18:00"]);
  });

  it("restaurantBadgesFor returns what restaurantBadge.findMany with its badge returns, in one statement", async () => {
    s.sql.length = 0;
    const raw = await reads.restaurantBadgesFor(s.db, [...ids.restaurants, ...UNKNOWN]);
    expect(s.sql).toHaveLength(1);
    const prisma = await s.db.prisma.restaurantBadge.findMany({
      where: { restaurantId: { in: ids.restaurants } },
      include: { badge: true },
      orderBy: [{ receivedAt: "asc" }, { badgeId: "asc" }],
    });
    expect(raw).toHaveLength(4);
    expectSameRows(raw, prisma);
    expectSameRows(
      raw.map((r) => r.badge),
      prisma.map((r) => r.badge),
    );
  });

  it("latestCommentsFor gives the newest comment of each restaurant (higher id on a tie) with its author, in one statement", async () => {
    s.sql.length = 0;
    const raw = await reads.latestCommentsFor(s.db, [...ids.restaurants, ...UNKNOWN]);
    expect(s.sql).toHaveLength(1);
    const prisma = [];
    for (const restaurantId of ids.restaurants) {
      const newest = await s.db.prisma.comment.findFirst({
        where: { restaurantId },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        include: { author: { omit: { passwordHash: true } } },
      });
      if (newest) prisma.push(newest);
    }
    expect(raw).toHaveLength(2); // `bare` has no comment
    expectSameRows(byId(raw), byId(prisma));
    const tied = await s.db.prisma.comment.findMany({
      where: { restaurantId: ids.restaurants[0], createdAt: new Date("2025-01-01T10:00:00.123Z") },
    });
    expect(tied).toHaveLength(2);
    expect(raw.find((c) => c.restaurantId === ids.restaurants[0])!.id).toBe(byId(tied)[1].id);
  });

  it("restaurantsWithRelated gives each restaurant with its owner, owner's sums and latest comment with author, in one statement", async () => {
    s.sql.length = 0;
    const raw = await reads.restaurantsWithRelated(s.db, [...ids.restaurants, ...UNKNOWN], {
      owner: true,
      ownerRating: true,
      latestComment: true,
    });
    expect(s.sql).toHaveLength(1);
    expect(raw).toHaveLength(ids.restaurants.length);
    for (const row of raw) {
      const prisma = await s.db.prisma.restaurant.findUniqueOrThrow({
        where: { id: row.restaurant.id },
        include: { owner: { omit: { passwordHash: true } } },
      });
      const { owner, ...restaurant } = prisma;
      expectSameRows([row.restaurant], [restaurant]);
      expectSameRows([row.owner!], [owner]);
      const [sums] = await reads.ownerRatingSums(s.db, [owner.id]);
      expect(row.ownerRating).toEqual(sums);
      const latest = await s.db.prisma.comment.findFirst({
        where: { restaurantId: restaurant.id },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        include: { author: { omit: { passwordHash: true } } },
      });
      if (latest) expectSameRows([row.latestComment!], [latest]);
      else expect(row.latestComment).toBeNull();
    }
    const plain = await reads.restaurantsWithRelated(s.db, ids.restaurants, { owner: true });
    expect(Object.keys(plain[0]).sort()).toEqual(["owner", "restaurant"]);
  });

  it.each([
    [0, 2],
    [1, 20],
    [3, 5],
    [9, 1],
  ])(
    "a page of comments (skip %i, take %i) folded into the restaurants' statement is what comment.findMany with its author returns",
    async (skip, take) => {
      s.sql.length = 0;
      const raw = await reads.restaurantsWithRelated(s.db, [...ids.restaurants, ...UNKNOWN], {
        comments: { skip, take },
      });
      expect(s.sql).toHaveLength(1);
      expect(raw).toHaveLength(ids.restaurants.length);
      for (const row of raw) {
        const prisma = await s.db.prisma.comment.findMany({
          where: { restaurantId: row.restaurant.id },
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          skip,
          take: take + 1,
          include: { author: { omit: { passwordHash: true } } },
        });
        expect(row.commentPage!.window).toEqual({ skip, take });
        expectSameRows(row.commentPage!.comments, prisma);
        expectSameRows(
          row.commentPage!.comments.map((c) => c.author),
          prisma.map((c) => c.author),
        );
        // The same page as a statement of its own.
        expectSameRows(await reads.commentPageFor(s.db, row.restaurant.id, { skip, take }), prisma);
      }
    },
  );

  it("ownerRatingSums returns the sums restaurant.groupBy returns, as numbers", async () => {
    const raw = await reads.ownerRatingSums(s.db, [...ids.users, ...UNKNOWN]);
    const prisma = await s.db.prisma.restaurant.groupBy({
      by: ["ownerId"],
      where: { ownerId: { in: ids.users } },
      _sum: { ratingSum: true, ratingCount: true },
    });
    const fromPrisma = prisma.map((g) => ({
      ownerId: g.ownerId,
      ratingSum: g._sum.ratingSum,
      ratingCount: g._sum.ratingCount,
    }));
    const byOwner = <T extends { ownerId: string }>(rows: T[]) =>
      [...rows].sort((a, b) => (a.ownerId < b.ownerId ? -1 : 1));
    expectSameRows(byOwner(raw), byOwner(fromPrisma));
    expect(raw.find((r) => r.ownerId === ids.users[1])).toEqual({
      ownerId: ids.users[1],
      ratingSum: 9,
      ratingCount: 2,
    });
  });
});

describe("lists that follow a grocery", () => {
  it("groceryTagsFor gives each list in position order", async () => {
    const raw = await reads.groceryTagsFor(s.db, ids.groceries);
    const prisma = await s.db.prisma.groceryTag.findMany({
      where: { groceryId: { in: ids.groceries } },
      select: { groceryId: true, kind: true, value: true },
      orderBy: [{ groceryId: "asc" }, { kind: "asc" }, { position: "asc" }],
    });
    expectSameRows(
      [...raw].sort((a, b) => (a.value < b.value ? -1 : 1)),
      [...prisma].sort((a, b) => (a.value < b.value ? -1 : 1)),
    );
    expect(raw.filter((t) => t.kind === "METRIC_UNIT").map((t) => t.value)).toEqual(["l", "ml"]);
  });
});

describe("through the API", () => {
  it("a latest comment's author comes with the comment: no statement of its own", async () => {
    const { token } = await s.signUp("author_reader");
    const query = `query($id: ID!) { restaurant(id: $id) { latestComment { id author { id username } } } }`;
    await s.graphql(query, { id: ids.restaurants[0] }, token); // the token is now in the session cache
    s.sql.length = 0;
    const r = await s.graphql(query, { id: ids.restaurants[0] }, token);
    expect(r.errors).toBeUndefined();
    expect(s.sql).toHaveLength(1); // the restaurant with its latest comment and that comment's author
    const comment = await s.db.prisma.comment.findUnique({
      where: { id: r.data.restaurant.latestComment.id },
      include: { author: true },
    });
    expect(r.data.restaurant.latestComment.author).toEqual({
      id: comment!.author.id,
      username: comment!.author.username,
    });
  });

  it("a restaurant by id with owner, rating and latest comment answers the seeded values", async () => {
    const { token } = await s.signUp("reader");
    const r = await s.graphql(
      `query($id: ID!) { restaurant(id: $id) { id title rating commentCount acceptsReservations starRating
        owner { id firstName avatar rating } latestComment { id title rating createdAt author { username } }
        cuisines priceRange photos openingHours { open close overnight } badges { badge { name cover } receivedAt } } }`,
      { id: ids.restaurants[0] },
      token,
    );
    expect(r.errors).toBeUndefined();
    const restaurant = r.data.restaurant;
    expect(restaurant).toMatchObject({
      title: "Café «Ünïcode» 🍜",
      rating: 4.5,
      commentCount: 2,
      acceptsReservations: true,
      starRating: 4.25,
      owner: { firstName: 'Zoë "Z" O\'Neil 日本', avatar: "a.png", rating: 4.5 },
      latestComment: { rating: expect.any(Number), createdAt: "2025-01-01T10:00:00.123Z" },
      cuisines: ["日本料理", "Thaï"],
      priceRange: ["$", "$$", "$$$"],
      photos: ["a.jpg", "b.jpg"],
      openingHours: [
        { open: "08:00", close: "12:00", overnight: false },
        { open: "18:00", close: "02:00", overnight: true },
      ],
    });
    const names = restaurant.badges.map((b: any) => b.badge.name);
    expect(names[0]).toBe("Old");
    expect(names.slice(1).sort()).toEqual(["Gold ★", "Green"]);
    expect(restaurant.badges[0]).toEqual({
      badge: { name: "Old", cover: null },
      receivedAt: "2020-01-01T00:00:00.000Z",
    });
  });
});
