// A logout or role change ends the caller's live subscriptions as soon as it is announced on the
// event bus, on either transport: with a 60 s session cache, only the event can end them within
// the second these tests allow (the timer's re-check would take 30 s).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "graphql-sse";
import { startServer, type TestServer } from "../helpers/server.ts";
import { CountingBus, liveClient, subscribe, within } from "../helpers/live.ts";
import { setRole } from "../../src/domain/accounts/users.ts";

let s: TestServer;
let bus: CountingBus;
const LIST = `subscription { shoppingListChanged { changedAt } }`;

beforeAll(async () => {
  bus = new CountingBus();
  s = await startServer({ SESSION_CACHE_TTL: "60s" }, { events: bus });
});
afterAll(async () => s?.close());

describe("subscriptions end at once when their token is revoked or the role changes", () => {
  it("WebSocket: a logout closes the socket with 4403 within a second", async () => {
    const user = await s.signUp("wsout");
    const client = liveClient(s, { authorization: `Bearer ${user.token}` });
    const before = bus.listening;
    const sub = subscribe(client, LIST);
    await bus.untilListening(before + 1);
    expect((await s.fetch("/auth/token", { method: "DELETE", token: user.token })).status).toBe(204);
    const outcome = (await within(sub.ended, "the socket's close", 1000)) as { code: number };
    expect(outcome.code).toBe(4403);
    await client.dispose();
  });

  it("WebSocket: a role change closes the socket with 4403 within a second", async () => {
    const user = await s.signUp("wsrole");
    const client = liveClient(s, { authorization: `Bearer ${user.token}` });
    const before = bus.listening;
    const sub = subscribe(client, LIST);
    await bus.untilListening(before + 1);
    await setRole(s.db, user.username, "ADMIN", bus);
    const outcome = (await within(sub.ended, "the socket's close", 1000)) as { code: number; reason: string };
    expect(outcome.code).toBe(4403);
    expect(outcome.reason).toMatch(/role changed/);
    await client.dispose();
  });

  it("Server-Sent Events: a logout ends the stream within a second", async () => {
    const user = await s.signUp("sseout");
    const client = createClient({
      url: `${s.url}/graphql/stream`,
      singleConnection: false,
      retryAttempts: 0,
      headers: { authorization: `Bearer ${user.token}` },
    });
    const before = bus.listening;
    const ended = new Promise((resolve) =>
      client.subscribe({ query: LIST }, { next: () => {}, error: resolve, complete: () => resolve("complete") }),
    );
    await bus.untilListening(before + 1);
    expect((await s.fetch("/auth/token", { method: "DELETE", token: user.token })).status).toBe(204);
    await within(ended, "the stream's end", 1000);
    client.dispose();
  });
});
