// Groceries through the real server: create, read, update, delete and the legacy removal rule
// (who may do what, what bad input does), and search (filters, order, pages, batched fields).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

type User = { token: string; id: string };

let s: TestServer;
let owner: User;
let other: User;
let admin: User;

beforeAll(async () => {
  s = await startServer();
  owner = await s.signUp("owner");
  other = await s.signUp("other");
  admin = await s.signUp("adm", "ADMIN");
});
afterAll(async () => s?.close());

const FIELDS = `id title description alsoKnownAs cover coverUrl metricUnits categories owner { id }
  inMyShoppingList viewerCanEdit createdAt updatedAt`;
const CREATE = `mutation($input: CreateGroceryInput!) { createGrocery(input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateGroceryInput!) { updateGrocery(id: $id, input: $input) { ${FIELDS} } }`;
const DELETE = `mutation($id: ID!) { deleteGrocery(id: $id) }`;
const REMOVE = `mutation($id: ID!, $from: GroceryRemovalScope) { removeGrocery(id: $id, from: $from) { groceryId removedFrom } }`;
const REMOVE_DEFAULT = `mutation($id: ID!) { removeGrocery(id: $id) { groceryId removedFrom } }`;
const GET = `query($id: ID!) { grocery(id: $id) { ${FIELDS} } }`;
const ADD = `mutation($id: ID!, $q: Int) { addToShoppingList(groceryId: $id, quantity: $q) { quantity } }`;

async function ok(server: TestServer, query: string, variables: Record<string, unknown>, token: string) {
  const r = await server.graphql(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

async function create(input: Record<string, unknown>, user = owner) {
  return (await ok(s, CREATE, { input }, user.token)).createGrocery;
}

/** The stored grocery with its tag rows, to prove a refused call changed nothing. */
const snapshot = (id: string) =>
  s.db.prisma.grocery.findUnique({
    where: { id },
    include: { tags: { orderBy: [{ kind: "asc" }, { position: "asc" }] } },
  });

describe("createGrocery", () => {
  it("creates a grocery owned by the caller, text kept as sent, list items trimmed and de-duplicated", async () => {
    const g = await create({
      title: "  Basmati rice ",
      description: "Long grain",
      alsoKnownAs: "Chawal",
      metricUnits: ["kg", " g ", "KG"],
      categories: ["Grains", "Asian"],
    });
    expect(g).toMatchObject({
      title: "  Basmati rice ",
      description: "Long grain",
      alsoKnownAs: "Chawal",
      cover: null,
      coverUrl: null,
      metricUnits: ["kg", "g"],
      categories: ["Grains", "Asian"],
      owner: { id: owner.id },
      inMyShoppingList: 0,
      viewerCanEdit: true,
    });
    expect(Date.parse(g.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    const row = await snapshot(g.id);
    expect(row!.titleSearch).toBe("basmati rice");
    expect(row!.tags.filter((t) => t.kind === "CATEGORY").map((t) => t.valueKey)).toEqual(["grains", "asian"]);
  });

  it("defaults description and alsoKnownAs to empty strings and lists to empty", async () => {
    const g = await create({ title: "Salt" });
    expect(g).toMatchObject({ description: "", alsoKnownAs: "", metricUnits: [], categories: [] });
  });

  it("refuses bad fields with BAD_USER_INPUT naming each, and creates nothing", async () => {
    const before = await s.db.prisma.grocery.count();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ title: "   " }, /title/],
      [{ title: "x".repeat(201) }, /title must have at most 200/],
      [{ title: "ok", description: "d".repeat(5001) }, /description must have at most 5000/],
      [{ title: "ok", alsoKnownAs: "a".repeat(201) }, /alsoKnownAs must have at most 200/],
      [{ title: "ok", categories: ["c".repeat(201)] }, /categories/],
      [{ title: "ok", metricUnits: Array.from({ length: 51 }, (_, i) => `u${i}`) }, /metricUnits/],
      [{ title: "ok", metricUnits: [""] }, /metricUnits/],
    ];
    for (const [input, message] of cases) {
      const r = await s.graphql(CREATE, { input }, owner.token);
      expect(r.errors?.[0].extensions?.code, JSON.stringify(input).slice(0, 80)).toBe("BAD_USER_INPUT");
      expect(r.errors?.[0].message).toMatch(message);
    }
    const both = await s.graphql(CREATE, { input: { title: "", description: "d".repeat(5001) } }, owner.token);
    expect(both.errors?.[0].message).toMatch(/title/);
    expect(both.errors?.[0].message).toMatch(/description/);
    expect(await s.db.prisma.grocery.count()).toBe(before);
  });

  it("accepts the longest values allowed", async () => {
    const g = await create({ title: "t".repeat(200), description: "d".repeat(5000), alsoKnownAs: "a".repeat(200) });
    expect(g.title).toHaveLength(200);
  });

  it("needs a token", async () => {
    const before = await s.db.prisma.grocery.count();
    const r = await s.graphql(CREATE, { input: { title: "Anon" } });
    expect(r.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(await s.db.prisma.grocery.count()).toBe(before);
  });
});

describe("grocery(id)", () => {
  it("reads a grocery; viewerCanEdit is true for the owner and admins only", async () => {
    const g = await create({ title: "Oats", categories: ["Grains"] });
    expect((await ok(s, GET, { id: g.id }, owner.token)).grocery).toMatchObject({ id: g.id, viewerCanEdit: true });
    expect((await ok(s, GET, { id: g.id }, other.token)).grocery).toMatchObject({ id: g.id, viewerCanEdit: false });
    expect((await ok(s, GET, { id: g.id }, admin.token)).grocery).toMatchObject({ id: g.id, viewerCanEdit: true });
  });

  it("is null for an unknown id, and needs a token", async () => {
    expect((await ok(s, GET, { id: "nope" }, other.token)).grocery).toBeNull();
    expect((await s.graphql(GET, { id: "nope" })).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });
});

describe("updateGrocery", () => {
  it("changes only the fields given; a list given replaces that list only", async () => {
    const g = await create({
      title: "Milk",
      description: "Whole",
      alsoKnownAs: "Lait",
      metricUnits: ["l"],
      categories: ["Dairy"],
    });
    await new Promise((r) => setTimeout(r, 5));
    const u = (
      await ok(s, UPDATE, { id: g.id, input: { description: "Skimmed", categories: ["Dairy", "Drinks"] } }, owner.token)
    ).updateGrocery;
    expect(u).toMatchObject({
      title: "Milk",
      description: "Skimmed",
      alsoKnownAs: "Lait",
      metricUnits: ["l"],
      categories: ["Dairy", "Drinks"],
      createdAt: g.createdAt,
    });
    expect(Date.parse(u.updatedAt)).toBeGreaterThan(Date.parse(g.updatedAt));

    const t = (await ok(s, UPDATE, { id: g.id, input: { title: "Oat MILK", metricUnits: [] } }, owner.token))
      .updateGrocery;
    expect(t).toMatchObject({ title: "Oat MILK", metricUnits: [], categories: ["Dairy", "Drinks"] });
    expect((await snapshot(g.id))!.titleSearch).toBe("oat milk");
  });

  it("null empties a text or a list; title cannot be emptied", async () => {
    const g = await create({ title: "Tea", description: "Black", categories: ["Drinks"] });
    const u = (await ok(s, UPDATE, { id: g.id, input: { description: null, categories: null } }, owner.token))
      .updateGrocery;
    expect(u).toMatchObject({ title: "Tea", description: "", categories: [] });
    const before = await snapshot(g.id);
    for (const input of [
      { title: null },
      { title: "" },
      { title: "x".repeat(201) },
      { alsoKnownAs: "a".repeat(201) },
    ]) {
      const r = await s.graphql(UPDATE, { id: g.id, input }, owner.token);
      expect(r.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
      expect(r.errors?.[0].message).toMatch(Object.keys(input)[0]);
    }
    expect(await snapshot(g.id)).toEqual(before);
  });

  it("lets an admin edit anyone's grocery; refuses other users with FORBIDDEN, changing nothing", async () => {
    const g = await create({ title: "Bread", categories: ["Bakery"] });
    const before = await snapshot(g.id);
    const r = await s.graphql(UPDATE, { id: g.id, input: { title: "Stolen", categories: [] } }, other.token);
    expect(r.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect(await snapshot(g.id)).toEqual(before);
    expect((await ok(s, UPDATE, { id: g.id, input: { title: "Rye bread" } }, admin.token)).updateGrocery).toMatchObject(
      {
        title: "Rye bread",
        owner: { id: owner.id },
      },
    );
  });

  it("answers NOT_FOUND for an unknown id and UNAUTHENTICATED without a token", async () => {
    expect(
      (await s.graphql(UPDATE, { id: "nope", input: { title: "x" } }, admin.token)).errors?.[0].extensions?.code,
    ).toBe("NOT_FOUND");
    const g = await create({ title: "Butter" });
    expect((await s.graphql(UPDATE, { id: g.id, input: { title: "x" } })).errors?.[0].extensions?.code).toBe(
      "UNAUTHENTICATED",
    );
    expect((await snapshot(g.id))!.title).toBe("Butter");
  });
});

describe("deleteGrocery", () => {
  it("lets the owner delete; then the grocery, its lists and shopping-list entries are gone", async () => {
    const g = await create({ title: "Eggs", categories: ["Dairy"] });
    await ok(s, ADD, { id: g.id, q: 2 }, other.token);
    expect((await ok(s, DELETE, { id: g.id }, owner.token)).deleteGrocery).toBe(g.id);
    expect((await ok(s, GET, { id: g.id }, owner.token)).grocery).toBeNull();
    expect(await s.db.prisma.groceryTag.count({ where: { groceryId: g.id } })).toBe(0);
    expect(await s.db.prisma.shoppingListEntry.count({ where: { groceryId: g.id } })).toBe(0);
    expect((await s.graphql(DELETE, { id: g.id }, owner.token)).errors?.[0].extensions?.code).toBe("NOT_FOUND");
  });

  it("refuses other users with FORBIDDEN and lets an admin delete", async () => {
    const g = await create({ title: "Honey" });
    expect((await s.graphql(DELETE, { id: g.id }, other.token)).errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect(await snapshot(g.id)).not.toBeNull();
    expect((await s.graphql(DELETE, { id: g.id })).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect((await ok(s, DELETE, { id: g.id }, admin.token)).deleteGrocery).toBe(g.id);
    expect(await snapshot(g.id)).toBeNull();
  });
});

describe("removeGrocery (the legacy DELETE rule)", () => {
  it("SHOPPING_LIST takes it off the caller's list only, whether or not it was there", async () => {
    const g = await create({ title: "Jam" });
    await ok(s, ADD, { id: g.id }, other.token);
    await ok(s, ADD, { id: g.id }, admin.token);
    expect((await ok(s, REMOVE, { id: g.id, from: "SHOPPING_LIST" }, other.token)).removeGrocery).toEqual({
      groceryId: g.id,
      removedFrom: "SHOPPING_LIST",
    });
    expect(await s.db.prisma.shoppingListEntry.count({ where: { groceryId: g.id } })).toBe(1); // the admin's stays
    expect((await ok(s, REMOVE, { id: g.id, from: "SHOPPING_LIST" }, other.token)).removeGrocery.removedFrom).toBe(
      "SHOPPING_LIST",
    );
    expect(await snapshot(g.id)).not.toBeNull();
    expect(
      (await s.graphql(REMOVE, { id: "nope", from: "SHOPPING_LIST" }, other.token)).errors?.[0].extensions?.code,
    ).toBe("NOT_FOUND");
  });

  it("CATALOGUE deletes it for the owner or an admin, FORBIDDEN for others", async () => {
    const g = await create({ title: "Flour" });
    await ok(s, ADD, { id: g.id }, other.token);
    expect((await s.graphql(REMOVE, { id: g.id, from: "CATALOGUE" }, other.token)).errors?.[0].extensions?.code).toBe(
      "FORBIDDEN",
    );
    expect(await s.db.prisma.shoppingListEntry.count({ where: { groceryId: g.id } })).toBe(1);
    expect((await ok(s, REMOVE, { id: g.id, from: "CATALOGUE" }, owner.token)).removeGrocery).toEqual({
      groceryId: g.id,
      removedFrom: "CATALOGUE",
    });
    expect(await snapshot(g.id)).toBeNull();
  });

  it("by default: leaves the caller's list if it is on it, otherwise deletes it (owner or admin, else FORBIDDEN)", async () => {
    const g = await create({ title: "Sugar" });
    await ok(s, ADD, { id: g.id }, other.token);
    await ok(s, ADD, { id: g.id }, owner.token);
    // On the list: only the list changes, even for the owner.
    expect((await ok(s, REMOVE_DEFAULT, { id: g.id }, owner.token)).removeGrocery.removedFrom).toBe("SHOPPING_LIST");
    expect((await ok(s, REMOVE_DEFAULT, { id: g.id }, other.token)).removeGrocery.removedFrom).toBe("SHOPPING_LIST");
    expect(await snapshot(g.id)).not.toBeNull();
    // Off the list: a stranger may not delete it, the owner may.
    expect((await s.graphql(REMOVE_DEFAULT, { id: g.id }, other.token)).errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect(await snapshot(g.id)).not.toBeNull();
    expect((await ok(s, REMOVE_DEFAULT, { id: g.id }, owner.token)).removeGrocery.removedFrom).toBe("CATALOGUE");
    expect(await snapshot(g.id)).toBeNull();
    expect((await s.graphql(REMOVE_DEFAULT, { id: g.id }, owner.token)).errors?.[0].extensions?.code).toBe("NOT_FOUND");
  });
});

describe("groceries search", () => {
  let c: TestServer; // its own database, so counts and orders are exact
  let u: User;
  let v: User;
  const titles = [
    "Green Apples",
    "apple juice",
    "Pineapple",
    "Bananas! Ripe",
    "ÉPICES douces",
    "Épinards",
    "100% Cocoa",
    "Cocoa_nibs",
    "Back\\slash",
  ];

  beforeAll(async () => {
    c = await startServer();
    u = await c.signUp("cat");
    v = await c.signUp("viewer");
    for (const [i, title] of titles.entries()) {
      const categories = i < 3 ? ["Fruit", "Fresh"] : i === 3 ? ["FRUIT"] : i < 6 ? ["Vegetables"] : ["Sweets"];
      await ok(c, CREATE, { input: { title, categories, metricUnits: ["kg"] } }, u.token);
    }
  });
  afterAll(async () => c?.close());

  const SEARCH = `query($filter: GroceryFilter, $first: Int, $after: String, $offset: Int) {
    groceries(filter: $filter, first: $first, after: $after, offset: $offset) {
      totalCount nodes { id title } edges { cursor node { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }`;
  const search = async (variables: Record<string, unknown>) => (await ok(c, SEARCH, variables, v.token)).groceries;
  const titlesOf = async (filter: Record<string, unknown>) =>
    (await search({ filter, first: 100 })).nodes.map((n: any) => n.title);

  it("matches a case-insensitive substring of the title, Unicode included", async () => {
    expect((await titlesOf({ title: "APPLE" })).sort()).toEqual(["Green Apples", "Pineapple", "apple juice"]);
    expect((await titlesOf({ title: "épi" })).sort()).toEqual(["Épinards", "ÉPICES douces"].sort());
    expect(await titlesOf({ title: "nothing like it" })).toEqual([]);
  });

  it("treats %, _, \\ and ! (the escape character) in the title filter as plain characters", async () => {
    expect(await titlesOf({ title: "as!" })).toEqual(["Bananas! Ripe"]);
    expect(await titlesOf({ title: "s! r" })).toEqual(["Bananas! Ripe"]);
    expect(await titlesOf({ title: "s!%" })).toEqual([]);
    expect(await titlesOf({ title: "00%" })).toEqual(["100% Cocoa"]);
    expect(await titlesOf({ title: "0% c" })).toEqual(["100% Cocoa"]);
    expect(await titlesOf({ title: "a_n" })).toEqual(["Cocoa_nibs"]);
    expect(await titlesOf({ title: "ck\\" })).toEqual(["Back\\slash"]);
    expect(await titlesOf({ title: "k\\S" })).toEqual(["Back\\slash"]);
    expect((await search({ filter: { title: "00%", category: "fruit" } })).totalCount).toBe(0);
  });

  it("filters by a whole category, case-insensitively, and combines filters", async () => {
    expect((await search({ filter: { category: "fruit" } })).totalCount).toBe(4);
    expect((await search({ filter: { category: "Fru" } })).totalCount).toBe(0);
    expect((await titlesOf({ category: "FRESH", title: "apple" })).sort()).toEqual([
      "Green Apples",
      "Pineapple",
      "apple juice",
    ]);
    expect(await titlesOf({ category: "vegetables", title: "apple" })).toEqual([]);
    expect((await search({ filter: { category: "", title: "" } })).totalCount).toBe(titles.length);
  });

  it("lists newest first, with the total count", async () => {
    const all = await search({ first: 100 });
    expect(all.totalCount).toBe(titles.length);
    const rows = await c.db.prisma.grocery.findMany({ orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
    expect(all.nodes.map((n: any) => n.id)).toEqual(rows.map((r) => r.id));
    expect(all.nodes[0].title).toBe(titles.at(-1));
  });

  it("pages with first/after and offset without gaps or overlaps", async () => {
    const all = (await search({ first: 100 })).nodes.map((n: any) => n.id);
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const page: any = await search({ first: 3, after });
      pages++;
      expect(page.totalCount).toBe(titles.length);
      expect(page.pageInfo.hasPreviousPage).toBe(seen.length > 0);
      seen.push(...page.nodes.map((n: any) => n.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(pages).toBe(3); // 9 groceries, 3 a page
    expect(seen).toEqual(all);

    const last = await search({ first: 3, offset: 7 });
    expect(last.nodes.map((n: any) => n.id)).toEqual(all.slice(7));
    expect(last.pageInfo.hasNextPage).toBe(false);
    expect((await search({ first: 3, offset: 6 })).pageInfo.hasNextPage).toBe(false);
    expect((await search({ first: 3, offset: 5 })).pageInfo.hasNextPage).toBe(true);
    const exact = await search({ first: 9 });
    expect(exact.pageInfo.hasNextPage).toBe(false);
    const beyond = await search({ first: 3, offset: 50 });
    expect(beyond).toMatchObject({
      nodes: [],
      totalCount: titles.length,
      pageInfo: { hasNextPage: false, startCursor: null },
    });
  });

  it("refuses page sizes outside 1..100, a negative offset and a made-up cursor", async () => {
    for (const variables of [{ first: 0 }, { first: 101 }, { offset: -1 }, { after: "not-a-cursor" }]) {
      const r = await c.graphql(SEARCH, variables, v.token);
      expect(r.errors?.[0].extensions?.code, JSON.stringify(variables)).toBe("BAD_USER_INPUT");
    }
    expect(
      (await c.graphql(SEARCH, { filter: { title: "x".repeat(201) } }, v.token)).errors?.[0].extensions?.code,
    ).toBe("BAD_USER_INPUT");
    expect((await c.graphql(SEARCH, {})).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("loads lists, owners and shopping-list quantities in batches: the same statements for 2 or 9 groceries", async () => {
    const ids = (await search({ first: 100 })).nodes.map((n: any) => n.id);
    await ok(c, ADD, { id: ids[0], q: 3 }, v.token);
    const PAGE = `query($first: Int) { groceries(first: $first) { nodes { id metricUnits categories owner { id firstName }
      inMyShoppingList viewerCanEdit } } }`;
    const count = async (first: number) => {
      c.sql.length = 0;
      const data = await ok(c, PAGE, { first }, v.token);
      return { statements: c.sql.length, nodes: data.groceries.nodes };
    };
    const small = await count(2);
    const large = await count(9);
    expect(large.statements).toBe(small.statements);
    expect(large.nodes[0]).toMatchObject({
      inMyShoppingList: 3,
      viewerCanEdit: false,
      owner: { id: u.id },
      metricUnits: ["kg"],
    });
    expect(large.nodes[1].inMyShoppingList).toBe(0);
  });
});
