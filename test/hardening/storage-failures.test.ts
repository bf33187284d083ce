// Storage and database failures through the real server: a full disk, database files that cannot
// be written, a PostgreSQL server that cannot be reached. Writes must answer 507 STORAGE_FULL or
// 503 SERVICE_UNAVAILABLE (never 500, never SQL), reads must keep working where the database can
// still read, /readyz must say "not ready" meanwhile and "ready" again once writes succeed, without
// a restart, and nothing half-written may remain. Every wait is bounded: a hang fails the test
// within seconds.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import net from "node:net";
import pg from "pg";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testProvider, type TestDatabase } from "../helpers/database.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** How long any one answer may take: far below the test timeout, far above a normal answer. */
const ANSWER_MS = 5000;

function answerWithin<T>(pending: Promise<T>, what: string, ms = ANSWER_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms (the service hangs)`)), ms);
  });
  return Promise.race([pending, timeout]).finally(() => clearTimeout(timer));
}

/** Polls /readyz until it gives `status` (bounded). */
async function readinessBecomes(s: TestServer, status: number, ms = ANSWER_MS) {
  const deadline = Date.now() + ms;
  let last: { status: number; body: any } | undefined;
  while (Date.now() < deadline) {
    const res = await answerWithin(s.fetch("/readyz"), "GET /readyz");
    last = { status: res.status, body: await res.json() };
    if (last.status === status) return last.body;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`/readyz did not become ${status} within ${ms} ms; last: ${JSON.stringify(last)}`);
}

/** Closing a server whose database hangs must not hang the test file. */
const closeWithin = (s: TestServer | undefined) => (s ? answerWithin(s.close(), "close").catch(() => {}) : undefined);

const CREATE = `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`;
const ME = `{ me { id } }`;
/** No driver, SQL or Prisma text may reach a client. */
const INTERNALS = /sqlite|insert|select|update|prisma|transaction|invocation|constraint|ECONN/i;

/** A restaurant whose row and list rows need a few pages of room. */
const bigRestaurant = (title: string) => ({
  title,
  description: "d".repeat(2000),
  categories: Array.from({ length: 10 }, (_, i) => `${title}-category-${i}`),
});

type Outcome = { status: number; text: string; body: any };
async function graphql(
  s: TestServer,
  query: string,
  variables: Record<string, unknown>,
  token: string,
): Promise<Outcome> {
  const res = await answerWithin(
    s.fetch("/graphql", { method: "POST", json: { query, variables }, token }),
    "POST /graphql",
  );
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}
async function rest(s: TestServer, method: string, url: string, token: string, json?: unknown): Promise<Outcome> {
  const res = await answerWithin(s.fetch(url, { method, token, json }), `${method} ${url}`);
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
}

function expectRefused(outcome: Outcome, status: number, code: string) {
  expect(outcome.status, outcome.text).toBe(status);
  const codes = outcome.body.error ? [outcome.body.error.code] : outcome.body.errors.map((e: any) => e.extensions.code);
  expect(codes).toEqual([code]);
  expect(outcome.text).not.toMatch(INTERNALS);
}

/** Reads that must keep answering while writes cannot succeed. */
async function expectReadsWork(s: TestServer, token: string, userId: string, restaurantId: string) {
  expect((await graphql(s, ME, {}, token)).body).toEqual({ data: { me: { id: userId } } });
  const detail = await rest(s, "GET", `/restaurants/${restaurantId}`, token);
  expect(detail.status, detail.text).toBe(200);
  expect(detail.body._id).toBe(restaurantId);
  const health = await answerWithin(s.fetch("/healthz"), "GET /healthz");
  expect(health.status).toBe(200);
}

/** Nothing of a refused write is there: neither the row nor any of its list rows. */
async function expectNothingOf(s: TestServer, titlePrefix: string) {
  expect(await s.db.prisma.restaurant.count({ where: { title: { startsWith: titlePrefix } } })).toBe(0);
  // bigRestaurant's categories start with its title.
  expect(await s.db.prisma.restaurantTag.count({ where: { value: { startsWith: titlePrefix } } })).toBe(0);
}

const sqliteFileDatabase = (dir: string): TestDatabase => ({
  url: `file:${path.join(dir, "test.db")}`,
  provider: "sqlite",
  drop: async () => {},
});

/** Whether this process may do what a test needs (root in a sandbox that allows it). */
function allowed(command: string, args: string[], undo?: [string, string[]]): boolean {
  try {
    execFileSync(command, args, { stdio: "ignore" });
    if (undo) execFileSync(undo[0], undo[1], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
const probeDir = mkdtempSync(path.join(tmpdir(), "gw-capability-"));
const canMountTmpfs =
  testProvider() === "sqlite" &&
  allowed("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probeDir], ["umount", [probeDir]]);
writeFileSync(path.join(probeDir, "file"), "");
const canMakeImmutable =
  testProvider() === "sqlite" &&
  allowed("chattr", ["+i", path.join(probeDir, "file")], ["chattr", ["-i", path.join(probeDir, "file")]]);
rmSync(probeDir, { recursive: true, force: true });

// SQLite only: PRAGMA max_page_count makes SQLite answer SQLITE_FULL on demand. On PostgreSQL
// storage full is the server's own business; its unreachability is tested below.
describe.skipIf(testProvider() !== "sqlite")("SQLite storage full (max_page_count)", () => {
  let s: TestServer;
  let user: { token: string; id: string };
  let restaurantId: string;
  beforeAll(async () => {
    s = await startServer();
    user = await s.signUp("full");
    restaurantId = (await graphql(s, CREATE, { input: { title: "Before the disk filled" } }, user.token)).body.data
      .createRestaurant.id;
  });
  afterAll(() => closeWithin(s));

  it("refuses writes with 507 STORAGE_FULL, keeps reads, acknowledged writes and readiness honest, and recovers", async () => {
    const [{ page_count }] = await s.db.prisma.$queryRawUnsafe<{ page_count: bigint }[]>("PRAGMA page_count");
    await s.db.prisma.$queryRawUnsafe(`PRAGMA max_page_count = ${Number(page_count) + 3}`);

    // Writes succeed until the database may not grow any more: each one acknowledged must stay.
    const acknowledged: string[] = [];
    let refused: Outcome | undefined;
    for (let i = 0; i < 50 && !refused; i++) {
      const outcome = await graphql(s, CREATE, { input: bigRestaurant(`kept-${i}`) }, user.token);
      if (outcome.body.data?.createRestaurant) acknowledged.push(outcome.body.data.createRestaurant.id);
      else refused = outcome;
    }
    expect(refused, "the database never filled up").toBeDefined();
    expectRefused(refused!, 507, "STORAGE_FULL");
    // A restaurant writes its search index too (pages of its own): smaller writes may still fit
    // in what is left. They fill it, each acknowledged one kept.
    let commentRefused: Outcome | undefined;
    for (let i = 0; i < 50 && !commentRefused; i++) {
      const outcome = await rest(s, "PUT", `/restaurants/${restaurantId}/comments`, user.token, {
        title: `kept-comment-${i}`,
        body: "b".repeat(5000),
        rating: 4,
      });
      if (outcome.status !== 201) commentRefused = outcome;
    }
    expectRefused(commentRefused!, 507, "STORAGE_FULL");

    // Every later write is refused the same way, on both interfaces, also several at once.
    const attempts = await Promise.all([
      graphql(s, CREATE, { input: bigRestaurant("never-graphql") }, user.token),
      rest(s, "POST", "/restaurants", user.token, bigRestaurant("never-rest")),
      rest(s, "PUT", `/restaurants/${restaurantId}/comments`, user.token, {
        title: "never-comment",
        body: "b".repeat(5000),
        rating: 4,
      }),
      graphql(s, CREATE, { input: bigRestaurant("never-parallel") }, user.token),
    ]);
    for (const outcome of attempts) expectRefused(outcome, 507, "STORAGE_FULL");

    await expectReadsWork(s, user.token, user.id, restaurantId);
    expect(await readinessBecomes(s, 503)).toMatchObject({
      status: "unavailable",
      database: "ok",
      writes: "storage full",
    });
    await expectNothingOf(s, "never");
    expect(await s.db.prisma.comment.count({ where: { title: "never-comment" } })).toBe(0);
    expect(await s.db.prisma.restaurant.count({ where: { id: { in: acknowledged } } })).toBe(acknowledged.length);

    // Room again: readiness recovers by itself (its probe write), then writes succeed.
    await s.db.prisma.$queryRawUnsafe("PRAGMA max_page_count = 1073741823");
    expect(await readinessBecomes(s, 200)).toEqual({ status: "ok", database: "ok", writes: "ok", uploads: "ok" });
    const after = await graphql(s, CREATE, { input: bigRestaurant("after-recovery") }, user.token);
    expect(after.status, after.text).toBe(200);
    expect(after.body.data.createRestaurant.id).toEqual(expect.any(String));
    // The readiness probe kept nothing.
    expect(
      await s.db.prisma.$queryRawUnsafe<{ n: bigint }[]>(
        `SELECT COUNT(*) AS n FROM "_prisma_migrations" WHERE finished_at IS NULL`,
      ),
    ).toEqual([{ n: 0n }]);
  });
});

// SQLite only, and only where this process may mount a tmpfs (root in a permissive sandbox): a
// real full filesystem makes the COMMIT itself fail, the case that used to wedge every later call.
describe.skipIf(!canMountTmpfs)("SQLite on a full filesystem (2 MB tmpfs)", () => {
  let dir: string;
  let filler: string;
  let s: TestServer;
  let user: { token: string; id: string };
  let restaurantId: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "gw-full-disk-"));
    filler = path.join(dir, "filler");
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", dir]);
    s = await startServer({}, { database: sqliteFileDatabase(dir) });
    user = await s.signUp("disk");
    restaurantId = (await graphql(s, CREATE, { input: { title: "Before the disk filled" } }, user.token)).body.data
      .createRestaurant.id;
  });
  afterAll(async () => {
    await closeWithin(s);
    execFileSync("umount", ["-l", dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 507 instead of hanging, and works again once space is freed, without a restart", async () => {
    const { bavail, bsize } = statfsSync(dir);
    try {
      writeFileSync(filler, Buffer.alloc(Number(bavail) * Number(bsize)));
    } catch {
      // ENOSPC once the filesystem is full: that is the point
    }

    const first = await graphql(s, CREATE, { input: bigRestaurant("never-first") }, user.token);
    expectRefused(first, 507, "STORAGE_FULL");
    const comment = await rest(s, "PUT", `/restaurants/${restaurantId}/comments`, user.token, {
      title: "never",
      body: "b".repeat(5000),
      rating: 4,
    });
    expectRefused(comment, 507, "STORAGE_FULL");
    expectRefused(await rest(s, "POST", "/restaurants", user.token, bigRestaurant("never-rest")), 507, "STORAGE_FULL");

    await expectReadsWork(s, user.token, user.id, restaurantId);
    expect(await readinessBecomes(s, 503)).toMatchObject({ database: "ok", writes: "storage full" });
    await expectNothingOf(s, "never");

    rmSync(filler);
    expect(await readinessBecomes(s, 200)).toMatchObject({ status: "ok", writes: "ok" });
    const after = await graphql(s, CREATE, { input: bigRestaurant("after-recovery") }, user.token);
    expect(after.status, after.text).toBe(200);
    expect(await s.db.prisma.restaurant.count({ where: { title: "after-recovery" } })).toBe(1);
  });
});

// SQLite only, and only where chattr works (root on a filesystem with attributes): database files
// that cannot be written (immutable here; read-only files behave alike for a non-root service).
describe.skipIf(!canMakeImmutable)("SQLite with database files that cannot be written (chattr +i)", () => {
  let dir: string;
  // The database and its write-ahead log. Not the -shm index: SQLite maps it into memory, and
  // growing it when it cannot be written kills the process with SIGBUS, beyond any code's reach.
  const files = () => ["test.db", "test.db-wal"].map((name) => path.join(dir, name));
  let s: TestServer;
  let user: { token: string; id: string };
  let restaurantId: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "gw-immutable-"));
    s = await startServer({}, { database: sqliteFileDatabase(dir) });
    user = await s.signUp("immutable");
    restaurantId = (await graphql(s, CREATE, { input: { title: "Before" } }, user.token)).body.data.createRestaurant.id;
  });
  afterAll(async () => {
    execFileSync("chattr", ["-i", ...files()]);
    await closeWithin(s);
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 SERVICE_UNAVAILABLE instead of hanging, and recovers once the files can be written", async () => {
    execFileSync("chattr", ["+i", ...files()]);
    expectRefused(
      await rest(s, "POST", "/restaurants", user.token, bigRestaurant("never-rest")),
      503,
      "SERVICE_UNAVAILABLE",
    );
    expectRefused(
      await graphql(s, CREATE, { input: bigRestaurant("never-graphql") }, user.token),
      503,
      "SERVICE_UNAVAILABLE",
    );
    await expectReadsWork(s, user.token, user.id, restaurantId);
    expect(await readinessBecomes(s, 503)).toMatchObject({ database: "ok", writes: "failing" });

    execFileSync("chattr", ["-i", ...files()]);
    await readinessBecomes(s, 200);
    const after = await graphql(s, CREATE, { input: bigRestaurant("after-recovery") }, user.token);
    expect(after.status, after.text).toBe(200);
    await expectNothingOf(s, "never");
  });
});

/** A TCP relay to the PostgreSQL server that can be cut (connections refused) and restored. */
async function relayTo(target: URL) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<number>((resolve) =>
      server.listen(port, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)),
    );
  const port = await listen(0);
  return {
    port,
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
    restore: () => listen(port),
    close: () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
  };
}

// PostgreSQL only: SQLite has no server to lose. The server reaches PostgreSQL through a relay
// that the test cuts (new connections refused, open ones dropped) and restores.
describe.skipIf(testProvider() !== "postgres")("PostgreSQL unreachable", () => {
  let database: TestDatabase;
  let relay: Awaited<ReturnType<typeof relayTo>>;
  let s: TestServer;
  let user: { token: string; id: string };
  let restaurantId: string;
  beforeAll(async () => {
    database = await createTestDatabase();
    const real = new URL(database.url);
    relay = await relayTo(real);
    const relayed = new URL(database.url);
    relayed.host = `127.0.0.1:${relay.port}`;
    // No session cache: each request looks its token up, as after the cache's few seconds.
    s = await startServer({ SESSION_CACHE_TTL: "0" }, { database: { ...database, url: relayed.toString() } });
    user = await s.signUp("pg");
    restaurantId = (await graphql(s, CREATE, { input: { title: "Before" } }, user.token)).body.data.createRestaurant.id;
  });
  afterAll(async () => {
    await relay?.restore().catch(() => {});
    await closeWithin(s);
    await relay?.close();
    await database?.drop();
  });

  it("answers 503 SERVICE_UNAVAILABLE while it is gone, /readyz 503, and recovers when it is back", async () => {
    await relay.cut();
    expectRefused(await graphql(s, ME, {}, user.token), 503, "SERVICE_UNAVAILABLE");
    expectRefused(await graphql(s, CREATE, { input: { title: "never" } }, user.token), 503, "SERVICE_UNAVAILABLE");
    expectRefused(await rest(s, "GET", `/restaurants/${restaurantId}`, user.token), 503, "SERVICE_UNAVAILABLE");
    expectRefused(await rest(s, "POST", "/restaurants", user.token, { title: "never" }), 503, "SERVICE_UNAVAILABLE");
    const loginRefused = await graphql(
      s,
      `
        mutation {
          login(username: "nobody", password: "whatever-123") {
            accessToken
          }
        }
      `,
      {},
      "",
    );
    expectRefused(loginRefused, 503, "SERVICE_UNAVAILABLE");
    expect((await answerWithin(s.fetch("/healthz"), "GET /healthz")).status).toBe(200);
    expect(await readinessBecomes(s, 503)).toMatchObject({ status: "unavailable", database: "unreachable" });

    await relay.restore();
    expect(await readinessBecomes(s, 200)).toEqual({ status: "ok", database: "ok", writes: "ok", uploads: "ok" });
    expect((await graphql(s, ME, {}, user.token)).body).toEqual({ data: { me: { id: user.id } } });
    const after = await graphql(s, CREATE, { input: { title: "after" } }, user.token);
    expect(after.status, after.text).toBe(200);
    expect(await s.db.prisma.restaurant.count({ where: { title: "never" } })).toBe(0);
  });
});

// PostgreSQL only: a connection lost in the middle of a transaction. Prisma sends ROLLBACK on it,
// which fails, and then never gives the connection back to the pool; with a pool of 2, two such
// losses used to leave every later request waiting forever.
describe.skipIf(testProvider() !== "postgres")("PostgreSQL connection lost inside a transaction", () => {
  let s: TestServer;
  let admin: pg.Client; // holds the row lock, in a transaction
  let watcher: pg.Client; // looks at pg_stat_activity outside any transaction (inside one it sees a snapshot)
  let user: { token: string; id: string };
  let restaurantId: string;
  beforeAll(async () => {
    s = await startServer({ DB_POOL_SIZE: "2", SESSION_CACHE_TTL: "0" });
    admin = new pg.Client({ connectionString: s.database.url });
    await admin.connect();
    watcher = new pg.Client({ connectionString: s.database.url });
    await watcher.connect();
    user = await s.signUp("lost");
    restaurantId = (await graphql(s, CREATE, { input: { title: "Locked" } }, user.token)).body.data.createRestaurant.id;
  });
  afterAll(async () => {
    await admin?.end();
    await watcher?.end();
    await closeWithin(s);
  });

  /** The server's backend that waits for the test's row lock, once it waits. */
  async function waitingBackend(): Promise<number> {
    for (let i = 0; i < 50; i++) {
      const { rows } = await watcher.query(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (rows.length) return rows[0].pid;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("the comment's transaction never waited for the row lock");
  }

  it("answers 503 each time and keeps the pool usable", async () => {
    for (let round = 0; round < 3; round++) {
      // The test holds the restaurant's row, so the comment's transaction (which updates the
      // restaurant's rating totals) waits inside BEGIN ... COMMIT; then its connection is killed.
      await admin.query("BEGIN");
      await admin.query(`SELECT id FROM "Restaurant" WHERE id = $1 FOR UPDATE`, [restaurantId]);
      const comment = rest(s, "PUT", `/restaurants/${restaurantId}/comments`, user.token, {
        title: `lost-${round}`,
        body: "b",
        rating: 3,
      });
      await watcher.query("SELECT pg_terminate_backend($1)", [await waitingBackend()]);
      await admin.query("ROLLBACK");
      expectRefused(await comment, 503, "SERVICE_UNAVAILABLE");
    }
    expect((await graphql(s, ME, {}, user.token)).body).toEqual({ data: { me: { id: user.id } } });
    const after = await rest(s, "PUT", `/restaurants/${restaurantId}/comments`, user.token, {
      title: "kept",
      body: "b",
      rating: 5,
    });
    expect(after.status, after.text).toBe(201);
    expect(await s.db.prisma.comment.count({ where: { restaurantId } })).toBe(1);
  });
});
