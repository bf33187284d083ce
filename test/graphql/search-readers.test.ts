// SQLite searches run in reader threads with their own connections (src/db/sqlite/readers.ts),
// never on the connection the event loop waits on: a search answers while that connection is
// busy, here held by an open write transaction, and it reads only what was committed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { testProvider } from "../helpers/database.ts";

describe.skipIf(testProvider() !== "sqlite")("SQLite reader threads", () => {
  let s: TestServer;
  let token: string;
  const SEARCH = `{ restaurants(filter: { search: "reader" }) { totalCount nodes { title } } }`;

  beforeAll(async () => {
    s = await startServer({ SQLITE_READERS: "1" });
    token = (await s.signUp("reader")).token;
    const r = await s.graphql(`mutation { createRestaurant(input: { title: "Reader Cafe" }) { id } }`, {}, token);
    expect(r.errors).toBeUndefined();
  });
  afterAll(async () => s?.close());

  it("answers a search while the service's own connection is held by a transaction, without its uncommitted rows", async () => {
    expect((await s.graphql(SEARCH, {}, token)).data.restaurants.totalCount).toBe(1); // also warms the token cache
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = s.db.prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(
          `UPDATE "Restaurant" SET "title" = 'Reader Cafe renamed', "titleSearch" = 'reader cafe renamed'`,
        );
        await held;
      },
      { timeout: 20_000 },
    );
    const answered = await Promise.race([
      s.graphql(SEARCH, {}, token).then((r) => r.data?.restaurants),
      new Promise((resolve) => setTimeout(() => resolve("blocked"), 5_000)),
    ]);
    release();
    await transaction;
    expect(answered).toEqual({ totalCount: 1, nodes: [{ title: "Reader Cafe" }] });
    expect((await s.graphql(SEARCH, {}, token)).data.restaurants.nodes).toEqual([{ title: "Reader Cafe renamed" }]);
  });
});
