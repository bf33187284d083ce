// Backward paging (Relay's `last`/`before`) on every connection, through the real server: the
// windows the Relay connection spec's pagination algorithm gives, its hasPreviousPage and
// hasNextPage rules, `after` with `before`, `last` alone counted from the end (refused where a
// search only estimates its total), and clear refusals for what cannot mean anything
// (`first` with `last`, `offset` with `last` or `before`, a cursor this API did not make).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertComments } from "../helpers/comment-totals.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let user: { token: string; id: string };
let admin: { token: string; id: string };
let restaurantId: string;
/** The restaurant's 45 comments, newest first (the list's order). */
let ids: string[];

const COMMENTS = `query($id: ID!, $first: Int, $after: String, $last: Int, $before: String, $offset: Int) {
  restaurant(id: $id) {
    comments(first: $first, after: $after, last: $last, before: $before, offset: $offset) {
      totalCount
      edges { cursor node { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
}`;

type Page = {
  totalCount: number;
  edges: { cursor: string; node: { id: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
};

async function comments(args: Record<string, unknown>): Promise<Page> {
  const r = await s.graphql(COMMENTS, { id: restaurantId, ...args }, user.token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data.restaurant.comments;
}

const idsOf = (page: Page) => page.edges.map((e) => e.node.id);
/** The cursor of the item at `position` of the list, as the server made it on a forward page. */
let cursorAt: (position: number) => Promise<string>;

beforeAll(async () => {
  s = await startServer();
  user = await s.signUp("pager");
  admin = await s.signUp("admin", "ADMIN");
  restaurantId = (
    await s.db.prisma.restaurant.create({ data: { title: "Busy", titleSearch: "busy", ownerId: admin.id } })
  ).id;
  const start = Date.UTC(2026, 0, 1);
  await insertComments(
    s.db,
    Array.from({ length: 45 }, (_, i) => ({
      restaurantId,
      authorId: user.id,
      title: `c${i}`,
      body: "b",
      rating: 3,
      createdAt: new Date(start + i * 60_000),
    })),
  );
  const forward = await comments({ first: 100 });
  ids = idsOf(forward);
  expect(ids).toHaveLength(45);
  cursorAt = async (position) => forward.edges[position]!.cursor;
});
afterAll(async () => s?.close());

describe("last and before on a restaurant's comments", () => {
  it("gives the list's last items with last alone, in the list's order", async () => {
    const page = await comments({ last: 5 });
    expect(idsOf(page)).toEqual(ids.slice(40));
    expect(page.totalCount).toBe(45);
    // More items than `last` exist: a previous page; nothing follows the end.
    expect(page.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    expect(page.pageInfo.startCursor).toBe(await cursorAt(40));
    expect(page.pageInfo.endCursor).toBe(await cursorAt(44));
  });

  it("gives the items right before `before`, the closest last", async () => {
    const page = await comments({ last: 3, before: await cursorAt(10) });
    expect(idsOf(page)).toEqual(ids.slice(7, 10));
    // Items exist before the window, and the `before` item follows it.
    expect(page.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
  });

  it("says no previous page once the window reaches the start", async () => {
    const page = await comments({ last: 5, before: await cursorAt(5) });
    expect(idsOf(page)).toEqual(ids.slice(0, 5));
    expect(page.pageInfo.hasPreviousPage).toBe(false);
    const short = await comments({ last: 20, before: await cursorAt(3) });
    expect(idsOf(short)).toEqual(ids.slice(0, 3));
    expect(short.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
    const none = await comments({ last: 5, before: await cursorAt(0) });
    expect(none.edges).toEqual([]);
    expect(none.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true, startCursor: null });
  });

  it("walks the whole list backwards from the end with startCursor, each item once", async () => {
    const seen: string[] = [];
    let page = await comments({ last: 7 });
    for (let i = 0; i < 10; i++) {
      seen.unshift(...idsOf(page));
      if (!page.pageInfo.hasPreviousPage) break;
      page = await comments({ last: 7, before: page.pageInfo.startCursor });
    }
    expect(seen).toEqual(ids);
  });

  it("pages forward again from a backward page's endCursor, and back from a forward page's startCursor", async () => {
    const back = await comments({ last: 4, before: await cursorAt(20) });
    const forward = await comments({ first: 4, after: back.pageInfo.endCursor });
    expect(idsOf(forward)).toEqual(ids.slice(20, 24));
    const again = await comments({ last: 4, before: forward.pageInfo.startCursor });
    expect(idsOf(again)).toEqual(idsOf(back));
  });

  it("takes `before` alone as the 20 items before it", async () => {
    const page = await comments({ before: await cursorAt(30) });
    expect(idsOf(page)).toEqual(ids.slice(10, 30));
    expect(page.pageInfo.hasPreviousPage).toBe(true);
  });

  it("keeps the window between `after` and `before`, as the spec's ApplyCursorsToEdges", async () => {
    const [after, before] = [await cursorAt(9), await cursorAt(20)]; // 10 items between: 10..19
    const forward = await comments({ first: 4, after, before });
    expect(idsOf(forward)).toEqual(ids.slice(10, 14));
    // first set: more edges between the cursors than `first` -> hasNextPage.
    expect(forward.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const all = await comments({ first: 10, after, before });
    expect(idsOf(all)).toEqual(ids.slice(10, 20));
    // Exactly `first` edges between them: no next page, though items follow `before`.
    expect(all.pageInfo.hasNextPage).toBe(false);
    const backward = await comments({ last: 4, after, before });
    expect(idsOf(backward)).toEqual(ids.slice(16, 20));
    expect(backward.pageInfo.hasPreviousPage).toBe(true);
    const whole = await comments({ last: 10, after, before });
    expect(idsOf(whole)).toEqual(ids.slice(10, 20));
    // last set: not more edges between the cursors than `last` -> no previous page.
    expect(whole.pageInfo.hasPreviousPage).toBe(false);
    const crossed = await comments({ first: 5, after: before, before: after });
    expect(crossed.edges).toEqual([]);
  });

  it("keeps forward paging as it was: first/after/offset, hasPreviousPage past the start", async () => {
    const page = await comments({ first: 5, offset: 10 });
    expect(idsOf(page)).toEqual(ids.slice(10, 15));
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const end = await comments({ first: 5, after: await cursorAt(39) });
    expect(idsOf(end)).toEqual(ids.slice(40));
    expect(end.pageInfo.hasNextPage).toBe(false);
  });

  it("answers an empty list with empty pages both ways", async () => {
    const empty = (
      await s.db.prisma.restaurant.create({ data: { title: "Quiet", titleSearch: "quiet", ownerId: admin.id } })
    ).id;
    for (const args of [{ last: 5 }, { first: 5 }]) {
      const r = await s.graphql(COMMENTS, { id: empty, ...args }, user.token);
      expect(r.data.restaurant.comments).toMatchObject({
        totalCount: 0,
        edges: [],
        pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
      });
    }
  });
});

describe("refusals: BAD_USER_INPUT naming the argument, and nothing read", () => {
  const refused = async (args: Record<string, unknown>, pattern: RegExp) => {
    s.sql.length = 0;
    const r = await s.graphql(COMMENTS, { id: restaurantId, ...args }, user.token);
    expect(r.errors?.[0]?.extensions?.code, JSON.stringify(r.body)).toBe("BAD_USER_INPUT");
    expect(r.errors?.[0]?.message).toMatch(pattern);
    expect(JSON.stringify(r.body)).not.toMatch(/SELECT|stack|at \w+ \(/);
    expect(s.sql.filter((q) => /FROM\s+"Comment"\s+p\b/.test(q))).toEqual([]);
  };

  it("refuses first with last (the spec discourages both; they would slice twice)", async () => {
    await refused({ first: 5, last: 5 }, /first and last: give one of them/);
  });

  it.each([0, -1, 101])("refuses last: %i", async (last) => {
    await refused({ last }, /last must be a whole number from 1 to 100/);
  });

  it("refuses offset with last or before: offset pages forward from the start", async () => {
    await refused({ offset: 3, last: 5 }, /offset pages forward/);
    await refused({ offset: 3, before: await cursorAt(10) }, /offset pages forward/);
  });

  it("refuses a before cursor this API did not make, naming startCursor", async () => {
    await refused({ last: 2, before: "not-a-cursor" }, /before: "not-a-cursor" is not a cursor.*startCursor/);
    await refused({ last: 2, before: Buffer.from("o:-1").toString("base64url") }, /not a cursor/);
  });
});

describe("every connection pages backwards", () => {
  let token: string;
  beforeAll(async () => {
    const me = await s.signUp("lister");
    token = me.token;
    // 7 orders, restaurants, groceries on the list and reports: enough for pages of 3 both ways.
    for (let i = 0; i < 7; i++) {
      const made = await s.graphql(
        `mutation($t: String!) { createRestaurant(input: { title: $t }) { id } }`,
        { t: `r${i}` },
        token,
      );
      expect(made.errors).toBeUndefined();
      const r = await s.graphql(
        `mutation($r: ID!, $name: String!) { orderRecipe(input: { restaurantId: $r, recipe: $name }) { id } }`,
        { r: restaurantId, name: `dish ${i}` },
        token,
      );
      expect(r.errors).toBeUndefined();
      const g = await s.graphql(
        `mutation($t: String!) { createGrocery(input: { title: $t }) { id } }`,
        { t: `g${i}` },
        token,
      );
      const added = await s.graphql(
        `mutation($g: ID!) { addToShoppingList(groceryId: $g) { quantity } }`,
        { g: g.data.createGrocery.id },
        token,
      );
      expect(added.errors).toBeUndefined();
      const reported = await s.graphql(
        `mutation($g: ID!) { reportGrocery(id: $g, input: { reasonType: "spam" }) { created } }`,
        { g: g.data.createGrocery.id },
        token,
      );
      expect(reported.errors).toBeUndefined();
    }
  });

  const FIELDS: [string, string, () => string][] = [
    ["myOrders", "myOrders(ARGS) { E }", () => token],
    ["myShoppingList", "myShoppingList(ARGS) { E }", () => token],
    ["reports", "reports(ARGS) { E }", () => admin.token],
    ["restaurants", "restaurants(ARGS) { E }", () => token],
    ["groceries", "groceries(ARGS) { E }", () => token],
  ];
  const EDGES = "totalCount edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor }";

  it.each(FIELDS)(
    "%s: last, and last before a cursor, are the tail and the window of the forward list",
    async (field, shape, tokenOf) => {
      const run = async (args: string) => {
        const r = await s.graphql(`{ ${shape.replace("ARGS", args).replace("E", EDGES)} }`, {}, tokenOf());
        expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
        return r.data[field] as { totalCount: number; edges: { cursor: string }[]; pageInfo: Page["pageInfo"] };
      };
      const all = await run("first: 100");
      expect(all.totalCount).toBeGreaterThanOrEqual(4);
      const cursors = all.edges.map((e) => e.cursor);
      const tail = await run("last: 3");
      expect(tail.edges.map((e) => e.cursor)).toEqual(cursors.slice(-3));
      expect(tail.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
      const before = await run(`last: 2, before: "${cursors[3]}"`);
      expect(before.edges.map((e) => e.cursor)).toEqual(cursors.slice(1, 3));
      expect(before.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    },
  );
});

describe("last without before on a search", () => {
  const SEARCH = `query($filter: RestaurantFilter, $last: Int, $first: Int) {
    restaurants(filter: $filter, last: $last, first: $first, sort: NEWEST) {
      totalCount totalCountIsEstimate nodes { id } pageInfo { hasNextPage hasPreviousPage } } }`;

  beforeAll(async () => {
    // 1,500 restaurants in Porto in one statement (the same on both databases), nine in ten delivering.
    await s.db.prisma
      .$executeRawUnsafe(`INSERT INTO "Restaurant" ("id", "title", "titleSearch", "city", "citySearch", "canHomeDeliver", "ownerId", "createdAt", "updatedAt")
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
      SELECT 'porto-' || i, 'Porto ' || i, 'porto ' || i, 'Porto', 'porto', (i % 10 <> 0), '${user.id}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM n`);
  });

  it("pages from the end where the total is exact (stored counts), as the forward list's tail", async () => {
    const r = await s.graphql(SEARCH, { filter: { city: "porto" }, last: 3 }, user.token);
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    expect(r.data.restaurants.totalCountIsEstimate).toBe(false);
    expect(r.data.restaurants.totalCount).toBe(1500);
    const forward = await s.graphql(
      `query($filter: RestaurantFilter) { restaurants(filter: $filter, sort: NEWEST, first: 3, offset: 1497) { nodes { id } } }`,
      { filter: { city: "porto" } },
      user.token,
    );
    expect(r.data.restaurants.nodes).toEqual(forward.data.restaurants.nodes);
    expect(r.data.restaurants.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
  });

  it("refuses it where the total past 1,000 matches is an estimate, saying why and what to do", async () => {
    const estimated = await s.graphql(
      SEARCH,
      { filter: { city: "porto", canHomeDeliver: true }, first: 1 },
      user.token,
    );
    expect(estimated.data.restaurants.totalCountIsEstimate).toBe(true);
    const r = await s.graphql(SEARCH, { filter: { city: "porto", canHomeDeliver: true }, last: 3 }, user.token);
    expect(r.data).toBeNull();
    expect(r.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(r.errors?.[0]?.message).toMatch(/more than 1,000 matches.*narrow the search, or page with first\/after/);
  });

  it("pages backwards from a cursor on any search, estimated total or not", async () => {
    const filter = { city: "porto", canHomeDeliver: true };
    const forward = await s.graphql(
      `query($filter: RestaurantFilter) { restaurants(filter: $filter, sort: NEWEST, first: 10) { edges { cursor node { id } } } }`,
      { filter },
      user.token,
    );
    const edges = forward.data.restaurants.edges;
    const r = await s.graphql(
      `query($filter: RestaurantFilter, $before: String) { restaurants(filter: $filter, sort: NEWEST, last: 4, before: $before) { nodes { id } } }`,
      { filter, before: edges[9].cursor },
      user.token,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.restaurants.nodes.map((n: { id: string }) => n.id)).toEqual(
      edges.slice(5, 9).map((e: { node: { id: string } }) => e.node.id),
    );
  });
});
