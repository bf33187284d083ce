// A token is looked up once however many requests (or live connections re-checking it) ask at the
// same moment: the session cache shares the look-up under way. Found by the fan-out bench: 1,000
// WebSocket connections of one token re-checked it together every half SESSION_CACHE_TTL, each
// with its own database read, and on PostgreSQL event delivery fell seconds behind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { SessionCache } from "../../src/domain/accounts/session-cache.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => s?.close());

/** Tokens asked for: Prisma batches one tick's findUnique calls into `IN (?, ?, ...)`, so count those, not statements. */
const tokenLookups = (sql: string[]) =>
  sql
    .filter((q) => /^\s*SELECT/i.test(q) && /AccessToken/.test(q))
    .reduce((sum, q) => sum + (/\bIN \(([^)]*)\)/i.exec(q)?.[1].split(",").length ?? 1), 0);

describe("token look-ups", () => {
  it("20 checks of one uncached token at the same moment: one look-up", async () => {
    const user = await s.signUp("burst");
    // The server's own cache type on the server's database; 20 checks in one tick, as 20 live
    // connections of one token re-checking on the same timer tick do.
    const cache = new SessionCache(60_000);
    s.sql.length = 0;
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.authenticate(s.db, user.token)));
    for (const answer of answers) expect(answer.state).toBe("valid");
    expect(tokenLookups(s.sql), s.sql.filter((q) => /AccessToken/.test(q)).join("\n")).toBe(1);
  });

  it("a logout while look-ups are under way is not undone by them", async () => {
    const user = await s.signUp("racer");
    const pending = Array.from({ length: 5 }, () => s.graphql(`{ me { id } }`, undefined, user.token));
    expect((await s.graphql(`mutation { logout }`, undefined, user.token)).data).toEqual({ logout: true });
    await Promise.all(pending);
    const after = await s.graphql(`{ me { id } }`, undefined, user.token);
    expect(after.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });
});
