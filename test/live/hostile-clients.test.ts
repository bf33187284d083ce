// Live updates against one client that does not play by the rules (issue 29), through the real
// server: floods before connection_init, peers that never read (WebSocket and Server-Sent
// Events), ids reused in a burst, documents whose validation is the attack, many subscribers of
// one heavy selection, sockets that hold slots without subscribing, and events forged on the
// bus. Each case failed on 102ee29. Every wait is bounded; no timing is asserted (the figures
// are in `npm run bench:live-attacks`).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { loadConfig } from "../../src/config.ts";
import { insertComments } from "../helpers/comment-totals.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import {
  CountingBus,
  liveClient,
  metricValue,
  rawSocket,
  rawStream,
  settle,
  subscribe,
  within,
  wsUrl,
  type LiveClient,
} from "../helpers/live.ts";

/** The messages a socket may send at once by default (WS_MESSAGE_BURST). */
const MESSAGE_BURST = loadConfig({}).live.messageBurst;

const clients: LiveClient[] = [];
const sockets: WebSocket[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  sockets.forEach((socket) => socket.terminate());
});

/** A raw graphql-transport-ws socket, acknowledged with `payload` (a token or nothing); its messages in `received`. */
async function acknowledged(s: TestServer, payload: Record<string, unknown> = {}) {
  const raw = rawSocket(s);
  sockets.push(raw.socket);
  const received: any[] = [];
  raw.socket.on("message", (data) => received.push(JSON.parse(String(data))));
  await raw.opened;
  raw.socket.send(JSON.stringify({ type: "connection_init", payload }));
  await eventually(() => received.some((m) => m.type === "connection_ack"), "connection_ack");
  return { ...raw, received };
}

async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 10_000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const HEAVY = `subscription($id: ID!) { commentAdded(restaurantId: $id) { restaurant { comments(first: 100) { nodes { body } } } } }`;

/** A restaurant holding `n` comments of 10,000 characters: each commentAdded event of HEAVY is ~n x 10 KB. */
async function heavyRestaurant(s: TestServer, ownerId: string, n: number) {
  const restaurant = await s.db.prisma.restaurant.create({ data: { title: "Heavy", titleSearch: "heavy", ownerId } });
  await insertComments(
    s.db,
    Array.from({ length: n }, (_, i) => ({
      restaurantId: restaurant.id,
      authorId: ownerId,
      title: `c${i}`,
      body: "x".repeat(10_000),
      rating: 5,
    })),
  );
  return restaurant.id;
}

const comment = (s: TestServer, token: string, restaurantId: string, title = "new") =>
  s.graphql(
    `mutation($id: ID!, $t: String!) { addComment(restaurantId: $id, input: { title: $t, body: "b", rating: 4 }) { id } }`,
    { id: restaurantId, t: title },
    token,
  );

describe("one WebSocket that floods or stops reading", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ LIVE_MAX_BUFFERED_BYTES: String(64 * 1024), LIVE_STALL_TIMEOUT: "1s" });
  });
  afterAll(() => s?.close());

  it("is closed (1008) once its messages exceed the budget, pings before connection_init included, and never gets more pongs than that", async () => {
    const { socket, opened, closed } = rawSocket(s);
    sockets.push(socket);
    let pongs = 0;
    socket.on("message", (data) => void (JSON.parse(String(data)).type === "pong" && pongs++));
    await opened;
    for (let i = 0; i < 5 * MESSAGE_BURST; i++) socket.send(JSON.stringify({ type: "ping" }));
    const close = await within(closed, "the close");
    expect(close.code).toBe(1008);
    expect(close.reason).toMatch(/Too many messages/);
    expect(pongs).toBeLessThanOrEqual(MESSAGE_BURST);
  });

  it("is dropped once it takes nothing for LIVE_STALL_TIMEOUT while answers wait past LIVE_MAX_BUFFERED_BYTES, and leaves nothing behind", async () => {
    const owner = await s.signUp("heavy");
    const restaurantId = await heavyRestaurant(s, owner.id, 100);
    const peer = await acknowledged(s, { token: owner.token });
    peer.socket.send(
      JSON.stringify({ id: "1", type: "subscribe", payload: { query: HEAVY, variables: { id: restaurantId } } }),
    );
    await eventually(async () => (await metricValue(s, "graphql_subscriptions_active")) === 1, "the subscription runs");
    // Stop reading: from here on, what the server sends piles up on its side (after the kernel's buffers).
    (peer.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const writer = await s.signUp("writer");
    // Each event is ~1 MB of comment bodies: once the kernel's buffers and LIVE_MAX_BUFFERED_BYTES are
    // full, answers wait; nothing taken for LIVE_STALL_TIMEOUT drops the peer.
    let written = 0;
    await eventually(
      async () => {
        await comment(s, writer.token, restaurantId, `c${++written}`);
        return (await metricValue(s, "live_clients_dropped_total", { reason: "not reading" })) === 1;
      },
      "the peer is dropped",
      30_000,
    );
    await eventually(async () => (await metricValue(s, "websocket_connections")) === 0, "the socket is gone");
    expect(await metricValue(s, "graphql_subscriptions_active")).toBe(0);
  });
});

describe("one WebSocket that reads slower than a burst arrives", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ LIVE_MAX_BUFFERED_BYTES: String(64 * 1024), LIVE_STALL_TIMEOUT: "5s" });
  });
  afterAll(() => s?.close());

  it("gets every answer at its own pace: answers wait for room instead of the peer being dropped", async () => {
    const owner = await s.signUp("slow");
    const restaurantId = await heavyRestaurant(s, owner.id, 100);
    const peer = await acknowledged(s, { token: owner.token });
    for (const id of ["1", "2", "3"])
      peer.socket.send(
        JSON.stringify({ id, type: "subscribe", payload: { query: HEAVY, variables: { id: restaurantId } } }),
      );
    await eventually(async () => (await metricValue(s, "graphql_subscriptions_active")) === 3, "the subscriptions run");
    const tcp = (peer.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    tcp.pause();
    const writer = await s.signUp("burst");
    for (let i = 0; i < 5; i++) await comment(s, writer.token, restaurantId, `burst${i}`); // 15 answers of ~1 MB
    await settle(1000); // well past LIVE_MAX_BUFFERED_BYTES, within LIVE_STALL_TIMEOUT
    tcp.resume();
    await eventually(() => peer.received.filter((m) => m.type === "next").length === 15, "all 15 answers", 20_000);
    expect(await metricValue(s, "live_clients_dropped_total", { reason: "not reading" })).toBe(0);
    expect(peer.socket.readyState).toBe(WebSocket.OPEN);
  });
});

describe("one event stream that stops reading", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ LIVE_MAX_BUFFERED_BYTES: String(64 * 1024), LIVE_STALL_TIMEOUT: "1s" });
  });
  afterAll(() => s?.close());

  it("is cut off once it takes nothing for LIVE_STALL_TIMEOUT while answers wait past LIVE_MAX_BUFFERED_BYTES, and leaves nothing behind", async () => {
    const owner = await s.signUp("sse");
    const restaurantId = await heavyRestaurant(s, owner.id, 100);
    const response = await rawStream(s, owner.token, { query: HEAVY, variables: { id: restaurantId } });
    expect(response.statusCode).toBe(200);
    response.socket.on("error", () => {});
    response.pause();
    response.socket.pause();
    await eventually(async () => (await metricValue(s, "graphql_subscriptions_active")) === 1, "the subscription runs");
    const writer = await s.signUp("writer");
    let written = 0;
    await eventually(
      async () => {
        await comment(s, writer.token, restaurantId, `c${++written}`);
        return (await metricValue(s, "live_clients_dropped_total", { reason: "not reading" })) === 1;
      },
      "the stream is cut off",
      30_000,
    );
    await eventually(async () => (await metricValue(s, "graphql_event_streams")) === 0, "the stream is gone");
    expect(await metricValue(s, "graphql_subscriptions_active")).toBe(0);
    response.socket.destroy();
  });
});

describe("shutdown with a stream whose peer does not read", () => {
  it("completes: the stream is ended, then cut off, instead of waiting for the peer", async () => {
    const t = await startServer({ LIVE_MAX_BUFFERED_BYTES: String(8 * 1024 * 1024) });
    try {
      const owner = await t.signUp("bye");
      const restaurantId = await heavyRestaurant(t, owner.id, 50);
      const response = await rawStream(t, owner.token, { query: HEAVY, variables: { id: restaurantId } });
      response.socket.on("error", () => {});
      response.pause();
      response.socket.pause();
      await eventually(
        async () => (await metricValue(t, "graphql_subscriptions_active")) === 1,
        "the subscription runs",
      );
      // Enough unread answers that the end of the stream cannot reach the peer.
      for (let i = 0; i < 10; i++) await comment(t, owner.token, restaurantId, `c${i}`);
      await within(t.app.close(), "the server's close", 15_000);
      response.socket.destroy();
    } finally {
      await t.close();
    }
  });
});

describe("ids reused in one burst", () => {
  let s: TestServer;
  let bus: CountingBus;
  beforeAll(async () => {
    bus = new CountingBus();
    s = await startServer({ LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: "5" }, { events: bus });
  });
  afterAll(() => s?.close());

  it("make one subscription per id, and none is left running once the socket is gone", async () => {
    const owner = await s.signUp("burst");
    const restaurant = await s.db.prisma.restaurant.create({
      data: { title: "Burst", titleSearch: "burst", ownerId: owner.id },
    });
    const query = `subscription($id: ID!) { commentAdded(restaurantId: $id) { title } }`;
    const peer = await acknowledged(s, { token: owner.token });
    const idle = bus.listening; // the server's own listeners (session cache, token watch)
    const ids = ["a", "b", "c", "d", "e"];
    for (const id of ids) {
      const subscribeMessage = JSON.stringify({
        id,
        type: "subscribe",
        payload: { query, variables: { id: restaurant.id } },
      });
      peer.socket.send(subscribeMessage);
      peer.socket.send(JSON.stringify({ id, type: "complete" }));
      peer.socket.send(subscribeMessage);
    }
    await bus.untilListening(idle + ids.length);
    await settle();
    expect(bus.listening - idle).toBe(ids.length);
    await comment(s, owner.token, restaurant.id, "once");
    await eventually(() => peer.received.filter((m) => m.type === "next").length >= ids.length, "one event per id");
    await settle();
    const perId = ids.map((id) => peer.received.filter((m) => m.type === "next" && m.id === id).length);
    expect(perId).toEqual([1, 1, 1, 1, 1]);
    // Every id completed, the socket closed: nothing may keep listening, executing, or holding quota.
    for (const id of ids) peer.socket.send(JSON.stringify({ id, type: "complete" }));
    peer.socket.close();
    await within(peer.closed, "the close");
    await eventually(() => bus.listening === idle, "no listener left");
    await eventually(async () => (await metricValue(s, "graphql_subscriptions_active")) === 0, "no subscription left");
    const executions = await metricValue(s, "graphql_subscription_executions_total");
    await comment(s, owner.token, restaurant.id, "after");
    await settle();
    expect(await metricValue(s, "graphql_subscription_executions_total")).toBe(executions);
    // The account's 5 slots are free again.
    const again = liveClient(s, { authorization: `Bearer ${owner.token}` });
    clients.push(again);
    for (let i = 0; i < 5; i++) subscribe(again, query, { id: restaurant.id });
    await bus.untilListening(idle + 5);
  });
});

describe("documents whose validation is the attack", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ RATE_LIMIT_MAX: "5" });
  });
  afterAll(() => s?.close());

  const REPEATED = `subscription { reportFiled { ${"reporter { id } ".repeat(700)} } }`;

  it("are charged before they are parsed (anonymous subscribe messages run out of the rate limit) and refused before the quadratic check", async () => {
    const peer = await acknowledged(s);
    for (let i = 0; i < 10; i++)
      peer.socket.send(JSON.stringify({ id: String(i), type: "subscribe", payload: { query: REPEATED } }));
    await eventually(() => peer.received.filter((m) => m.type === "error").length === 10, "ten answers");
    const codes = peer.received.filter((m) => m.type === "error").map((m) => m.payload[0].extensions.code);
    // The upgrade request took one of the address's 5; four documents were refused for what they are, the rest for the rate.
    expect(codes).toEqual([...Array(4).fill("BAD_USER_INPUT"), ...Array(6).fill("RATE_LIMITED")]);
    expect(peer.received.find((m) => m.type === "error").payload[0].message).toMatch(
      /"reporter" appears 700 times in one selection/,
    );
  });

  it("over HTTP too: 400 naming the repeated field, not a validation that runs for the attacker", async () => {
    const t = await startServer();
    try {
      const user = await t.signUp("repeat");
      const res = await t.graphql(`{ me { ${"id ".repeat(500)} } }`, {}, user.token);
      expect(res.status).toBe(400);
      expect(res.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/"id" appears 500 times/),
        extensions: { code: "BAD_USER_INPUT" },
      });
    } finally {
      await t.close();
    }
  });
});

describe("many subscribers of one heavy selection", () => {
  let s: TestServer;
  let bus: CountingBus;
  beforeAll(async () => {
    bus = new CountingBus();
    s = await startServer({ LIVE_MAX_COST_PER_CLIENT: "1000" }, { events: bus });
  });
  afterAll(() => s?.close());

  it("share one execution per event, and a client's subscriptions are bounded by their summed cost", async () => {
    const owner = await s.signUp("many");
    const restaurantId = await heavyRestaurant(s, owner.id, 5);
    const [a, b] = [
      liveClient(s, { authorization: `Bearer ${owner.token}` }),
      liveClient(s, { authorization: `Bearer ${owner.token}` }),
    ];
    clients.push(a, b);
    const idle = bus.listening; // the server's own listeners (session cache, token watch)
    // HEAVY costs 104 (1 + 1 + 1 + 100 x 1 + ...): 9 fit in 1,000, the 10th does not.
    const subs = Array.from({ length: 9 }, (_, i) => subscribe(i % 2 ? a : b, HEAVY, { id: restaurantId }));
    await bus.untilListening(idle + 9);
    const tenth = subscribe(a, HEAVY, { id: restaurantId });
    const refusal = (await within(tenth.ended, "the refusal")) as {
      extensions?: { code?: string };
      message?: string;
    }[];
    expect(refusal[0]).toMatchObject({
      extensions: { code: "RATE_LIMITED" },
      message: expect.stringMatching(/LIVE_MAX_COST_PER_CLIENT/),
    });
    const before = await metricValue(s, "graphql_subscription_executions_total");
    // Another account asks the same thing: its answer is its own (viewers never share).
    const someoneElse = await s.signUp("else");
    const c = liveClient(s, { authorization: `Bearer ${someoneElse.token}` });
    clients.push(c);
    const theirs = subscribe(c, HEAVY, { id: restaurantId });
    await bus.untilListening(idle + 10);
    await comment(s, owner.token, restaurantId);
    for (const sub of [...subs, theirs])
      expect((await sub.next()).data.commentAdded.restaurant.comments.nodes).toHaveLength(6);
    expect((await metricValue(s, "graphql_subscription_executions_total")) - before).toBe(2);
  });
});

describe("sockets that hold slots without subscribing", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ LIVE_IDLE_TIMEOUT: "500ms", LIVE_MAX_CONNECTIONS_PER_CLIENT: "3" });
  });
  afterAll(() => s?.close());

  it("are closed (1000) after LIVE_IDLE_TIMEOUT without a subscription", async () => {
    const peer = await acknowledged(s);
    expect((await within(peer.closed, "the idle close", 5000)).code).toBe(1000);
  });

  it("count against their address (429 on the upgrade past LIVE_MAX_CONNECTIONS_PER_CLIENT), and signed-in ones against their account", async () => {
    const open = await Promise.all([0, 1, 2].map(() => rawSocket(s)));
    open.forEach(({ socket }) => sockets.push(socket));
    await Promise.all(open.map(({ opened }) => opened));
    const refused = new WebSocket(wsUrl(s), "graphql-transport-ws");
    const status = await new Promise<number>((resolve) =>
      refused.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(429);
    open.forEach(({ socket }) => socket.close());
    await Promise.all(open.map(({ closed }) => closed));
    await eventually(async () => (await metricValue(s, "websocket_connections")) === 0, "the sockets are gone");
    // An account: three sockets (two logins) fit; the fourth is closed when connection_init names the account.
    const user = await s.signUp("slots");
    const tokens = [
      user.token,
      user.token,
      (
        await s.graphql(`mutation($u: String!) { login(username: $u, password: "correct-horse") { accessToken } }`, {
          u: user.username,
        })
      ).data.login.accessToken,
    ];
    const held = await Promise.all(tokens.map((token) => acknowledged(s, { token })));
    const fourth = rawSocket(s, { localAddress: "127.0.0.2" });
    sockets.push(fourth.socket);
    await fourth.opened;
    fourth.socket.send(JSON.stringify({ type: "connection_init", payload: { token: user.token } }));
    const close = await within(fourth.closed, "the fourth socket's close");
    expect(close).toMatchObject({ code: 1008, reason: expect.stringMatching(/LIVE_MAX_CONNECTIONS_PER_CLIENT/) });
    held.forEach(({ socket }) => socket.close());
  });

  it("behind TRUST_PROXY count against the forwarded client address", async () => {
    const t = await startServer({ TRUST_PROXY: "true", LIVE_MAX_CONNECTIONS_PER_CLIENT: "2" });
    try {
      const from = (address: string) => rawSocket(t, { headers: { "x-forwarded-for": address } });
      const a = [from("203.0.113.1"), from("203.0.113.1")];
      const b = from("203.0.113.2");
      [...a, b].forEach(({ socket }) => sockets.push(socket));
      await Promise.all([...a, b].map(({ opened }) => opened));
      const third = new WebSocket(wsUrl(t), "graphql-transport-ws", { headers: { "x-forwarded-for": "203.0.113.1" } });
      const status = await new Promise<number>((resolve) =>
        third.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0)),
      );
      expect(status).toBe(429);
      [...a, b].forEach(({ socket }) => socket.close());
    } finally {
      await t.close();
    }
  });
});

describe("events forged on the bus", () => {
  let s: TestServer;
  let bus: CountingBus;
  beforeAll(async () => {
    bus = new CountingBus();
    s = await startServer({}, { events: bus });
  });
  afterAll(() => s?.close());

  it("deliver nothing that is not the subscription's: an order (or comment) of another restaurant is skipped", async () => {
    const owner = await s.signUp("x");
    const rival = await s.signUp("y");
    const buyer = await s.signUp("buyer");
    const [x, y] = await Promise.all(
      [owner, rival].map((o, i) =>
        s.db.prisma.restaurant.create({ data: { title: `R${i}`, titleSearch: `r${i}`, ownerId: o.id } }),
      ),
    );
    const order = (restaurantId: string, recipe: string) =>
      s.graphql(
        `mutation($id: ID!, $r: String!) { orderRecipe(input: { restaurantId: $id, recipe: $r }) { id } }`,
        { id: restaurantId, r: recipe },
        buyer.token,
      );
    const client = liveClient(s, { authorization: `Bearer ${owner.token}` });
    clients.push(client);
    const idle = bus.listening;
    const orders = subscribe(client, `subscription($id: ID!) { orderPlaced(restaurantId: $id) { id recipe } }`, {
      id: x.id,
    });
    const comments = subscribe(client, `subscription($id: ID!) { commentAdded(restaurantId: $id) { title } }`, {
      id: x.id,
    });
    await bus.untilListening(idle + 2);
    const theirs = (await order(y.id, "secret")).data.orderRecipe.id;
    const theirComment = (await comment(s, buyer.token, y.id, "theirs")).data.addComment.id;
    s.events.publish({ topic: "orderPlaced", restaurantId: x.id, orderId: theirs });
    s.events.publish({ topic: "commentAdded", restaurantId: x.id, commentId: theirComment });
    await settle();
    const mine = (await order(x.id, "mine")).data.orderRecipe.id;
    await comment(s, buyer.token, x.id, "mine");
    expect((await orders.next()).data.orderPlaced).toEqual({ id: mine, recipe: "mine" });
    expect((await comments.next()).data.commentAdded).toEqual({ title: "mine" });
    expect(orders.results).toHaveLength(1);
    expect(comments.results).toHaveLength(1);
  });
});
