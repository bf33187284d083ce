// A page of restaurants with its nested fields costs a fixed number of SQL statements, whatever
// the page size: every field that needs another table is batched per request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let viewer: { token: string };

const PAGE = `query($first: Int) { restaurants(first: $first, sort: TITLE) { totalCount nodes {
  title owner { username rating } rating commentCount categories cuisines types paymentMethods priceRange photos
  openingHours { open close overnight } badges { badge { name } receivedAt } address { city geo { latitude } }
  contact { email } viewerCanEdit latestComment { title author { username } } } } }`;

beforeAll(async () => {
  s = await startServer();
  viewer = await s.signUp("viewer");
  const badges = await Promise.all(
    ["Clean", "Green", "Fast"].map((name) => s.db.prisma.badge.create({ data: { name } })),
  );
  // Users straight through the database: registering 50 through the API would spend its time hashing passwords.
  const users = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      s.db.prisma.user.create({ data: { username: `owner${i}`, passwordHash: "x", firstName: `O${i}` } }),
    ),
  );
  // Commenters apart from owners, so authors are never already cached as owners (the same work at any page size).
  const commenters = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      s.db.prisma.user.create({ data: { username: `critic${i}`, passwordHash: "x", firstName: `C${i}` } }),
    ),
  );
  for (let i = 0; i < 50; i++) {
    const ratings = [1 + (i % 5), 1 + ((i + 2) % 5)];
    await s.db.prisma.restaurant.create({
      data: {
        title: `Place ${String(i).padStart(2, "0")}`,
        titleSearch: `place ${String(i).padStart(2, "0")}`,
        city: `City ${i % 7}`,
        citySearch: `city ${i % 7}`,
        latitude: i,
        longitude: i,
        email: `p${i}@example.com`,
        ownerId: users[i].id,
        ratingSum: ratings[0] + ratings[1],
        ratingCount: 2,
        ratingAvg: (ratings[0] + ratings[1]) / 2,
        tags: {
          createMany: {
            data: [
              { kind: "CATEGORY", position: 0, value: `Cat${i % 3}`, valueKey: `cat${i % 3}` },
              { kind: "CATEGORY", position: 1, value: "Family", valueKey: "family" },
              { kind: "CUISINE", position: 0, value: `Cuisine${i % 4}`, valueKey: `cuisine${i % 4}` },
              { kind: "TYPE", position: 0, value: "cafe", valueKey: "cafe" },
              { kind: "PAYMENT_METHOD", position: 0, value: "card", valueKey: "card" },
              { kind: "PRICE_RANGE", position: 0, value: "$$", valueKey: "$$" },
            ],
          },
        },
        photos: { createMany: { data: [{ position: 0, url: `p${i}.jpg` }] } },
        openingHours: {
          createMany: {
            data: [
              { position: 0, open: "08:00", close: "12:00" },
              { position: 1, open: "19:00", close: "01:00" },
            ],
          },
        },
        badges: { create: [{ badgeId: badges[i % 3].id }, ...(i % 2 ? [{ badgeId: badges[(i + 1) % 3].id }] : [])] },
        comments: {
          create: ratings.map((rating, k) => ({
            authorId: commenters[(i + k) % 10].id,
            title: `Comment ${k} on ${i}`,
            body: "…",
            rating,
            createdAt: new Date(Date.UTC(2026, 0, 1, 0, i, k)),
          })),
        },
      },
    });
  }
});
afterAll(async () => s?.close());

/** Runs the page query and answers the data with the number of SQL statements it cost. */
async function costOf(first: number) {
  s.sql.length = 0;
  const r = await s.graphql(PAGE, { first }, viewer.token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return { data: r.data.restaurants, statements: s.sql.length, sql: [...s.sql] };
}

describe("restaurants page cost", () => {
  it("answers every nested field correctly", async () => {
    const { data } = await costOf(50);
    expect(data.totalCount).toBe(50);
    expect(data.nodes).toHaveLength(50);
    const seven = data.nodes[7];
    expect(seven).toMatchObject({
      title: "Place 07",
      owner: { username: "owner7" },
      rating: (3 + 5) / 2,
      commentCount: 2,
      categories: ["Cat1", "Family"],
      cuisines: ["Cuisine3"],
      types: ["cafe"],
      paymentMethods: ["card"],
      priceRange: ["$$"],
      photos: ["p7.jpg"],
      openingHours: [
        { open: "08:00", close: "12:00", overnight: false },
        { open: "19:00", close: "01:00", overnight: true },
      ],
      address: { city: "City 0", geo: { latitude: 7 } },
      contact: { email: "p7@example.com" },
      viewerCanEdit: false,
      latestComment: { title: "Comment 1 on 7", author: { username: "critic8" } },
    });
    expect(seven.owner.rating).toBe(4);
    expect(seven.badges.map((b: any) => b.badge.name).sort()).toEqual(["Fast", "Green"]);
    expect(data.nodes[6].badges.map((b: any) => b.badge.name)).toEqual(["Clean"]);
  });

  it("costs the same small number of statements for 5 restaurants as for 50", async () => {
    await costOf(1); // warm-up: anything done once per process is not counted below
    const five = await costOf(5);
    const fifty = await costOf(50);
    expect(five.data.nodes).toHaveLength(5);
    expect(fifty.data.nodes).toHaveLength(50);
    expect(fifty.statements, fifty.sql.join("\n")).toBe(five.statements);
    // One: the page with its owners, owners' ratings, latest comments with authors, the total, and
    // each row's tags, photos, hours and badges folded in as JSON (the root field looks ahead).
    expect(fifty.statements, fifty.sql.join("\n")).toBe(1);
  });
});

describe("search totals are counted only when asked for", () => {
  const SEARCH = `query($first: Int, $offset: Int, $total: Boolean!) { restaurants(first: $first, offset: $offset, sort: TITLE) {
    totalCount @include(if: $total) pageInfo { hasNextPage } nodes { title } } }`;
  // A total is counted, or read from the counts kept per value (the whole catalogue here).
  const counts = (sql: string[]) => sql.filter((q) => /COUNT\(\*\)|"RestaurantFacetCount"/i.test(q)).length;

  it("no COUNT statement unless totalCount is selected; hasNextPage is right either way", async () => {
    await s.graphql(SEARCH, { first: 1, total: false }, viewer.token); // token now in the session cache
    for (const [first, offset, next] of [
      [10, 40, false], // the last page exactly: 40..49
      [10, 39, true], // one row left after it
      [49, 0, true],
      [50, 0, false],
    ] as const) {
      for (const total of [false, true]) {
        s.sql.length = 0;
        const r = await s.graphql(SEARCH, { first, offset, total }, viewer.token);
        expect(r.errors).toBeUndefined();
        expect(r.data.restaurants.nodes).toHaveLength(Math.min(first, 50 - offset));
        expect(r.data.restaurants.pageInfo.hasNextPage, `first ${first}, offset ${offset}`).toBe(next);
        expect(counts(s.sql)).toBe(total ? 1 : 0);
        if (total) expect(r.data.restaurants.totalCount).toBe(50);
      }
    }
  });

  it("the REST search, which never shows a total, sends no COUNT", async () => {
    s.sql.length = 0;
    const res = await s.fetch("/restaurants?limit=5", { token: viewer.token });
    expect(res.status).toBe(200);
    expect(counts(s.sql)).toBe(0);
    s.sql.length = 0;
    expect((await s.fetch("/groceries?title=a", { token: viewer.token })).status).toBe(200);
    expect(counts(s.sql)).toBe(0);
  });
});
