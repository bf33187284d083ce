// PostgreSQL only: DB_POOL_IDLE_TIMEOUT reaches the connection pool. pg-pool's own default closes
// a connection after 10 s idle, and the burst after a lull then paid for new backends (cold
// caches, statements prepared again): p99 10x a warm pool's. The default keeps them 5 minutes.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { testProvider } from "../helpers/database.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

describe.skipIf(testProvider() !== "postgres")("DB_POOL_IDLE_TIMEOUT", () => {
  /** Starts a server on a database of its own, with a watcher of that database's backends. */
  async function withServer(
    idleTimeout: string,
    test: (s: TestServer, poolBackends: () => Promise<number>) => Promise<void>,
  ) {
    const s = await startServer({ DB_POOL_IDLE_TIMEOUT: idleTimeout, SESSION_CACHE_TTL: "0" });
    const watcher = new pg.Client({ connectionString: s.database.url, application_name: "test-watcher" });
    await watcher.connect();
    try {
      await test(s, () => poolBackends(watcher));
    } finally {
      await watcher.end();
      await s.close();
    }
  }

  /** The pool's backends: the live-event bus names its connections, the pool leaves the name empty. */
  async function poolBackends(watcher: pg.Client): Promise<number> {
    const { rows } = await watcher.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = '' AND pid <> pg_backend_pid()`,
    );
    return rows[0].n;
  }

  /** Makes the pool open several connections: concurrent requests. */
  async function busyPool(s: TestServer): Promise<void> {
    const user = await s.signUp("pool");
    await Promise.all(
      Array.from({ length: 12 }, () =>
        s.graphql(`{ me { id } restaurants(first: 5) { totalCount } }`, undefined, user.token),
      ),
    );
  }

  const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("closes connections idle for longer than the setting", () =>
    withServer("500ms", async (s, poolBackends) => {
      await busyPool(s);
      expect(await poolBackends()).toBeGreaterThan(1);
      await idle(1500);
      expect(await poolBackends()).toBe(0);
    }));

  it("keeps them open with 0", () =>
    withServer("0", async (s, poolBackends) => {
      await busyPool(s);
      const open = await poolBackends();
      expect(open).toBeGreaterThan(1);
      await idle(1500);
      expect(await poolBackends()).toBe(open);
    }));
});
