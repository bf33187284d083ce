// Comments through the real server: addComment with its rating totals (also under concurrency),
// Restaurant.comments paging, Restaurant.latestComment batching, Comment.author / restaurant.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertComments } from "../helpers/comment-totals.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let alice: { token: string; id: string; username: string };
let bob: { token: string; id: string; username: string };
beforeAll(async () => {
  s = await startServer();
  alice = await s.signUp("alice");
  bob = await s.signUp("bob");
});
afterAll(async () => s?.close());

let seq = 0;
async function newRestaurant(ownerId = alice.id) {
  const title = `Place ${++seq}`;
  return s.db.prisma.restaurant.create({ data: { title, titleSearch: title.toLowerCase(), ownerId } });
}

const ADD = `mutation($id: ID!, $input: CommentInput!) {
  addComment(restaurantId: $id, input: $input) {
    id title body rating createdAt author { id username } restaurant { id title rating commentCount }
  }
}`;

/** `token: null` sends no token. */
const add = (restaurantId: string, input: Record<string, unknown>, token: string | null = alice.token) =>
  s.graphql(ADD, { id: restaurantId, input }, token ?? undefined);

const totals = (id: string) =>
  s.db.prisma.restaurant.findUniqueOrThrow({
    where: { id },
    select: { ratingSum: true, ratingCount: true, ratingAvg: true },
  });

describe("addComment", () => {
  it("stores the comment and updates the restaurant's rating totals", async () => {
    const r = await newRestaurant();
    const first = await add(r.id, { title: " Great ", body: "Loved the soup.", rating: 4 });
    expect(first.errors).toBeUndefined();
    expect(first.data.addComment).toMatchObject({
      title: " Great ", // stored text is kept as sent
      body: "Loved the soup.",
      rating: 4,
      author: { id: alice.id, username: alice.username },
      restaurant: { id: r.id, title: r.title },
    });
    expect(Date.parse(first.data.addComment.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(await totals(r.id)).toEqual({ ratingSum: 4, ratingCount: 1, ratingAvg: 4 });

    const second = await add(r.id, { title: "Meh", body: "Cold.", rating: 1 }, bob.token);
    expect(second.data.addComment.author.id).toBe(bob.id);
    expect(second.data.addComment.restaurant).toMatchObject({ rating: 2.5, commentCount: 2 });
    expect(await totals(r.id)).toEqual({ ratingSum: 5, ratingCount: 2, ratingAvg: 2.5 });
    expect(await s.db.prisma.comment.count({ where: { restaurantId: r.id } })).toBe(2);
  });

  it("accepts the boundaries: 200-character title, 10,000-character body, ratings 1 and 5", async () => {
    const r = await newRestaurant();
    const low = await add(r.id, { title: "t".repeat(200), body: "b".repeat(10_000), rating: 1 });
    const high = await add(r.id, { title: "x", body: "y", rating: 5 });
    expect(low.errors).toBeUndefined();
    expect(high.errors).toBeUndefined();
    expect(low.data.addComment.title).toHaveLength(200);
    expect(low.data.addComment.body).toHaveLength(10_000);
    expect(await totals(r.id)).toEqual({ ratingSum: 6, ratingCount: 2, ratingAvg: 3 });
  });

  it.each([
    ["an empty title", { title: "", body: "b", rating: 3 }, /title/],
    ["a blank title", { title: "   ", body: "b", rating: 3 }, /title/],
    ["a 201-character title", { title: "t".repeat(201), body: "b", rating: 3 }, /title/],
    ["an empty body", { title: "t", body: "", rating: 3 }, /body/],
    ["a 10,001-character body", { title: "t", body: "b".repeat(10_001), rating: 3 }, /body/],
    ["rating 0", { title: "t", body: "b", rating: 0 }, /rating/],
    ["rating 6", { title: "t", body: "b", rating: 6 }, /rating/],
    ["rating -1", { title: "t", body: "b", rating: -1 }, /rating/],
    ["a fractional rating", { title: "t", body: "b", rating: 2.5 }, /rating|Int/],
    ["a missing rating", { title: "t", body: "b" }, /rating/],
  ])("refuses %s with BAD_USER_INPUT and changes nothing", async (_, input, field) => {
    const r = await newRestaurant();
    await add(r.id, { title: "ok", body: "ok", rating: 2 });
    const res = await add(r.id, input);
    expect(res.data?.addComment ?? null).toBeNull();
    expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(res.errors?.[0].message).toMatch(field);
    expect(await totals(r.id)).toEqual({ ratingSum: 2, ratingCount: 1, ratingAvg: 2 });
    expect(await s.db.prisma.comment.count({ where: { restaurantId: r.id } })).toBe(1);
  });

  it("names every field to fix at once", async () => {
    const r = await newRestaurant();
    const res = await add(r.id, { title: "", body: "", rating: 9 });
    expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    for (const field of ["title", "body", "rating"]) expect(res.errors?.[0].message).toContain(field);
  });

  it("answers NOT_FOUND for an unknown restaurant and stores nothing", async () => {
    const before = await s.db.prisma.comment.count();
    const res = await add("no-such-restaurant", { title: "t", body: "b", rating: 3 });
    expect(res.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    expect(res.errors?.[0].message).toContain("no-such-restaurant");
    expect(await s.db.prisma.comment.count()).toBe(before);
  });

  it("needs an access token", async () => {
    const r = await newRestaurant();
    const none = await add(r.id, { title: "t", body: "b", rating: 3 }, null);
    const bad = await add(r.id, { title: "t", body: "b", rating: 3 }, "made-up-token");
    expect(none.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(bad.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(await totals(r.id)).toEqual({ ratingSum: 0, ratingCount: 0, ratingAvg: null });
    expect(await s.db.prisma.comment.count({ where: { restaurantId: r.id } })).toBe(0);
  });

  it("answers 401, not 500, for an account deleted since its token was checked, and changes nothing", async () => {
    const r = await newRestaurant();
    const gone = await s.signUp("gone");
    expect((await s.graphql(`{ me { id } }`, {}, gone.token)).data.me.id).toBe(gone.id); // its session is cached now
    // Deleted behind the server's back (no revocation event): the cached session still lets it in.
    await s.db.prisma.user.delete({ where: { id: gone.id } });
    const res = await add(r.id, { title: "t", body: "b", rating: 3 }, gone.token);
    expect(res.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(await totals(r.id)).toEqual({ ratingSum: 0, ratingCount: 0, ratingAvg: null });
    const rest = await s.fetch(`/restaurants/${r.id}/comments`, {
      method: "PUT",
      token: gone.token,
      json: { title: "t", body: "b", rating: 3 },
    });
    expect(rest.status).toBe(401);
  });

  it("keeps the totals exact when 30 comments arrive at once", async () => {
    const r = await newRestaurant();
    const users = [alice, bob, await s.signUp("carol"), await s.signUp("dan")];
    const ratings = Array.from({ length: 30 }, (_, i) => ((i * 7) % 5) + 1);
    const results = await Promise.all(
      ratings.map((rating, i) =>
        add(r.id, { title: `c${i}`, body: "parallel", rating }, users[i % users.length].token),
      ),
    );
    for (const res of results) expect(res.errors).toBeUndefined();
    const sum = ratings.reduce((a, b) => a + b, 0);
    expect(await totals(r.id)).toEqual({ ratingSum: sum, ratingCount: 30, ratingAvg: sum / 30 });
    const stored = await s.db.prisma.comment.findMany({ where: { restaurantId: r.id }, select: { rating: true } });
    expect(stored).toHaveLength(30);
    expect(stored.reduce((a, c) => a + c.rating, 0)).toBe(sum);
  });
});

const PAGE = `query($id: ID!, $first: Int, $after: String) {
  restaurant(id: $id) {
    comments(first: $first, after: $after) {
      totalCount
      nodes { id title author { username } restaurant { id } }
      edges { cursor node { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
}`;

describe("Restaurant.comments", () => {
  let restaurantId: string;
  let newestFirstIds: string[];

  beforeAll(async () => {
    const r = await newRestaurant();
    restaurantId = r.id;
    const start = Date.UTC(2026, 0, 1);
    // 105 comments, one minute apart, plus two written in the same millisecond (the id decides).
    const rows = Array.from({ length: 105 }, (_, i) => ({
      restaurantId,
      authorId: i % 2 ? alice.id : bob.id,
      title: `comment ${i}`,
      body: "b",
      rating: (i % 5) + 1,
      createdAt: new Date(start + Math.min(i, 103) * 60_000),
    }));
    await insertComments(s.db, rows);
    const all = await s.db.prisma.comment.findMany({ where: { restaurantId }, select: { id: true, createdAt: true } });
    newestFirstIds = all
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((c) => c.id);
  });

  const page = (variables: Record<string, unknown>) => s.graphql(PAGE, { id: restaurantId, ...variables }, bob.token);

  it("lists newest first, 20 by default, with authors and the total", async () => {
    const res = await page({});
    expect(res.errors).toBeUndefined();
    const c = res.data.restaurant.comments;
    expect(c.totalCount).toBe(105);
    expect(c.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(0, 20));
    expect(c.nodes[0].restaurant.id).toBe(restaurantId);
    expect(c.nodes.every((n: any) => [alice.username, bob.username].includes(n.author.username))).toBe(true);
    expect(c.edges.map((e: any) => e.node.id)).toEqual(newestFirstIds.slice(0, 20));
    expect(c.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
  });

  it("orders comments of the same instant by id, newest id first", async () => {
    const res = await page({ first: 3 });
    const [a, b] = res.data.restaurant.comments.nodes;
    const rows = await s.db.prisma.comment.findMany({ where: { id: { in: [a.id, b.id] } } });
    expect(rows[0].createdAt.getTime()).toBe(rows[1].createdAt.getTime());
    expect(a.id > b.id).toBe(true);
  });

  it("gives one comment with first: 1 and the whole page with first: 100", async () => {
    const one = (await page({ first: 1 })).data.restaurant.comments;
    expect(one.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(0, 1));
    expect(one.pageInfo.hasNextPage).toBe(true);
    const hundred = (await page({ first: 100 })).data.restaurant.comments;
    expect(hundred.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(0, 100));
    expect(hundred.pageInfo.hasNextPage).toBe(true);
    const rest = (await page({ first: 100, after: hundred.pageInfo.endCursor })).data.restaurant.comments;
    expect(rest.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(100));
    expect(rest.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it("walks every page with `after` without gaps or repeats", async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const c: any = (await page({ first: 30, after })).data.restaurant.comments;
      seen.push(...c.nodes.map((n: any) => n.id));
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    expect(seen).toEqual(newestFirstIds);
  });

  it("continues after any edge's cursor and gives an empty page past the end", async () => {
    const first = (await page({ first: 5 })).data.restaurant.comments;
    const next = (await page({ first: 2, after: first.edges[2].cursor })).data.restaurant.comments;
    expect(next.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(3, 5));
    const last = (
      await page({ first: 100, after: (await page({ first: 100 })).data.restaurant.comments.edges[4].cursor })
    ).data.restaurant.comments;
    expect(last.nodes).toHaveLength(100);
    const end = (await page({ first: 5, after: last.pageInfo.endCursor })).data.restaurant.comments;
    expect(end.nodes).toEqual([]);
    expect(end.pageInfo).toMatchObject({ hasNextPage: false, startCursor: null, endCursor: null });
  });

  it.each([0, -1, 101])("refuses first: %i with BAD_USER_INPUT", async (first) => {
    const res = await page({ first });
    expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(res.errors?.[0].message).toMatch(/first/);
  });

  it("refuses a cursor this API did not make", async () => {
    const res = await page({ after: "not-a-cursor" });
    expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });

  // The page a client reads most: the restaurant and its page of comments with their authors, the
  // total and whether a next page exists, in one statement (issue 48; two before, three past the end).
  const OFFSET_PAGE = `query($id: ID!, $offset: Int) { restaurant(id: $id) { id commentCount
    comments(first: 20, offset: $offset) { totalCount pageInfo { hasNextPage } nodes { id title createdAt author { id username } } } } }`;

  it.each([0, 40, 100, 120])(
    "reads the restaurant with its page at offset %i, authors, total and next page in one statement",
    async (offset) => {
      await s.graphql(OFFSET_PAGE, { id: restaurantId, offset }, bob.token); // the token is now in the session cache
      s.sql.length = 0;
      const res = await s.graphql(OFFSET_PAGE, { id: restaurantId, offset }, bob.token);
      expect(res.errors).toBeUndefined();
      expect(s.sql).toHaveLength(1);
      const c = res.data.restaurant.comments;
      expect(c.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(offset, offset + 20));
      expect(c.totalCount).toBe(105);
      expect(res.data.restaurant.commentCount).toBe(105);
      expect(c.pageInfo.hasNextPage).toBe(offset + 20 < 105);
      const authors = await s.db.prisma.comment.findMany({
        where: { id: { in: c.nodes.map((n: any) => n.id) } },
        select: { id: true, createdAt: true, author: { select: { id: true, username: true } } },
      });
      for (const node of c.nodes) {
        const stored = authors.find((a) => a.id === node.id)!;
        expect(node.author).toEqual(stored.author);
        expect(node.createdAt).toBe(stored.createdAt.toISOString());
      }
    },
  );

  it("answers two pages of one restaurant under two aliases, each its own window", async () => {
    const q = `query($id: ID!) { restaurant(id: $id) {
      a: comments(first: 3) { totalCount nodes { id } }
      b: comments(first: 2, offset: 10) { totalCount pageInfo { hasNextPage hasPreviousPage } nodes { id author { username } } } } }`;
    const res = await s.graphql(q, { id: restaurantId }, bob.token);
    expect(res.errors).toBeUndefined();
    expect(res.data.restaurant.a.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(0, 3));
    expect(res.data.restaurant.b.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(10, 12));
    expect(res.data.restaurant.b.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: true });
    expect([res.data.restaurant.a.totalCount, res.data.restaurant.b.totalCount]).toEqual([105, 105]);
  });

  it("reads a page of comments of every restaurant of a search page in the page's statement", async () => {
    const q = `query($first: Int) { restaurants(first: $first) { nodes { id commentCount
      comments(first: 2) { totalCount pageInfo { hasNextPage } nodes { id author { id } } } } } }`;
    const statements: number[] = [];
    for (const first of [2, 20]) {
      await s.graphql(q, { first }, bob.token);
      s.sql.length = 0;
      const res = await s.graphql(q, { first }, bob.token);
      expect(res.errors).toBeUndefined();
      statements.push(s.sql.length);
      expect(res.data.restaurants.nodes.some((n: any) => n.comments.pageInfo.hasNextPage)).toBe(true);
      for (const node of res.data.restaurants.nodes) {
        const newest = await s.db.prisma.comment.findMany({
          where: { restaurantId: node.id },
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          take: 3,
          select: { id: true, authorId: true },
        });
        expect(node.comments.nodes).toEqual(newest.slice(0, 2).map((c) => ({ id: c.id, author: { id: c.authorId } })));
        expect(node.comments.totalCount).toBe(node.commentCount);
        expect(node.comments.pageInfo.hasNextPage).toBe(newest.length > 2);
      }
    }
    expect(statements[1]).toBe(statements[0]);
    expect(statements[1]).toBe(1);
  });

  it("counts a window from the end (last without before) from the kept total", async () => {
    const res = await s.graphql(
      `query($id: ID!) { restaurant(id: $id) { comments(last: 4) { totalCount nodes { id } pageInfo { hasPreviousPage hasNextPage } } } }`,
      { id: restaurantId },
      bob.token,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.restaurant.comments).toEqual({
      totalCount: 105,
      nodes: newestFirstIds.slice(101).map((id) => ({ id })),
      pageInfo: { hasPreviousPage: true, hasNextPage: false },
    });
  });

  it("is an empty connection for a restaurant without comments", async () => {
    const r = await newRestaurant();
    const res = await s.graphql(PAGE, { id: r.id }, bob.token);
    expect(res.data.restaurant.comments).toMatchObject({
      totalCount: 0,
      nodes: [],
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });
});

describe("Restaurant.latestComment", () => {
  const LATEST = `{ myOrders(first: 100) { nodes { restaurant { id latestComment { id title author { username } } } } } }`;

  it("is the newest comment, or null", async () => {
    const withComments = await newRestaurant();
    const without = await newRestaurant();
    await add(withComments.id, { title: "older", body: "b", rating: 2 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await add(withComments.id, { title: "newer", body: "b", rating: 5 }, bob.token);
    const q = `query($a: ID!, $b: ID!) { a: restaurant(id: $a) { latestComment { title author { id } } } b: restaurant(id: $b) { latestComment { id } } }`;
    const res = await s.graphql(q, { a: withComments.id, b: without.id }, alice.token);
    expect(res.errors).toBeUndefined();
    expect(res.data.a.latestComment).toEqual({ title: "newer", author: { id: bob.id } });
    expect(res.data.b.latestComment).toBeNull();
  });

  it("picks the highest id among comments of the same instant, as the comments list does", async () => {
    const r = await newRestaurant();
    const at = new Date(Date.UTC(2026, 5, 1));
    await insertComments(
      s.db,
      ["x", "y", "z"].map((title) => ({
        restaurantId: r.id,
        authorId: alice.id,
        title,
        body: "b",
        rating: 3,
        createdAt: at,
      })),
    );
    const q = `query($id: ID!) { restaurant(id: $id) { latestComment { id } comments(first: 1) { nodes { id } } } }`;
    const res = await s.graphql(q, { id: r.id }, alice.token);
    const ids = (await s.db.prisma.comment.findMany({ where: { restaurantId: r.id }, select: { id: true } }))
      .map((c) => c.id)
      .sort();
    expect(res.data.restaurant.latestComment.id).toBe(ids.at(-1));
    expect(res.data.restaurant.comments.nodes[0].id).toBe(ids.at(-1));
  });

  async function sqlForRestaurants(count: number) {
    const user = await s.signUp("reader");
    for (let i = 0; i < count; i++) {
      const r = await newRestaurant(i % 2 ? alice.id : bob.id);
      await s.db.prisma.order.create({ data: { userId: user.id, restaurantId: r.id, recipe: "soup", quantity: 1 } });
      const comments = i % 3; // some restaurants have none
      for (let j = 0; j < comments; j++) {
        await s.db.prisma.comment.create({
          data: {
            restaurantId: r.id,
            authorId: j ? alice.id : bob.id,
            title: `r${i}c${j}`,
            body: "b",
            rating: 4,
            createdAt: new Date(Date.UTC(2026, 1, 1, 0, j)),
          },
        });
      }
    }
    s.sql.length = 0;
    const res = await s.graphql(LATEST, {}, user.token);
    const statements = s.sql.length;
    expect(res.errors).toBeUndefined();
    const nodes = res.data.myOrders.nodes;
    expect(nodes).toHaveLength(count);
    for (const node of nodes) {
      const expected = await s.db.prisma.comment.findFirst({
        where: { restaurantId: node.restaurant.id },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      });
      expect(node.restaurant.latestComment?.id ?? null).toBe(expected?.id ?? null);
    }
    return statements;
  }

  it("costs the same number of SQL statements for 5 and for 50 restaurants", async () => {
    const five = await sqlForRestaurants(5);
    const fifty = await sqlForRestaurants(50);
    expect(fifty).toBe(five);
    expect(fifty).toBeLessThanOrEqual(10);
  });
});
