// GraphQL subscriptions over WebSocket through the real server (graphql-ws's own client on `ws`):
// each subscription receives its event for writes made through GraphQL and through REST, only
// after they committed (a rolled-back write publishes nothing), and auth and ownership refuse
// with a clear code. Runs on SQLite by default and on PostgreSQL with DATABASE_URL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { CountingBus, liveClient, settle, subscribe, within, type LiveClient } from "../helpers/live.ts";
import { testProvider } from "../helpers/database.ts";

type Account = { token: string; id: string; username: string };

let s: TestServer;
let bus: CountingBus;
let owner: Account;
let other: Account;
let admin: Account;
const clients: LiveClient[] = [];

beforeAll(async () => {
  bus = new CountingBus();
  s = await startServer({}, { events: bus });
  owner = await s.signUp("owner");
  other = await s.signUp("other");
  admin = await s.signUp("admin", "ADMIN");
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await s?.close();
});

function connect(token?: string, params?: Record<string, unknown>): LiveClient {
  const client = liveClient(s, params ?? (token ? { authorization: `Bearer ${token}` } : {}));
  clients.push(client);
  return client;
}

/** Subscribes and waits until the server listens for its events (so a write made next reaches it). */
async function follow(client: LiveClient, query: string, variables?: Record<string, unknown>) {
  const before = bus.listening;
  const sub = subscribe(client, query, variables);
  await bus.untilListening(before + 1);
  return sub;
}

let seq = 0;
async function newRestaurant(ownerId = owner.id) {
  const title = `Live ${++seq}`;
  return s.db.prisma.restaurant.create({ data: { title, titleSearch: title.toLowerCase(), ownerId } });
}
async function newGrocery(ownerId = owner.id) {
  const title = `Item ${++seq}`;
  return s.db.prisma.grocery.create({ data: { title, titleSearch: title.toLowerCase(), ownerId } });
}

const rest = (method: string, path: string, token: string, json?: unknown) => s.fetch(path, { method, token, json });

const COMMENT_ADDED = `subscription($id: ID!) { commentAdded(restaurantId: $id) { id title rating author { id } restaurant { id commentCount } } }`;

describe("commentAdded", () => {
  it("receives comments written through GraphQL and through REST, and only this restaurant's", async () => {
    const r = await newRestaurant();
    const elsewhere = await newRestaurant();
    const sub = await follow(connect(other.token), COMMENT_ADDED, { id: r.id });

    const viaGraphql = await s.graphql(
      `mutation($id: ID!) { addComment(restaurantId: $id, input: { title: "Via GraphQL", body: "b", rating: 4 }) { id } }`,
      { id: r.id },
      owner.token,
    );
    expect(viaGraphql.errors).toBeUndefined();
    const first = await sub.next();
    expect(first.errors).toBeUndefined();
    expect(first.data.commentAdded).toEqual({
      id: viaGraphql.data.addComment.id,
      title: "Via GraphQL",
      rating: 4,
      author: { id: owner.id },
      restaurant: { id: r.id, commentCount: 1 },
    });

    expect(
      (
        await rest("PUT", `/restaurants/${elsewhere.id}/comments`, owner.token, {
          title: "Elsewhere",
          body: "b",
          rating: 1,
        })
      ).status,
    ).toBe(201);
    const viaRest = await rest("PUT", `/restaurants/${r.id}/comments`, admin.token, {
      title: "Via REST",
      body: "b",
      rating: 2,
    });
    expect(viaRest.status).toBe(201);
    const second = await sub.next();
    // Fresh data per event: the count includes the second comment (no loader cached across events).
    expect(second.data.commentAdded).toMatchObject({
      title: "Via REST",
      author: { id: admin.id },
      restaurant: { commentCount: 2 },
    });
    await settle();
    expect(sub.results).toHaveLength(2); // the comment on the other restaurant never arrived
  });

  it("publishes nothing for a write that was rolled back after its first statement", async () => {
    const r = await newRestaurant();
    const sub = await follow(connect(owner.token), COMMENT_ADDED, { id: r.id });
    // The comment's INSERT fails after the rating UPDATE ran: the whole transaction rolls back.
    await failInsertsOfCommentsTitled("boom");
    const failed = await s.graphql(
      `mutation($id: ID!) { addComment(restaurantId: $id, input: { title: "boom", body: "b", rating: 5 }) { id } }`,
      { id: r.id },
      owner.token,
    );
    expect(failed.errors).toBeDefined();
    expect(failed.data?.addComment ?? null).toBeNull();
    expect(
      await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id: r.id }, select: { ratingCount: true } }),
    ).toEqual({
      ratingCount: 0,
    });
    // A refused write (bad input, before any transaction) publishes nothing either.
    expect(
      (await rest("PUT", `/restaurants/${r.id}/comments`, owner.token, { title: "x", body: "b", rating: 9 })).status,
    ).toBe(400);

    const ok = await rest("PUT", `/restaurants/${r.id}/comments`, owner.token, { title: "kept", body: "b", rating: 3 });
    expect(ok.status).toBe(201);
    const first = await sub.next();
    expect(first.data.commentAdded.title).toBe("kept");
    await settle();
    expect(sub.results).toHaveLength(1);
  });

  it("refuses an unknown restaurant with NOT_FOUND and a connection without a token with UNAUTHENTICATED", async () => {
    const unknown = subscribe(connect(owner.token), COMMENT_ADDED, { id: "no-such-restaurant" });
    await within(unknown.ended, "the end of the refused subscription");
    expect(unknown.results).toHaveLength(1);
    expect(unknown.results[0].errors?.[0]).toMatchObject({ extensions: { code: "NOT_FOUND" } });

    const r = await newRestaurant();
    const anonymous = subscribe(connect(), COMMENT_ADDED, { id: r.id });
    await within(anonymous.ended, "the end of the refused subscription");
    expect(anonymous.results[0].errors?.[0]).toMatchObject({
      message: expect.stringMatching(/access token is required/),
      extensions: { code: "UNAUTHENTICATED" },
    });
  });
});

describe("restaurantChanged", () => {
  const CHANGED = `subscription($id: ID!) { restaurantChanged(id: $id) { change restaurantId restaurant { id title badges { badge { name } } } } }`;

  it("receives edits (GraphQL and REST), badges, and the removal with restaurant null", async () => {
    const r = await newRestaurant();
    const sub = await follow(connect(other.token), CHANGED, { id: r.id });

    const edit = await s.graphql(
      `mutation($id: ID!) { updateRestaurant(id: $id, input: { title: "Renamed", cover: "new-cover.png" }) { id } }`,
      { id: r.id },
      owner.token,
    );
    expect(edit.errors).toBeUndefined();
    expect((await sub.next()).data.restaurantChanged).toEqual({
      change: "UPDATED",
      restaurantId: r.id,
      restaurant: { id: r.id, title: "Renamed", badges: [] },
    });

    expect((await rest("PUT", `/restaurants/${r.id}`, owner.token, { title: "Via REST" })).status).toBe(200);
    expect((await sub.next()).data.restaurantChanged.restaurant.title).toBe("Via REST");

    const badge = await s.graphql(
      `mutation($id: ID!) { grantBadge(restaurantId: $id, name: "Clean") { receivedAt } }`,
      { id: r.id },
      admin.token,
    );
    expect(badge.errors).toBeUndefined();
    expect((await sub.next()).data.restaurantChanged.restaurant.badges).toEqual([{ badge: { name: "Clean" } }]);

    // Someone else's refused edit changes nothing and publishes nothing.
    expect((await rest("PUT", `/restaurants/${r.id}`, other.token, { title: "Hijacked" })).status).toBe(403);

    expect((await rest("DELETE", `/restaurants/${r.id}`, owner.token)).status).toBe(204);
    expect((await sub.next()).data.restaurantChanged).toEqual({
      change: "REMOVED",
      restaurantId: r.id,
      restaurant: null,
    });
    await settle();
    expect(sub.results).toHaveLength(4);
  });
});

describe("orderPlaced", () => {
  const PLACED = `subscription($id: ID!) { orderPlaced(restaurantId: $id) { id recipe quantity restaurant { id } } }`;

  it("reaches the restaurant's owner and admins, for orders through GraphQL and REST", async () => {
    const r = await newRestaurant();
    const mine = await follow(connect(owner.token), PLACED, { id: r.id });
    const admins = await follow(connect(admin.token), PLACED, { id: r.id });

    const viaGraphql = await s.graphql(
      `mutation($id: ID!) { orderRecipe(input: { restaurantId: $id, recipe: "Pho", quantity: 2 }) { id } }`,
      { id: r.id },
      other.token,
    );
    expect(viaGraphql.errors).toBeUndefined();
    expect((await mine.next()).data.orderPlaced).toEqual({
      id: viaGraphql.data.orderRecipe.id,
      recipe: "Pho",
      quantity: 2,
      restaurant: { id: r.id },
    });
    expect((await admins.next()).data.orderPlaced.id).toBe(viaGraphql.data.orderRecipe.id);

    expect(
      (await rest("PUT", "/restaurants/order", other.token, { restaurant_id: r.id, recipe: "Laksa" })).status,
    ).toBe(201);
    expect((await mine.next()).data.orderPlaced.recipe).toBe("Laksa");
    expect((await admins.next()).data.orderPlaced.recipe).toBe("Laksa");
  });

  it("refuses anyone else with FORBIDDEN", async () => {
    const r = await newRestaurant();
    const sub = subscribe(connect(other.token), PLACED, { id: r.id });
    await within(sub.ended, "the end of the refused subscription");
    expect(sub.results[0].errors?.[0]).toMatchObject({
      message: expect.stringMatching(/owner or an admin/),
      extensions: { code: "FORBIDDEN" },
    });
  });
});

describe("reportFiled", () => {
  const FILED = `subscription { reportFiled { id targetKind targetId reasonType reporter { id } } }`;

  it("reaches admins, for reports through REST and GraphQL; a repeated report publishes nothing", async () => {
    const r = await newRestaurant();
    const g = await newGrocery();
    const sub = await follow(connect(admin.token), FILED);

    expect((await rest("PUT", `/restaurants/${r.id}`, other.token, { reason_type: "spam" })).status).toBe(201);
    expect((await sub.next()).data.reportFiled).toMatchObject({
      targetKind: "RESTAURANT",
      targetId: r.id,
      reasonType: "spam",
      reporter: { id: other.id },
    });
    expect((await rest("PUT", `/restaurants/${r.id}`, other.token, { reason_type: "again" })).status).toBe(201); // created: false
    const viaGraphql = await s.graphql(
      `mutation($id: ID!) { reportGrocery(id: $id, input: { reasonType: "wrong" }) { created } }`,
      { id: g.id },
      other.token,
    );
    expect(viaGraphql.data.reportGrocery.created).toBe(true);
    expect((await sub.next()).data.reportFiled).toMatchObject({
      targetKind: "GROCERY",
      targetId: g.id,
      reasonType: "wrong",
    });
    await settle();
    expect(sub.results).toHaveLength(2);
  });

  it("refuses a user who is not an admin with FORBIDDEN", async () => {
    const sub = subscribe(connect(other.token), FILED);
    await within(sub.ended, "the end of the refused subscription");
    expect(sub.results[0].errors?.[0]).toMatchObject({ extensions: { code: "FORBIDDEN" } });
  });
});

describe("shoppingListChanged", () => {
  const LIST = `subscription { shoppingListChanged { changedAt shoppingList { totalCount nodes { grocery { id } quantity } } } }`;

  it("follows the caller's own list (adds, raises, removals; REST and GraphQL), not other users'", async () => {
    const g = await newGrocery();
    const phone = await follow(connect(other.token), LIST);
    const laptop = await follow(connect(other.token), LIST);

    // Another user's list: nothing arrives here.
    expect((await rest("PUT", `/groceries/${g.id}`, owner.token, { quantity: 1 })).status).toBe(201);
    expect((await rest("PUT", `/groceries/${g.id}`, other.token, { quantity: 2 })).status).toBe(201);
    for (const device of [phone, laptop]) {
      const event = (await device.next()).data.shoppingListChanged;
      expect(event.shoppingList).toEqual({ totalCount: 1, nodes: [{ grocery: { id: g.id }, quantity: 2 }] });
      expect(Number.isNaN(Date.parse(event.changedAt))).toBe(false);
    }
    const raised = await s.graphql(
      `mutation($id: ID!) { addToShoppingList(groceryId: $id, quantity: 3) { quantity } }`,
      { id: g.id },
      other.token,
    );
    expect(raised.data.addToShoppingList.quantity).toBe(5);
    expect((await phone.next()).data.shoppingListChanged.shoppingList.nodes[0].quantity).toBe(5);

    const removed = await s.graphql(
      `mutation($id: ID!) { removeFromShoppingList(groceryId: $id) }`,
      { id: g.id },
      other.token,
    );
    expect(removed.data.removeFromShoppingList).toBe(true);
    expect((await phone.next()).data.shoppingListChanged.shoppingList.totalCount).toBe(0);
    // Removing what is not on the list changes nothing and publishes nothing.
    expect((await rest("DELETE", `/groceries/${g.id}?from=shopping_list`, other.token)).status).toBe(204);

    // The grocery leaving the catalogue takes it off every list that held it.
    expect((await rest("PUT", `/groceries/${g.id}`, other.token, {})).status).toBe(201);
    expect((await phone.next()).data.shoppingListChanged.shoppingList.totalCount).toBe(1);
    expect((await rest("DELETE", `/groceries/${g.id}?from=catalogue`, owner.token)).status).toBe(204);
    expect((await phone.next()).data.shoppingListChanged.shoppingList.totalCount).toBe(0);
    await settle();
    expect(phone.results).toHaveLength(5);
  });
});

describe("the connection", () => {
  it("takes the token as authorization, Authorization or token in connection_init", async () => {
    const r = await newRestaurant();
    const subs = [];
    for (const params of [
      { authorization: `Bearer ${other.token}` },
      { Authorization: `Bearer ${other.token}` },
      { token: other.token },
    ]) {
      subs.push(await follow(connect(undefined, params), COMMENT_ADDED, { id: r.id }));
    }
    expect(
      (await rest("PUT", `/restaurants/${r.id}/comments`, owner.token, { title: "all", body: "b", rating: 3 })).status,
    ).toBe(201);
    for (const sub of subs) expect((await sub.next()).data.commentAdded.title).toBe("all");
  });

  it("closes a connection whose token is invalid with 4403", async () => {
    const client = connect(undefined, { authorization: "Bearer made-up" });
    const sub = subscribe(client, COMMENT_ADDED, { id: "x" });
    const outcome = (await within(sub.ended, "the refusal")) as { code: number; reason: string };
    expect(outcome.code).toBe(4403);
    expect(outcome.reason).toMatch(/invalid, expired or revoked/);
  });

  it("takes the token from a headers object in connection_init, or from a subscribe's extensions.headers (GraphiQL's way)", async () => {
    const r = await newRestaurant();
    const nested = await follow(
      connect(undefined, { headers: { Authorization: `Bearer ${other.token}` } }),
      COMMENT_ADDED,
      { id: r.id },
    );
    // GraphiQL sends an empty connection_init and the Headers pane with each subscribe.
    const before = bus.listening;
    const graphiqlWay = subscribe(
      connect(undefined, {}),
      COMMENT_ADDED,
      { id: r.id },
      { headers: { Authorization: `Bearer ${other.token}` } },
    );
    await bus.untilListening(before + 1);
    expect(
      (await rest("PUT", `/restaurants/${r.id}/comments`, owner.token, { title: "headers", body: "b", rating: 2 }))
        .status,
    ).toBe(201);
    expect((await nested.next()).data.commentAdded.title).toBe("headers");
    expect((await graphiqlWay.next()).data.commentAdded.title).toBe("headers");
  });

  it("refuses a bad token in extensions.headers with UNAUTHENTICATED, and another token than the connection's with BAD_USER_INPUT", async () => {
    const r = await newRestaurant();
    const codes = async (sub: ReturnType<typeof subscribe>) =>
      ((await within(sub.ended, "the refusal")) as { extensions?: { code?: string } }[]).map((e) => e.extensions?.code);
    const madeUp = subscribe(
      connect(undefined, {}),
      COMMENT_ADDED,
      { id: r.id },
      { headers: { authorization: "Bearer made-up" } },
    );
    expect(await codes(madeUp)).toEqual(["UNAUTHENTICATED"]);
    const mixed = subscribe(
      connect(owner.token),
      COMMENT_ADDED,
      { id: r.id },
      { headers: { Authorization: `Bearer ${other.token}` } },
    );
    expect(await codes(mixed)).toEqual(["BAD_USER_INPUT"]);
  });

  it("leaves POST and GET /graphql over HTTP as they were", async () => {
    const post = await s.graphql(`{ me { id } }`, {}, owner.token);
    expect(post.data.me.id).toBe(owner.id);
    const get = await s.fetch(`/graphql?query=${encodeURIComponent("{ me { id } }")}`, {
      token: owner.token,
      headers: { "apollo-require-preflight": "true" },
    });
    expect(get.status).toBe(200);
    expect((await get.json()).data.me.id).toBe(owner.id);
  });
});

/** A trigger that makes the INSERT of a comment with this title fail, inside its transaction. */
async function failInsertsOfCommentsTitled(title: string) {
  if (testProvider() === "sqlite") {
    await s.db.prisma.$executeRawUnsafe(
      `CREATE TRIGGER IF NOT EXISTS fail_comment BEFORE INSERT ON "Comment" WHEN NEW.title = '${title}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
  } else {
    await s.db.prisma.$executeRawUnsafe(
      `CREATE OR REPLACE FUNCTION fail_comment() RETURNS trigger AS $$ BEGIN IF NEW.title = '${title}' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
    );
    await s.db.prisma.$executeRawUnsafe(`DROP TRIGGER IF EXISTS fail_comment ON "Comment"`);
    await s.db.prisma.$executeRawUnsafe(
      `CREATE TRIGGER fail_comment BEFORE INSERT ON "Comment" FOR EACH ROW EXECUTE FUNCTION fail_comment()`,
    );
  }
}
