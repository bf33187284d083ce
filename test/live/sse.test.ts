// GraphQL subscriptions over Server-Sent Events (graphql-sse's own client, distinct connections)
// through the real server: the same events, checks and limits as over WebSocket, with the token
// in the Authorization header.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type Client, type ExecutionResult } from "graphql-sse";
import { startServer, type TestServer } from "../helpers/server.ts";
import { CountingBus, eventually, liveClient, rawStream, subscribe as subscribeWs, within } from "../helpers/live.ts";

let s: TestServer;
let bus: CountingBus;
let owner: { token: string; id: string };
const clients: Client[] = [];

beforeAll(async () => {
  bus = new CountingBus();
  s = await startServer({ SESSION_CACHE_TTL: "200ms", WS_MAX_SUBSCRIPTIONS_PER_TOKEN: "2" }, { events: bus });
  owner = await s.signUp("sseowner");
});
afterAll(async () => {
  clients.forEach((c) => c.dispose());
  await s?.close();
});

const streamUrl = () => `${s.url}/graphql/stream`;

function sseClient(token?: string): Client {
  const client = createClient({
    url: streamUrl(),
    singleConnection: false,
    retryAttempts: 0,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  clients.push(client);
  return client;
}

/** A subscription's results as they come, and how it ended. */
function follow(client: Client, query: string, variables?: Record<string, unknown>) {
  const results: ExecutionResult<any>[] = [];
  let wake = () => {};
  const ended = new Promise<unknown>((resolve) =>
    client.subscribe(
      { query, variables },
      {
        next: (r) => {
          results.push(r as ExecutionResult<any>);
          wake();
        },
        error: (e) => resolve(e),
        complete: () => resolve("complete"),
      },
    ),
  );
  const nth = async (n: number) => {
    while (results.length < n) await new Promise<void>((r) => (wake = r));
    return results[n - 1];
  };
  return { results, ended, nth };
}

let seq = 0;
async function newRestaurant() {
  const title = `Stream ${++seq}`;
  return s.db.prisma.restaurant.create({ data: { title, titleSearch: title.toLowerCase(), ownerId: owner.id } });
}

const COMMENT_ADDED = `subscription($id: ID!) { commentAdded(restaurantId: $id) { title author { id } } }`;

describe("subscriptions over Server-Sent Events", () => {
  it("receive a comment written through REST", async () => {
    const r = await newRestaurant();
    const before = bus.listening;
    const sub = follow(sseClient(owner.token), COMMENT_ADDED, { id: r.id });
    await bus.untilListening(before + 1);
    const res = await s.fetch(`/restaurants/${r.id}/comments`, {
      method: "PUT",
      token: owner.token,
      json: { title: "Streamed", body: "b", rating: 5 },
    });
    expect(res.status).toBeLessThan(300);
    const first = await within(sub.nth(1), "the event");
    expect(first).toEqual({ data: { commentAdded: { title: "Streamed", author: { id: owner.id } } } });
  });

  it("refuse an invalid token with 401, the same words as every face", async () => {
    const res = await fetch(streamUrl(), {
      method: "POST",
      headers: {
        accept: "text/event-stream",
        "content-type": "application/json",
        authorization: `Bearer ${"x".repeat(43)}`,
      },
      body: JSON.stringify({ query: COMMENT_ADDED, variables: { id: "x" } }),
    });
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.errors[0].extensions.code).toBe("UNAUTHENTICATED");
    expect(body.errors[0].message).toMatch(/invalid, expired or revoked/);
  });

  it("refuse a subscription without a token through the field's own @requireAuth", async () => {
    const r = await newRestaurant();
    const sub = follow(sseClient(), COMMENT_ADDED, { id: r.id });
    const ended = await within(sub.ended, "the refusal");
    const errors = (sub.results[0]?.errors ?? (ended as any)) as any;
    expect(JSON.stringify(errors)).toMatch(/UNAUTHENTICATED|access token is required/);
  });

  it("refuse queries, over-cost and invalid documents with 400, before any stream", async () => {
    const post = (query: string, variables?: unknown) =>
      fetch(streamUrl(), {
        method: "POST",
        headers: {
          accept: "text/event-stream",
          "content-type": "application/json",
          authorization: `Bearer ${owner.token}`,
        },
        body: JSON.stringify({ query, variables }),
      });
    const query = await post(`{ me { id } }`);
    expect(query.status).toBe(400);
    expect((await query.json()).errors[0].message).toMatch(/Only subscriptions run over Server-Sent Events/);
    const unknown = await post(`subscription { nothing }`);
    expect(unknown.status).toBe(400);
    const deep = `subscription { shoppingListChanged { shoppingList(first: 100) { nodes { grocery { owner { restaurants(first: 100) { nodes { comments(first: 100) { nodes { id } } } } } } } } } }`;
    const costly = await post(deep);
    expect(costly.status).toBe(400);
  });

  it("count against the same per-token quota as WebSocket subscriptions", async () => {
    const user = await s.signUp("ssequota");
    const before = bus.listening;
    const ws = liveClient(s, { authorization: `Bearer ${user.token}` });
    subscribeWs(ws, `subscription { shoppingListChanged { changedAt } }`);
    follow(sseClient(user.token), `subscription { shoppingListChanged { changedAt } }`);
    await bus.untilListening(before + 2);
    const third = await fetch(streamUrl(), {
      method: "POST",
      headers: {
        accept: "text/event-stream",
        "content-type": "application/json",
        authorization: `Bearer ${user.token}`,
      },
      body: JSON.stringify({ query: `subscription { shoppingListChanged { changedAt } }` }),
    });
    expect(third.status).toBe(429);
    expect((await third.json()).errors[0].extensions.code).toBe("RATE_LIMITED");
    await ws.dispose();
  });

  it("end when the token is revoked, within SESSION_CACHE_TTL", async () => {
    const user = await s.signUp("ssegone");
    const before = bus.listening;
    const sub = follow(sseClient(user.token), `subscription { shoppingListChanged { changedAt } }`);
    await bus.untilListening(before + 1);
    expect((await s.fetch("/auth/token", { method: "DELETE", token: user.token })).status).toBe(204);
    await within(sub.ended, "the end of the revoked token's stream", 3000);
    await bus.untilListening(before);
  });
});

describe("shutdown", () => {
  it("ends open streams so the server can close (clients reconnect elsewhere)", async () => {
    const local = new CountingBus();
    const t = await startServer({}, { events: local });
    try {
      const user = await t.signUp("ssebye");
      const client = createClient({
        url: `${t.url}/graphql/stream`,
        singleConnection: false,
        retryAttempts: 0,
        headers: { authorization: `Bearer ${user.token}` },
      });
      clients.push(client);
      const before = local.listening;
      const sub = follow(client, `subscription { shoppingListChanged { changedAt } }`);
      await local.untilListening(before + 1);
      await within(t.app.close(), "the server's close", 5000);
      await within(sub.ended, "the stream's end", 5000);
    } finally {
      await t.close();
    }
  });
});

describe("keep-alive comments (SSE_KEEPALIVE)", () => {
  it("writes a comment line to a quiet stream every SSE_KEEPALIVE", async () => {
    const t = await startServer({ SSE_KEEPALIVE: "200ms" });
    try {
      const user = await t.signUp("quiet");
      const response = await rawStream(t, user.token, { query: "subscription { shoppingListChanged { changedAt } }" });
      expect(response.statusCode).toBe(200);
      let text = "";
      response.on("data", (chunk) => (text += String(chunk)));
      // The first comment is written at once; three more only come from the interval (12 s by default).
      await eventually(async () => text.split(":\n\n").length - 1 >= 4, "four comment lines");
      expect(text).not.toContain("event:");
      response.destroy();
    } finally {
      await t.close();
    }
  });
});
