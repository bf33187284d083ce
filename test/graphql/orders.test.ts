// The order list through the real server: orderRecipe, myOrders (only the caller's, newest first,
// paged) and Order.restaurant.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let owner: { token: string; id: string; username: string };
let restaurantId: string;
beforeAll(async () => {
  s = await startServer();
  owner = await s.signUp("owner");
  restaurantId = (await newRestaurant("Pasta Place")).id;
});
afterAll(async () => s?.close());

async function newRestaurant(title: string) {
  return s.db.prisma.restaurant.create({ data: { title, titleSearch: title.toLowerCase(), ownerId: owner.id } });
}

const ORDER = `mutation($input: OrderRecipeInput!) {
  orderRecipe(input: $input) { id recipe quantity createdAt restaurant { id title } }
}`;

const MY_ORDERS = `query($first: Int, $after: String, $offset: Int) {
  myOrders(first: $first, after: $after, offset: $offset) {
    totalCount
    nodes { id recipe quantity restaurant { id title } }
    edges { cursor node { id } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;

describe("orderRecipe", () => {
  it("puts the recipe on the caller's order list, quantity 1 by default", async () => {
    const user = await s.signUp("eater");
    const res = await s.graphql(ORDER, { input: { restaurantId, recipe: "  Carbonara " } }, user.token);
    expect(res.errors).toBeUndefined();
    expect(res.data.orderRecipe).toMatchObject({
      recipe: "  Carbonara ",
      quantity: 1,
      restaurant: { id: restaurantId, title: "Pasta Place" },
    });
    const row = await s.db.prisma.order.findUniqueOrThrow({ where: { id: res.data.orderRecipe.id } });
    expect(row).toMatchObject({ userId: user.id, restaurantId, recipe: "  Carbonara ", quantity: 1 });
  });

  it("takes an explicit quantity, from 1 to 1000, and treats null as 1", async () => {
    const user = await s.signUp("eater");
    for (const [quantity, expected] of [
      [1, 1],
      [1000, 1000],
      [7, 7],
      [null, 1],
    ] as const) {
      const res = await s.graphql(ORDER, { input: { restaurantId, recipe: "Lasagne", quantity } }, user.token);
      expect(res.errors).toBeUndefined();
      expect(res.data.orderRecipe.quantity).toBe(expected);
    }
    expect(await s.db.prisma.order.count({ where: { userId: user.id } })).toBe(4);
  });

  it("accepts a 200-character recipe", async () => {
    const user = await s.signUp("eater");
    const res = await s.graphql(ORDER, { input: { restaurantId, recipe: "r".repeat(200) } }, user.token);
    expect(res.data.orderRecipe.recipe).toHaveLength(200);
  });

  it.each([
    ["an empty recipe", { recipe: "" }, /recipe/],
    ["a blank recipe", { recipe: "   " }, /recipe/],
    ["a 201-character recipe", { recipe: "r".repeat(201) }, /recipe/],
    ["quantity 0", { recipe: "Pizza", quantity: 0 }, /quantity/],
    ["quantity 1001", { recipe: "Pizza", quantity: 1001 }, /quantity/],
    ["a negative quantity", { recipe: "Pizza", quantity: -3 }, /quantity/],
    ["a fractional quantity", { recipe: "Pizza", quantity: 1.5 }, /quantity|Int/],
  ])("refuses %s with BAD_USER_INPUT and stores nothing", async (_, fields, message) => {
    const user = await s.signUp("eater");
    const res = await s.graphql(ORDER, { input: { restaurantId, ...fields } }, user.token);
    expect(res.data?.orderRecipe ?? null).toBeNull();
    expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(res.errors?.[0].message).toMatch(message);
    expect(await s.db.prisma.order.count({ where: { userId: user.id } })).toBe(0);
  });

  it("answers NOT_FOUND for an unknown restaurant and stores nothing", async () => {
    const user = await s.signUp("eater");
    const res = await s.graphql(ORDER, { input: { restaurantId: "missing-restaurant", recipe: "Soup" } }, user.token);
    expect(res.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    expect(res.errors?.[0].message).toContain("missing-restaurant");
    expect(await s.db.prisma.order.count({ where: { userId: user.id } })).toBe(0);
  });

  it("needs an access token", async () => {
    const before = await s.db.prisma.order.count();
    const res = await s.graphql(ORDER, { input: { restaurantId, recipe: "Soup" } });
    expect(res.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(await s.db.prisma.order.count()).toBe(before);
  });
});

describe("myOrders", () => {
  let reader: { token: string; id: string };
  let newestFirstIds: string[];

  beforeAll(async () => {
    reader = await s.signUp("reader");
    const other = await newRestaurant("Noodle Bar");
    const start = Date.UTC(2026, 2, 1);
    // 105 orders over two restaurants; the last two share a millisecond (the id decides).
    await s.db.prisma.order.createMany({
      data: Array.from({ length: 105 }, (_, i) => ({
        userId: reader.id,
        restaurantId: i % 2 ? other.id : restaurantId,
        recipe: `dish ${i}`,
        quantity: (i % 9) + 1,
        createdAt: new Date(start + Math.min(i, 103) * 1000),
      })),
    });
    const rows = await s.db.prisma.order.findMany({
      where: { userId: reader.id },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    });
    newestFirstIds = rows.map((r) => r.id);
  });

  const page = (variables: Record<string, unknown>, token = reader.token) => s.graphql(MY_ORDERS, variables, token);

  it("lists the caller's orders newest first, with their restaurants", async () => {
    const res = await page({});
    expect(res.errors).toBeUndefined();
    const c = res.data.myOrders;
    expect(c.totalCount).toBe(105);
    expect(c.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(0, 20));
    expect(c.nodes[0]).toMatchObject({ recipe: "dish 104", restaurant: { title: "Pasta Place" } });
    expect(new Set(c.nodes.map((n: any) => n.restaurant.title))).toEqual(new Set(["Pasta Place", "Noodle Bar"]));
    expect(c.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
  });

  it("shows an order placed just now at the top", async () => {
    const user = await s.signUp("eater");
    await s.graphql(ORDER, { input: { restaurantId, recipe: "First" } }, user.token);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await s.graphql(ORDER, { input: { restaurantId, recipe: "Second", quantity: 2 } }, user.token);
    const res = await page({}, user.token);
    expect(res.data.myOrders.nodes.map((n: any) => [n.recipe, n.quantity])).toEqual([
      ["Second", 2],
      ["First", 1],
    ]);
  });

  it("never shows other users' orders", async () => {
    const stranger = await s.signUp("stranger");
    const empty = await page({}, stranger.token);
    expect(empty.data.myOrders).toMatchObject({
      totalCount: 0,
      nodes: [],
      pageInfo: { hasNextPage: false, endCursor: null },
    });
    await s.graphql(ORDER, { input: { restaurantId, recipe: "Mine" } }, stranger.token);
    const own = await page({ first: 100 }, stranger.token);
    expect(own.data.myOrders.nodes.map((n: any) => n.recipe)).toEqual(["Mine"]);
    const readers = await page({ first: 100 });
    expect(readers.data.myOrders.totalCount).toBe(105);
    expect(readers.data.myOrders.nodes.some((n: any) => n.recipe === "Mine")).toBe(false);
  });

  it("pages with first: 1 and first: 100, and continues after a cursor", async () => {
    const one = (await page({ first: 1 })).data.myOrders;
    expect(one.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(0, 1));
    const two = (await page({ first: 1, after: one.pageInfo.endCursor })).data.myOrders;
    expect(two.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(1, 2));
    expect(two.pageInfo.hasPreviousPage).toBe(true);
    const hundred = (await page({ first: 100 })).data.myOrders;
    expect(hundred.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(0, 100));
    const rest = (await page({ first: 100, after: hundred.pageInfo.endCursor })).data.myOrders;
    expect(rest.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(100));
    expect(rest.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it("skips with offset", async () => {
    const res = (await page({ first: 3, offset: 10 })).data.myOrders;
    expect(res.nodes.map((n: any) => n.id)).toEqual(newestFirstIds.slice(10, 13));
  });

  it.each([0, 101])("refuses first: %i with BAD_USER_INPUT", async (first) => {
    const res = await page({ first });
    expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });

  it("refuses a forged cursor", async () => {
    const res = await page({ after: Buffer.from("x:3").toString("base64url") });
    expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });

  it("needs an access token", async () => {
    const res = await s.graphql(MY_ORDERS, {});
    expect(res.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(res.data?.myOrders ?? null).toBeNull();
  });

  it("loads the restaurants of a page in a fixed number of statements", async () => {
    s.sql.length = 0;
    await page({ first: 100 });
    const forHundred = s.sql.length;
    s.sql.length = 0;
    await page({ first: 2 });
    expect(s.sql.length).toBe(forHundred);
  });
});
