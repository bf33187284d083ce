// A burst past the rate limit: 100 anonymous requests at a time from one address (the default
// MAX_CONNECTIONS_PER_ADDRESS), each a small, complete POST, 2,000 in all. Every one must get an
// answer a client can read (429 with Retry-After once the limit refuses), never a reset socket,
// and a refusal must not cost the client its connection.
//
// Before, a 429 sent before the request's body had been parsed closed the connection (body-rate.ts):
// every refusal cost a connection (1,900 connections for these 2,000 requests), and where the
// client's new connections arrived before the server had closed the old ones the address went
// over its bound, and the connections past the reserve were dropped unread: undici reported
// "other side closed" or ECONNRESET instead of the 429 (126 of 2,000 in issue 43's run; this
// machine closes fast enough that it saw none, so the connection count is what fails here).
import { Agent, request } from "undici";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const CONCURRENCY = 100;
const REQUESTS = 2_000;

let server: TestServer;
let accepted = 0;
let open = 0;
let mostOpen = 0;

beforeAll(async () => {
  server = await startServer({ RATE_LIMIT_MAX: "100", RATE_LIMIT_WINDOW: "10m" });
  // What the server's socket saw: connections accepted, and most open at once.
  server.app.server.on("connection", (socket) => {
    accepted++;
    mostOpen = Math.max(mostOpen, ++open);
    socket.once("close", () => open--);
  });
});
afterAll(() => server?.close());

it("answers every request of a burst past the limit on the connections it came on, none reset", async () => {
  const agent = new Agent({ connections: CONCURRENCY });
  const statuses = new Map<number, number>();
  const resets = new Map<string, number>();
  let withoutRetryAfter = 0;
  let sent = 0;
  const client = async () => {
    while (sent < REQUESTS) {
      sent++;
      try {
        const answer = await request(`${server.url}/users`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"username":"burst"}', // 400 (no password) until the limit, 429 after
          dispatcher: agent,
        });
        await answer.body.text();
        statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
        if (answer.statusCode === 429 && !answer.headers["retry-after"]) withoutRetryAfter++;
      } catch (error) {
        const code = (error as { code?: string }).code ?? (error as Error).message;
        resets.set(code, (resets.get(code) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  await agent.close();

  expect(Object.fromEntries(resets), "requests that got a reset socket instead of an answer").toEqual({});
  expect(Object.fromEntries(statuses)).toEqual({ 400: 100, 429: 1_900 });
  expect(withoutRetryAfter).toBe(0);
  // A refusal keeps the connection: the client never had to open more than it started with.
  expect(accepted, "connections the burst cost (each closed 429 costs one)").toBeLessThanOrEqual(CONCURRENCY);
  expect(mostOpen).toBeLessThanOrEqual(CONCURRENCY);
});
