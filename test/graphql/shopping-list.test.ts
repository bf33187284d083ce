// The shopping list through the real server: adding (again), exact quantities under concurrency,
// removing, reading one's own list page by page, and what bad input does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

type User = { token: string; id: string };

let s: TestServer;
let owner: User;

beforeAll(async () => {
  s = await startServer();
  owner = await s.signUp("owner");
});
afterAll(async () => s?.close());

const ENTRY = `quantity addedAt updatedAt grocery { id title inMyShoppingList }`;
const ADD = `mutation($id: ID!, $q: Int) { addToShoppingList(groceryId: $id, quantity: $q) { ${ENTRY} } }`;
const ADD_DEFAULT = `mutation($id: ID!) { addToShoppingList(groceryId: $id) { ${ENTRY} } }`;
const REMOVE = `mutation($id: ID!) { removeFromShoppingList(groceryId: $id) }`;
const LIST = `query($first: Int, $after: String, $offset: Int) {
  myShoppingList(first: $first, after: $after, offset: $offset) {
    totalCount nodes { quantity grocery { id title } } pageInfo { hasNextPage hasPreviousPage endCursor }
  }
}`;

async function ok(query: string, variables: Record<string, unknown>, token: string) {
  const r = await s.graphql(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

async function grocery(title: string): Promise<string> {
  const r = await ok(`mutation($t: String!) { createGrocery(input: { title: $t }) { id } }`, { t: title }, owner.token);
  return r.createGrocery.id;
}

const rowsOf = (userId: string) => s.db.prisma.shoppingListEntry.findMany({ where: { userId } });

describe("addToShoppingList", () => {
  it("adds a grocery with quantity 1 by default; adding again raises the quantity on the same entry", async () => {
    const me = await s.signUp("shopper");
    const id = await grocery("Rice");
    const first = (await ok(ADD_DEFAULT, { id }, me.token)).addToShoppingList;
    expect(first).toMatchObject({ quantity: 1, grocery: { id, title: "Rice", inMyShoppingList: 1 } });
    expect(first.addedAt).toBe(first.updatedAt);
    await new Promise((r) => setTimeout(r, 5));
    const again = (await ok(ADD, { id, q: 3 }, me.token)).addToShoppingList;
    expect(again).toMatchObject({ quantity: 4, addedAt: first.addedAt, grocery: { inMyShoppingList: 4 } });
    expect(Date.parse(again.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));
    expect(await rowsOf(me.id)).toHaveLength(1);
  });

  it("refuses a quantity outside 1..1000 and an unknown grocery, changing nothing", async () => {
    const me = await s.signUp("careful");
    const id = await grocery("Beans");
    await ok(ADD, { id, q: 2 }, me.token);
    for (const q of [0, -1, 1001]) {
      const r = await s.graphql(ADD, { id, q }, me.token);
      expect(r.errors?.[0].extensions?.code, String(q)).toBe("BAD_USER_INPUT");
      expect(r.errors?.[0].message).toMatch(/quantity must be a whole number from 1 to 1000/);
    }
    const missing = await s.graphql(ADD, { id: "no-such-grocery", q: 1 }, me.token);
    expect(missing.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    expect((await rowsOf(me.id)).map((r) => r.quantity)).toEqual([2]);
    expect((await ok(ADD, { id, q: 1000 }, me.token)).addToShoppingList.quantity).toBe(1002);
  });

  it("refuses to grow one entry past 1,000,000", async () => {
    const me = await s.signUp("hoarder");
    const id = await grocery("Pasta");
    await ok(ADD, { id, q: 1 }, me.token);
    await s.db.prisma.shoppingListEntry.update({
      where: { userId_groceryId: { userId: me.id, groceryId: id } },
      data: { quantity: 999_999 },
    });
    const r = await s.graphql(ADD, { id, q: 2 }, me.token);
    expect(r.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect((await rowsOf(me.id))[0].quantity).toBe(999_999);
    expect((await ok(ADD, { id, q: 1 }, me.token)).addToShoppingList.quantity).toBe(1_000_000);
  });

  it("counts every one of 20 parallel first adds: quantity 20, one entry, no error", async () => {
    const me = await s.signUp("rush");
    const id = await grocery("Coffee");
    const results = await Promise.all(Array.from({ length: 20 }, () => s.graphql(ADD, { id, q: 1 }, me.token)));
    for (const r of results) expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    const rows = await rowsOf(me.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].quantity).toBe(20);
    expect(results.map((r) => r.data.addToShoppingList.quantity).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });

  it("keeps several users' parallel adds apart", async () => {
    const users = await Promise.all([s.signUp("p"), s.signUp("q"), s.signUp("r")]);
    const id = await grocery("Tea");
    await Promise.all(
      users.flatMap((u, i) => Array.from({ length: 5 }, () => s.graphql(ADD, { id, q: i + 1 }, u.token))),
    );
    for (const [i, u] of users.entries()) expect((await rowsOf(u.id)).map((r) => r.quantity)).toEqual([5 * (i + 1)]);
  });

  it("needs a token", async () => {
    const id = await grocery("Salt");
    expect((await s.graphql(ADD, { id, q: 1 })).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(await s.db.prisma.shoppingListEntry.count({ where: { groceryId: id } })).toBe(0);
  });
});

describe("removeFromShoppingList", () => {
  it("takes the grocery off the caller's list only, answering whether it was there", async () => {
    const me = await s.signUp("remover");
    const friend = await s.signUp("friend");
    const id = await grocery("Soap");
    await ok(ADD, { id, q: 2 }, me.token);
    await ok(ADD, { id, q: 1 }, friend.token);
    expect((await ok(REMOVE, { id }, me.token)).removeFromShoppingList).toBe(true);
    expect((await ok(REMOVE, { id }, me.token)).removeFromShoppingList).toBe(false);
    expect((await ok(REMOVE, { id: "no-such-grocery" }, me.token)).removeFromShoppingList).toBe(false);
    expect(await rowsOf(me.id)).toHaveLength(0);
    expect((await rowsOf(friend.id)).map((r) => r.quantity)).toEqual([1]);
    expect(await s.db.prisma.grocery.count({ where: { id } })).toBe(1);
    expect((await s.graphql(REMOVE, { id })).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });
});

describe("myShoppingList", () => {
  it("lists only the caller's entries, most recently added first; adding again does not move an entry", async () => {
    const me = await s.signUp("lister");
    const friend = await s.signUp("stranger");
    const ids = [];
    for (const title of ["First", "Second", "Third"]) {
      ids.push(await grocery(title));
      await ok(ADD, { id: ids.at(-1), q: 1 }, me.token);
      await new Promise((r) => setTimeout(r, 3));
    }
    await ok(ADD, { id: ids[0], q: 5 }, me.token);
    await ok(ADD, { id: ids[1], q: 1 }, friend.token);
    const list = (await ok(LIST, {}, me.token)).myShoppingList;
    expect(list.totalCount).toBe(3);
    expect(list.nodes.map((n: any) => [n.grocery.title, n.quantity])).toEqual([
      ["Third", 1],
      ["Second", 1],
      ["First", 6],
    ]);
    expect((await ok(LIST, {}, friend.token)).myShoppingList.nodes.map((n: any) => n.grocery.title)).toEqual([
      "Second",
    ]);
  });

  it("pages with first/after and offset, and refuses bad page arguments", async () => {
    const me = await s.signUp("pager");
    for (let i = 0; i < 5; i++) await ok(ADD, { id: await grocery(`Item ${i}`), q: 1 }, me.token);
    const all = (await ok(LIST, { first: 100 }, me.token)).myShoppingList.nodes.map((n: any) => n.grocery.id);
    expect(all).toHaveLength(5);

    const p1 = (await ok(LIST, { first: 2 }, me.token)).myShoppingList;
    const p2 = (await ok(LIST, { first: 2, after: p1.pageInfo.endCursor }, me.token)).myShoppingList;
    const p3 = (await ok(LIST, { first: 2, after: p2.pageInfo.endCursor }, me.token)).myShoppingList;
    expect([...p1.nodes, ...p2.nodes, ...p3.nodes].map((n: any) => n.grocery.id)).toEqual(all);
    expect([p1.pageInfo.hasNextPage, p2.pageInfo.hasNextPage, p3.pageInfo.hasNextPage]).toEqual([true, true, false]);
    expect([p1.pageInfo.hasPreviousPage, p2.pageInfo.hasPreviousPage]).toEqual([false, true]);
    expect(p3.totalCount).toBe(5);

    const offset = (await ok(LIST, { first: 2, offset: 4 }, me.token)).myShoppingList;
    expect(offset.nodes.map((n: any) => n.grocery.id)).toEqual(all.slice(4));
    expect((await ok(LIST, { offset: 5 }, me.token)).myShoppingList).toMatchObject({ nodes: [], totalCount: 5 });
    for (const variables of [{ first: 0 }, { first: 101 }, { after: "x" }, { offset: -2 }]) {
      expect((await s.graphql(LIST, variables, me.token)).errors?.[0].extensions?.code, JSON.stringify(variables)).toBe(
        "BAD_USER_INPUT",
      );
    }
    expect((await s.graphql(LIST, {})).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("loses an entry when its grocery is deleted", async () => {
    const me = await s.signUp("gone");
    const id = await grocery("Ephemeral");
    await ok(ADD, { id, q: 1 }, me.token);
    await ok(`mutation($id: ID!) { deleteGrocery(id: $id) }`, { id }, owner.token);
    expect((await ok(LIST, {}, me.token)).myShoppingList).toMatchObject({ nodes: [], totalCount: 0 });
  });
});
