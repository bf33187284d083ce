// PostgreSQL cancels a search statement that runs past SEARCH_STATEMENT_TIMEOUT, and the client
// gets SERVER_BUSY (503, Retry-After) on both faces, never a 500; reads other than searches have
// no such limit. The statement is made to wait on a lock another session holds on the search
// documents (a wait counts toward statement_timeout), so the test does not depend on the
// machine's speed. PostgreSQL only: SQLite has no statement timeout (its searches run in reader
// threads, src/db/sqlite/readers.ts, which cannot stop a statement they are running).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testProvider } from "../helpers/database.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

describe.skipIf(testProvider() !== "postgres")("a search statement past SEARCH_STATEMENT_TIMEOUT", () => {
  let s: TestServer;
  let token: string;
  let id: string;
  let locker: pg.Client;

  const SEARCH = `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { title } } }`;

  beforeAll(async () => {
    s = await startServer({ SEARCH_STATEMENT_TIMEOUT: "300ms" });
    token = (await s.signUp("timeout")).token;
    const r = await s.graphql(
      `mutation { createRestaurant(input: { title: "Pizzeria Lenta", cuisines: ["Italian"] }) { id } }`,
      {},
      token,
    );
    id = r.data.createRestaurant.id;
    locker = new pg.Client({ connectionString: s.database.url });
    await locker.connect();
  });
  afterAll(async () => {
    await locker?.end();
    await s?.close();
  });

  it("answers 503 SERVER_BUSY with Retry-After while the statement cannot finish in time, and answers again after", async () => {
    const before = await s.graphql(SEARCH, { f: { search: "pizzeria" } }, token);
    expect(before.data.restaurants.nodes).toEqual([{ title: "Pizzeria Lenta" }]);

    await locker.query(`BEGIN`);
    await locker.query(`LOCK TABLE "RestaurantSearch" IN ACCESS EXCLUSIVE MODE`);
    try {
      const started = performance.now();
      const res = await s.fetch("/graphql", {
        method: "POST",
        token,
        json: { query: SEARCH, variables: { f: { search: "pizzeria" } } },
      });
      const body = (await res.json()) as { errors?: { message: string; extensions: { code: string } }[] };
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(res.status).toBe(503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(body.errors?.[0]?.extensions.code).toBe("SERVER_BUSY");
      expect(body.errors?.[0]?.message).toContain("SEARCH_STATEMENT_TIMEOUT");
      expect(JSON.stringify(body)).not.toMatch(/RestaurantSearch|SELECT|statement timeout/i);

      // The REST shim's search answers the same, in its error shape.
      const rest = await s.fetch("/restaurants?search=pizzeria", { token });
      expect(rest.status).toBe(503);
      expect(Number(rest.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(((await rest.json()) as { error: { code: string } }).error.code).toBe("SERVER_BUSY");

      // Reads that are not searches have no such limit, and the server stays healthy.
      const byId = await s.graphql(`query($id: ID!) { restaurant(id: $id) { title } }`, { id }, token);
      expect(byId.data.restaurant.title).toBe("Pizzeria Lenta");
      expect((await s.fetch("/healthz")).status).toBe(200);
    } finally {
      await locker.query(`ROLLBACK`);
    }

    const after = await s.graphql(SEARCH, { f: { search: "pizzeria" } }, token);
    expect(after.errors).toBeUndefined();
    expect(after.data.restaurants).toEqual({ totalCount: 1, nodes: [{ title: "Pizzeria Lenta" }] });
  });
});
