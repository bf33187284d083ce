// Relay's Node: node(id:) and nodes(ids:) through the real server, on a real database. Each type
// answers exactly as the field that reads it (same data, same ids as the REST face), shown to whom
// that field shows it (its declared rule, and an order to its customer alone), never telling a
// caller more than "null" about what it may not see; ids of the wrong shape are refused, and what
// node costs is a statement per table per batch of ids, one when the query names the type.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { expiredToken, signUpWorld, type World } from "../hardening/mutation-calls.ts";

type Account = { token: string; id: string; username: string };

let s: TestServer;
let w: World;
let owner: Account;
let other: Account;
let admin: Account;
const id = { restaurant: "", grocery: "", comment: "", order: "", badge: "", report: "" };

async function ok(query: string, variables: Record<string, unknown>, token?: string) {
  const r = await s.graphql(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

const NODE = (fields: string) => `query($id: ID!) { node(id: $id) { __typename id ${fields} } }`;

/** The world every test reads: the owner's restaurant, grocery and order; other's comment and report; a badge. */
async function makeWorld(server: TestServer) {
  const world = await signUpWorld(server);
  const r = await server.graphql(
    `mutation { createRestaurant(input: { title: "Nodes Bistro", cuisines: ["Greek"] }) { id } }`,
    {},
    world.owner.token,
  );
  const restaurant = r.data.createRestaurant.id as string;
  const c = await server.graphql(
    `mutation($r: ID!) { addComment(restaurantId: $r, input: { title: "Fine", body: "Good souvlaki", rating: 4 }) { id } }`,
    { r: restaurant },
    world.other.token,
  );
  const g = await server.graphql(
    `mutation { createGrocery(input: { title: "Nodes Feta", categories: ["dairy"] }) { id } }`,
    {},
    world.owner.token,
  );
  const o = await server.graphql(
    `mutation($r: ID!) { orderRecipe(input: { restaurantId: $r, recipe: "Moussaka", quantity: 2 }) { id } }`,
    { r: restaurant },
    world.owner.token,
  );
  const b = await server.graphql(
    `mutation($r: ID!) { grantBadge(restaurantId: $r, name: "Nodes Award") { badge { id } } }`,
    { r: restaurant },
    world.admin.token,
  );
  const rep = await server.graphql(
    `mutation($g: ID!) { reportGrocery(id: $g, input: { reasonType: "spam" }) { report { id } } }`,
    { g: g.data.createGrocery.id },
    world.other.token,
  );
  return {
    world,
    ids: {
      restaurant,
      grocery: g.data.createGrocery.id as string,
      comment: c.data.addComment.id as string,
      order: o.data.orderRecipe.id as string,
      badge: b.data.grantBadge.badge.id as string,
      report: rep.data.reportGrocery.report.id as string,
    },
  };
}

beforeAll(async () => {
  s = await startServer();
  const made = await makeWorld(s);
  w = made.world;
  Object.assign(id, made.ids);
  [owner, other, admin] = [w.owner, w.other, w.admin];
});
afterAll(async () => s?.close());

describe("each type, exactly as the field that reads it", () => {
  const RESTAURANT = `title cuisines rating commentCount viewerCanEdit owner { username role }
    badges { badge { id name } } comments(last: 5) { totalCount nodes { id title author { username } } }`;

  it("a restaurant: as restaurant(id:)", async () => {
    const typed = await ok(
      `query($id: ID!) { restaurant(id: $id) { id ${RESTAURANT} } }`,
      { id: id.restaurant },
      other.token,
    );
    const node = await ok(NODE(`... on Restaurant { ${RESTAURANT} }`), { id: id.restaurant }, other.token);
    expect(node.node).toEqual({ __typename: "Restaurant", ...typed.restaurant });
    expect(node.node.title).toBe("Nodes Bistro");
  });

  it("a grocery: as grocery(id:), viewer-dependent fields included", async () => {
    const FIELDS = `title categories inMyShoppingList viewerCanEdit owner { id }`;
    for (const viewer of [owner, other]) {
      const typed = await ok(`query($id: ID!) { grocery(id: $id) { id ${FIELDS} } }`, { id: id.grocery }, viewer.token);
      const node = await ok(NODE(`... on Grocery { ${FIELDS} }`), { id: id.grocery }, viewer.token);
      expect(node.node).toEqual({ __typename: "Grocery", ...typed.grocery });
    }
  });

  it("a user: as user(id:), role shown to the account itself and admins only", async () => {
    for (const viewer of [owner, other, admin]) {
      const typed = await ok(
        `query($id: ID!) { user(id: $id) { id username firstName role } }`,
        { id: owner.id },
        viewer.token,
      );
      const node = await ok(NODE(`... on User { username firstName role }`), { id: owner.id }, viewer.token);
      expect(node.node).toEqual({ __typename: "User", ...typed.user });
    }
    expect((await ok(NODE("... on User { role }"), { id: owner.id }, other.token)).node.role).toBeNull();
  });

  it("a comment, a badge, an order, a report: as the lists that show them", async () => {
    const comment = await ok(
      NODE(`... on Comment { title rating author { id } restaurant { id } }`),
      { id: id.comment },
      owner.token,
    );
    expect(comment.node).toEqual({
      __typename: "Comment",
      id: id.comment,
      title: "Fine",
      rating: 4,
      author: { id: other.id },
      restaurant: { id: id.restaurant },
    });
    const badges = await ok(`{ badges { id name cover } }`, {}, other.token);
    const badge = await ok(NODE(`... on Badge { name cover }`), { id: id.badge }, other.token);
    expect(badge.node).toEqual({
      __typename: "Badge",
      ...badges.badges.find((b: { id: string }) => b.id === id.badge),
    });
    const orders = await ok(`{ myOrders { nodes { id recipe quantity restaurant { id } } } }`, {}, owner.token);
    const order = await ok(NODE(`... on Order { recipe quantity restaurant { id } }`), { id: id.order }, owner.token);
    expect(order.node).toEqual({ __typename: "Order", ...orders.myOrders.nodes[0] });
    const reports = await ok(
      `{ reports { nodes { id targetKind targetId grocery { id } reporter { id } status } } }`,
      {},
      admin.token,
    );
    const report = await ok(
      NODE(`... on Report { targetKind targetId grocery { id } reporter { id } status }`),
      { id: id.report },
      admin.token,
    );
    expect(report.node).toEqual({
      __typename: "Report",
      ...reports.reports.nodes.find((n: { id: string }) => n.id === id.report),
    });
  });

  it("keeps the ids the REST face answers: the same string, whatever the type", async () => {
    const rest = await s.fetch(`/restaurants/${id.restaurant}`, { token: other.token });
    expect(rest.status).toBe(200);
    const body = (await rest.json()) as { _id?: string; id?: string };
    expect(body._id ?? body.id).toBe(id.restaurant);
    expect((await ok(NODE(""), { id: id.restaurant }, other.token)).node.id).toBe(id.restaurant);
  });
});

describe("who sees what: null for whatever the typed field would not show", () => {
  it("an order to its customer alone (myOrders shows no one else's, not even to admins)", async () => {
    expect((await ok(NODE(""), { id: id.order }, owner.token)).node).toEqual({ __typename: "Order", id: id.order });
    for (const viewer of [other, admin]) expect((await ok(NODE(""), { id: id.order }, viewer.token)).node).toBeNull();
  });

  it("a report to admins alone (as reports), not even to its reporter", async () => {
    expect((await ok(NODE(""), { id: id.report }, admin.token)).node?.__typename).toBe("Report");
    for (const viewer of [other, owner]) expect((await ok(NODE(""), { id: id.report }, viewer.token)).node).toBeNull();
  });

  it("the same null as for an id nothing has, and as for a removed object", async () => {
    expect((await ok(NODE(""), { id: "no-such-id" }, other.token)).node).toBeNull();
    const r = await ok(`mutation { createRestaurant(input: { title: "Gone soon" }) { id } }`, {}, other.token);
    await ok(`mutation($id: ID!) { deleteRestaurant(id: $id) }`, { id: r.createRestaurant.id }, other.token);
    expect((await ok(NODE(""), { id: r.createRestaurant.id }, other.token)).node).toBeNull();
  });

  it("needs a token as restaurant(id:) does: 401 without one (ANONYMOUS_READS off) or with a stale one", async () => {
    const none = await s.graphql(NODE(""), { id: id.restaurant });
    expect(none.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    const stale = await s.graphql(NODE(""), { id: id.restaurant }, await expiredToken(w, owner.id));
    expect(stale.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    const many = await s.graphql(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: [id.restaurant] });
    expect(many.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });

  describe("ANONYMOUS_READS=true, no token", () => {
    let anon: TestServer;
    let ids: Record<string, string>;
    beforeAll(async () => {
      anon = await startServer({ ANONYMOUS_READS: "true" });
      ids = (await makeWorld(anon)).ids;
    });
    afterAll(async () => anon?.close());

    it("shows what restaurant(id:) and grocery(id:) show anonymously: restaurants, groceries, their comments", async () => {
      for (const [key, type] of [
        ["restaurant", "Restaurant"],
        ["grocery", "Grocery"],
        ["comment", "Comment"],
      ]) {
        const r = await anon.graphql(NODE(""), { id: ids[key] });
        expect(r.data?.node, key).toEqual({ __typename: type, id: ids[key] });
      }
    });

    it("answers null for users, badges, orders and reports, whose fields need a token", async () => {
      const r = await anon.graphql(`query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, {
        ids: [ids.order, ids.report, ids.badge, ids.restaurant],
      });
      expect(r.errors).toBeUndefined();
      expect(r.data.nodes).toEqual([null, null, null, { __typename: "Restaurant", id: ids.restaurant }]);
      const user = await anon.graphql(`query($id: ID!) { user(id: $id) { id } }`, { id: ids.restaurant });
      expect(user.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    });
  });
});

describe("nodes(ids:)", () => {
  it("answers each id in order, null where node would be null, repeats included", async () => {
    const r = await ok(
      `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`,
      { ids: [id.grocery, "nothing", id.order, id.restaurant, id.grocery, id.comment, owner.id, id.badge] },
      other.token,
    );
    expect(r.nodes).toEqual([
      { __typename: "Grocery", id: id.grocery },
      null,
      null, // owner's order
      { __typename: "Restaurant", id: id.restaurant },
      { __typename: "Grocery", id: id.grocery },
      { __typename: "Comment", id: id.comment },
      { __typename: "User", id: owner.id },
      { __typename: "Badge", id: id.badge },
    ]);
    expect((await ok(`{ nodes(ids: []) { id } }`, {}, other.token)).nodes).toEqual([]);
  });
});

describe("bad ids: BAD_USER_INPUT naming the id, nothing read", () => {
  const refused = async (query: string, variables: Record<string, unknown>, pattern: RegExp) => {
    s.sql.length = 0;
    const r = await s.graphql(query, variables, other.token);
    expect(r.errors?.[0]?.extensions?.code, JSON.stringify(r.body)).toBe("BAD_USER_INPUT");
    expect(r.errors?.[0]?.message).toMatch(pattern);
    expect(JSON.stringify(r.body)).not.toMatch(/SELECT|stack|at \w+ \(/);
    expect(s.sql.filter((q) => /"(Restaurant|Grocery|Comment|Order|Badge|Report)"/.test(q))).toEqual([]);
  };

  it("refuses an id no row can have (too long, a NUL, a lone surrogate)", async () => {
    await refused(NODE(""), { id: "x".repeat(101) }, /^id must have at most 100 characters/);
    await refused(NODE(""), { id: "seed\u0000r" }, /^id /);
    await refused(NODE(""), { id: "seed\ud800r" }, /^id /);
  });

  it("refuses more than 100 ids, and names the bad one among many", async () => {
    const ids = Array.from({ length: 101 }, () => id.restaurant);
    await refused(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids }, /ids: at most 100 ids/);
    await refused(
      `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`,
      { ids: [id.restaurant, "y".repeat(500)] },
      /^ids\[1\] must have at most 100 characters/,
    );
  });

  it("answers null for an id of another shape that no table holds (a Relay global id, an integer)", async () => {
    for (const other_ of [Buffer.from(`Restaurant:${id.restaurant}`).toString("base64"), "42", " "]) {
      expect((await ok(NODE(""), { id: other_ }, other.token)).node).toBeNull();
    }
  });
});

describe("what node costs: a statement per table per batch, one when the query names the type", () => {
  // Reads by id (the session's look-ups of the token and its account are not node's).
  const reads = () => s.sql.filter((q) => /^\s*SELECT/i.test(q) && /\bIN \(/.test(q));

  it("reads one table for a refetch that names its type (as Relay's do)", async () => {
    await ok(NODE("... on Restaurant { title }"), { id: id.restaurant }, other.token); // warm-up (session cache)
    s.sql.length = 0;
    await ok(NODE("... on Restaurant { title }"), { id: id.restaurant }, other.token);
    expect(reads(), reads().join("\n")).toHaveLength(1);
    expect(reads()[0]).toMatch(/"Restaurant"/);
  });

  it("probes every table the caller may see once for an id of a type the query does not name", async () => {
    s.sql.length = 0;
    expect((await ok(NODE(""), { id: "nothing-at-all" }, other.token)).node).toBeNull();
    // Restaurant, Grocery, Comment, User, Order, Badge: not Report (admins only).
    expect(reads(), reads().join("\n")).toHaveLength(6);
    s.sql.length = 0;
    await ok(NODE(""), { id: "nothing-at-all" }, admin.token);
    expect(reads(), reads().join("\n")).toHaveLength(7);
  });

  it("batches nodes(ids:): the same statements for 40 ids as for 2", async () => {
    const made = await Promise.all(
      Array.from({ length: 38 }, (_, i) =>
        ok(`mutation($t: String!) { createGrocery(input: { title: $t }) { id } }`, { t: `batch ${i}` }, other.token),
      ),
    );
    const many = [id.restaurant, id.comment, ...made.map((m) => m.createGrocery.id as string)];
    const count = async (ids: string[]) => {
      s.sql.length = 0;
      const r = await ok(`query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, { ids }, other.token);
      expect(r.nodes.every((n: unknown) => n !== null)).toBe(true);
      return reads().length;
    };
    const two = await count(many.slice(0, 2));
    expect(await count(many)).toBe(two);
    expect(two).toBeLessThanOrEqual(6);
  });
});
