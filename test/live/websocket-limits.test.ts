// The WebSocket transport's limits and operations through the real server: subscriptions per
// connection and per token, the same validation and cost limits as HTTP, the connection_init
// timeout, the largest message, keep-alive pings, the token re-checked while connected, the rate
// limit on subscribe, connection bounds counting WebSockets, metrics, and shutdown with 1001.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { revokeAllTokens } from "../../src/domain/accounts/tokens.ts";
import { InProcessBus } from "../../src/events/bus.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import {
  CountingBus,
  eventually,
  liveClient,
  rawSocket,
  subscribe,
  within,
  wsUrl,
  type LiveClient,
} from "../helpers/live.ts";

const LIST = `subscription { shoppingListChanged { changedAt } }`;

const codeOf = async (sub: ReturnType<typeof subscribe>) => {
  const outcome = await within(sub.ended, "the refusal");
  const errors = Array.isArray(outcome) ? outcome : sub.results[0]?.errors;
  return { code: errors?.[0]?.extensions?.code, message: String(errors?.[0]?.message) };
};

describe("the message budget of a socket (WS_MESSAGE_BURST, WS_MESSAGES_PER_SECOND)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ WS_MESSAGE_BURST: "5", WS_MESSAGES_PER_SECOND: "1" });
  });
  afterAll(() => s?.close());

  /** A socket that sends `count` pings at once: the pongs it got and how it was closed (if it was). */
  async function pings(count: number) {
    const { socket, opened, closed } = rawSocket(s);
    let pongs = 0;
    socket.on("message", (data) => void (JSON.parse(String(data)).type === "pong" && pongs++));
    await opened;
    for (let i = 0; i < count; i++) socket.send(JSON.stringify({ type: "ping" }));
    return { socket, closed, pongs: () => pongs };
  }

  it("answers as many messages at once as the burst allows", async () => {
    const { socket, closed, pongs } = await pings(5);
    await eventually(async () => pongs() === 5, "five pongs");
    socket.close();
    expect((await within(closed, "the close")).code).not.toBe(1008);
  });

  it("closes (1008) a socket that sends more at once, naming the rate, with no pong past the burst", async () => {
    const { closed, pongs } = await pings(10);
    const close = await within(closed, "the close");
    expect(close).toEqual({ code: 1008, reason: "Too many messages (more than 1 a second)." });
    expect(pongs()).toBeLessThanOrEqual(5);
  });
});

describe("limits on one server", () => {
  let s: TestServer;
  let bus: CountingBus;
  const clients: LiveClient[] = [];
  const connect = (token: string) => {
    const client = liveClient(s, { authorization: `Bearer ${token}` });
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    bus = new CountingBus();
    s = await startServer(
      {
        WS_MAX_SUBSCRIPTIONS_PER_CONNECTION: "2",
        WS_MAX_SUBSCRIPTIONS_PER_TOKEN: "3", // the setting's former name, still read (LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT)
        WS_CONNECTION_INIT_TIMEOUT: "300ms",
        WS_MAX_MESSAGE_BYTES: "1024",
        WS_KEEPALIVE: "300ms",
        SESSION_CACHE_TTL: "1s",
        GRAPHQL_MAX_DEPTH: "4",
        GRAPHQL_MAX_COST: "100",
      },
      { events: bus },
    );
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await s?.close();
  });

  it("refuses a subscription over WS_MAX_SUBSCRIPTIONS_PER_CONNECTION with RATE_LIMITED, and admits one once another completed", async () => {
    const user = await s.signUp("conn");
    const client = connect(user.token);
    const first = subscribe(client, LIST);
    subscribe(client, LIST);
    await bus.untilListening(bus.listening + 0); // both are being set up
    const third = subscribe(client, LIST);
    expect(await codeOf(third)).toEqual({
      code: "RATE_LIMITED",
      message: expect.stringMatching(
        /At most 2 subscriptions .* one connection \(WS_MAX_SUBSCRIPTIONS_PER_CONNECTION\)/,
      ),
    });
    first.stop();
    const again = subscribe(client, LIST);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(again.results).toEqual([]);
    await expect(Promise.race([again.ended, new Promise((r) => setTimeout(() => r("running"), 200))])).resolves.toBe(
      "running",
    );
  });

  it("refuses a subscription over the per-client quota across connections, and across the account's logins", async () => {
    const user = await s.signUp("token");
    const [a, b] = [connect(user.token), connect(user.token)];
    const before = bus.listening;
    subscribe(a, LIST);
    subscribe(a, LIST);
    subscribe(b, LIST);
    await bus.untilListening(before + 3);
    expect(await codeOf(subscribe(b, LIST))).toEqual({
      code: "RATE_LIMITED",
      message: expect.stringMatching(/LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT/),
    });
    // A new login is a new token of the same account: the same quota.
    const login = await s.graphql(
      `mutation($u: String!) { login(username: $u, password: "correct-horse") { accessToken } }`,
      { u: user.username },
    );
    const again = connect(login.data.login.accessToken);
    expect(await codeOf(subscribe(again, LIST))).toEqual({
      code: "RATE_LIMITED",
      message: expect.stringMatching(/LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT/),
    });
    // Another token is not held back.
    const someoneElse = await s.signUp("else");
    const before2 = bus.listening;
    subscribe(connect(someoneElse.token), LIST);
    await bus.untilListening(before2 + 1);
  });

  it("applies the HTTP limits (depth, cost) and runs subscriptions only", async () => {
    const user = await s.signUp("valid");
    const client = connect(user.token);
    const query = await codeOf(subscribe(client, `{ me { id } }`));
    expect(query).toEqual({
      code: "BAD_USER_INPUT",
      message: expect.stringMatching(/Only subscriptions run over WebSocket; send queries with POST \/graphql/),
    });
    const deep = `subscription { commentAdded(restaurantId: "x") { restaurant { latestComment { restaurant { owner { id } } } } } }`;
    expect((await codeOf(subscribe(client, deep))).code).toBe("BAD_USER_INPUT");
    const costly = await codeOf(
      subscribe(client, `subscription { shoppingListChanged { shoppingList(first: 100) { nodes { quantity } } } }`),
    );
    expect(costly).toEqual({
      code: "BAD_USER_INPUT",
      message: expect.stringMatching(/above the limit of 100 \(GRAPHQL_MAX_COST\)/),
    });
    const unparsable = await codeOf(subscribe(client, `subscription {`));
    expect(unparsable.code).toBe("BAD_USER_INPUT");
  });

  it("closes a socket that sends no connection_init within WS_CONNECTION_INIT_TIMEOUT with 4408", async () => {
    const { opened, closed } = rawSocket(s);
    await opened;
    expect((await within(closed, "the close")).code).toBe(4408);
  });

  it("closes a socket that sends a message over WS_MAX_MESSAGE_BYTES with 1009", async () => {
    const { socket, opened, closed } = rawSocket(s);
    await opened;
    socket.send(JSON.stringify({ type: "connection_init", payload: { padding: "x".repeat(2000) } }));
    expect((await within(closed, "the close")).code).toBe(1009);
  });

  it("pings every WS_KEEPALIVE and drops a peer that stops answering", async () => {
    const user = await s.signUp("ping");
    const answering = rawSocket(s);
    let pings = 0;
    answering.socket.on("ping", () => pings++);
    const silent = rawSocket(s, { autoPong: false });
    await Promise.all([answering.opened, silent.opened]);
    for (const { socket } of [answering, silent])
      socket.send(JSON.stringify({ type: "connection_init", payload: { token: user.token } }));
    expect((await within(silent.closed, "the silent peer being dropped", 5000)).code).toBe(1006);
    expect(pings).toBeGreaterThan(0);
    expect(answering.socket.readyState).toBe(WebSocket.OPEN);
    answering.socket.close();
  });

  it("ends the subscriptions of a token revoked elsewhere within SESSION_CACHE_TTL: close 4403", async () => {
    const user = await s.signUp("revoked");
    const client = connect(user.token);
    const before = bus.listening;
    const sub = subscribe(client, LIST);
    await bus.untilListening(before + 1);
    // As a process whose events never reach this one (the admin command line on SQLite): only the re-check can end it.
    await revokeAllTokens(s.db, user.id, new InProcessBus());
    const outcome = (await within(sub.ended, "the end of the revoked token's subscription", 5000)) as {
      code: number;
      reason: string;
    };
    expect(outcome.code).toBe(4403);
    expect(outcome.reason).toMatch(/revoked or has expired/);
    await bus.untilListening(before); // the server stopped listening for it
  });

  it("watches a token for every socket that shares it: one closing leaves the others watched, and a revocation ends them all", async () => {
    const user = await s.signUp("shared-token");
    const sockets = [connect(user.token), connect(user.token), connect(user.token)];
    const before = bus.listening;
    const subs = sockets.map((client) => subscribe(client, LIST));
    await bus.untilListening(before + 3);
    // The first socket of the token leaves: the token's one check must go on for the other two.
    await sockets[0]!.dispose();
    await bus.untilListening(before + 2);
    await revokeAllTokens(s.db, user.id, new InProcessBus()); // no event here: only the re-check can end them
    for (const sub of subs.slice(1)) {
      const outcome = (await within(sub.ended, "the end of a socket of the revoked token", 5000)) as { code: number };
      expect(outcome.code).toBe(4403);
    }
    await bus.untilListening(before);
  });

  it("ends the subscriptions of an account whose role changed (an admin demoted)", async () => {
    const boss = await s.signUp("boss", "ADMIN");
    const client = connect(boss.token);
    const before = bus.listening;
    const sub = subscribe(client, `subscription { reportFiled { id } }`);
    await bus.untilListening(before + 1);
    await s.db.prisma.user.update({ where: { id: boss.id }, data: { role: "USER" } });
    const outcome = (await within(sub.ended, "the end of the demoted admin's subscription", 5000)) as { code: number };
    expect(outcome.code).toBe(4403);
  });

  it("shows connections, subscriptions, deliveries and their lag in /metrics", async () => {
    const user = await s.signUp("metrics");
    const client = connect(user.token);
    const before = bus.listening;
    const sub = subscribe(client, LIST);
    await bus.untilListening(before + 1);
    const grocery = await s.db.prisma.grocery.create({
      data: { title: "Salt", titleSearch: "salt", ownerId: user.id },
    });
    expect((await s.fetch(`/groceries/${grocery.id}`, { method: "PUT", token: user.token, json: {} })).status).toBe(
      201,
    );
    await sub.next();
    const text = await (await s.fetch("/metrics")).text();
    expect(Number(/^websocket_connections (\d+)/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(Number(/^graphql_subscriptions_active (\d+)/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(text).toMatch(/^graphql_subscription_events_delivered_total\{topic="shoppingListChanged"\} 1$/m);
    expect(text).toMatch(/^graphql_subscription_delivery_lag_seconds_count\{topic="shoppingListChanged"\} 1$/m);
  });
});

describe("rate limit", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ RATE_LIMIT_MAX: "3" });
  });
  afterAll(async () => s?.close());

  it("counts each subscribe against the token's rate-limit buckets: RATE_LIMITED past RATE_LIMIT_MAX", async () => {
    const user = await s.signUp("rate");
    const client = liveClient(s, { authorization: `Bearer ${user.token}` });
    const codes = [];
    for (let i = 0; i < 4; i++) {
      const sub = subscribe(client, `subscription { commentAdded(restaurantId: "none") { id } }`);
      codes.push((await codeOf(sub)).code);
    }
    expect(codes).toEqual(["NOT_FOUND", "NOT_FOUND", "NOT_FOUND", "RATE_LIMITED"]);
    await client.dispose();
  });
});

describe("connection bounds", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ MAX_CONNECTIONS_PER_ADDRESS: "3" });
  });
  afterAll(async () => s?.close());

  it("counts WebSocket connections in MAX_CONNECTIONS_PER_ADDRESS: an upgrade over it gets 429", async () => {
    const sockets: WebSocket[] = [];
    const statuses: (number | "open")[] = [];
    for (let i = 0; i < 5; i++) {
      const socket = new WebSocket(wsUrl(s), "graphql-transport-ws");
      statuses.push(
        await new Promise<number | "open">((resolve) => {
          socket.once("open", () => resolve("open"));
          socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
          socket.once("error", () => resolve(0));
        }),
      );
      sockets.push(socket);
    }
    // No HTTP request was made to this server: the first 3 are the address's 3 connections.
    expect(statuses).toEqual(["open", "open", "open", 429, 429]);
    sockets.forEach((socket) => socket.terminate());
  });
});

describe("shutdown", () => {
  it("closes open sockets with 1001 when the server closes", async () => {
    const bus = new CountingBus();
    const s = await startServer({}, { events: bus });
    try {
      const user = await s.signUp("bye");
      const client = liveClient(s, { authorization: `Bearer ${user.token}` });
      const before = bus.listening; // the session cache listens too
      const sub = subscribe(client, LIST);
      await bus.untilListening(before + 1);
      await s.app.close();
      const outcome = (await within(sub.ended, "the close")) as { code: number; reason: string };
      expect(outcome.code).toBe(1001);
      expect(outcome.reason).toMatch(/shutting down/);
      expect(bus.listening).toBe(0); // the subscription and the session cache both stopped
    } finally {
      await s.close();
    }
  });
});
