// Starts the real HTTP server (Fastify + Apollo + REST shim) on a random port over a fresh
// database, and gives tests small clients for GraphQL and REST. Nothing of our own is mocked.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig, type Config } from "../../src/config.ts";
import { createDb } from "../../src/db/client.ts";
import type { Db } from "../../src/db/db.ts";
import { migrate } from "../../src/db/migrate.ts";
import { buildServer } from "../../src/server.ts";
import { createEventBus } from "../../src/events/create-bus.ts";
import type { EventBus } from "../../src/events/bus.ts";
import { createMetrics, observeStatement } from "../../src/http/observability/metrics.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import type { FastifyInstance } from "fastify";
import { createUploadStore, type UploadStore } from "../../src/storage/upload-store.ts";
import { testStoreSettings } from "./upload-store.ts";

export type GraphqlResult<T = any> = {
  status: number;
  data?: T;
  errors?: { message: string; extensions?: { code?: string; [k: string]: unknown }; path?: (string | number)[] }[];
  body: any;
};

export type TestServer = {
  url: string;
  app: FastifyInstance;
  db: Db;
  config: Config;
  /** The server's event bus (PostgresBus on PostgreSQL, in-process on SQLite). */
  events: EventBus;
  database: TestDatabase;
  /** Where the server keeps covers (its own client of that store): UPLOAD_DIR, or a bucket with UPLOAD_STORE=s3. */
  store: UploadStore;
  /** The settings naming that store (none for UPLOAD_DIR); an `alongside` server gets the same. */
  storeSettings: Record<string, string>;
  /** Every SQL statement Prisma sent since the last `sql.length = 0`. */
  sql: string[];
  /** The server's log lines (JSON), at the LOG_LEVEL given (silent by default). */
  logs: string[];
  graphql<T = any>(query: string, variables?: Record<string, unknown>, token?: string): Promise<GraphqlResult<T>>;
  /** fetch against the server; `path` is relative to its root. */
  fetch(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  /** Registers a new user (unique name from `prefix`) and returns its token and id. */
  signUp(prefix?: string, role?: "USER" | "ADMIN"): Promise<{ token: string; id: string; username: string }>;
  close(): Promise<void>;
};

let counter = 0;

/**
 * `database`: a database the test made itself (e.g. on a small filesystem); a fresh one by default.
 * `alongside`: another instance of the same deployment: this server uses that one's database and
 * upload folder (or bucket), and leaves them to it (close this one first).
 * `events`: the server's event bus (live updates); by default the one production would use for
 * this database (src/events/create-bus.ts).
 */
export async function startServer(
  env: Record<string, string> = {},
  {
    database,
    alongside,
    events: givenEvents,
  }: { database?: TestDatabase; alongside?: TestServer; events?: EventBus } = {},
): Promise<TestServer> {
  database ??= alongside?.database ?? (await createTestDatabase());
  // The upload folder sits in a private folder of its own, so a test can check that nothing was
  // written beside it without seeing other test files' temp folders.
  const uploadRoot = alongside ? undefined : mkdtempSync(path.join(tmpdir(), "gw-uploads-"));
  const uploads = alongside ? alongside.config.uploadDir : path.join(uploadRoot!, "uploads");
  if (uploadRoot) mkdirSync(uploads);
  // UPLOAD_STORE=s3 in the test run: each server a bucket of its own (test/helpers/upload-store.ts).
  const storeSettings = alongside
    ? alongside.storeSettings
    : {
        ...(env.UPLOAD_STORE ? {} : await testStoreSettings()),
        ...Object.fromEntries(Object.entries(env).filter(([name]) => /^(UPLOAD_STORE|UPLOAD_SERVE|S3_)/.test(name))),
      };
  const config = loadConfig({
    ...storeSettings,
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    UPLOAD_DIR: uploads,
    PORT: "0",
    RATE_LIMIT_MAX: "0", // tests of the limiter turn it on themselves
    // Tests register many users from 127.0.0.1 and make many failed logins on purpose; the tests
    // of these limits (test/hardening/amplification.test.ts) turn them on.
    SIGNUP_RATE_LIMIT: "0",
    LOGIN_BACKOFF_MAX: "0",
    // A token's cache entry expiring between two requests adds its re-check (2 statements) to the
    // second one: on a busy machine that failed tests counting a request's statements. The tests
    // of the session cache set their own.
    SESSION_CACHE_TTL: "10m",
    // GRAPHQL_COMPILE_AFTER=1 runs every operation compiled (one CI suite does, with no compile budget), 0 none.
    ...(process.env.GRAPHQL_COMPILE_AFTER ? { GRAPHQL_COMPILE_AFTER: process.env.GRAPHQL_COMPILE_AFTER } : {}),
    ...(process.env.GRAPHQL_COMPILES_PER_MINUTE
      ? { GRAPHQL_COMPILES_PER_MINUTE: process.env.GRAPHQL_COMPILES_PER_MINUTE }
      : {}),
    ...env,
    DATABASE_URL: database.url,
  });
  const drop = alongside ? async () => {} : database.drop;
  const store = await createUploadStore(config);
  await migrate(config.database);
  const sql: string[] = [];
  const metrics = createMetrics();
  const db = createDb({
    ...config.database,
    onQuery: (e) => {
      sql.push(e.query);
      observeStatement(metrics, e);
    },
  });
  const logs: string[] = [];
  // The same bus as in production for this database (src/main.ts): on PostgreSQL, servers started
  // on one database hear each other's events.
  const events = givenEvents ?? (await createEventBus(config));
  const app = await buildServer({ config, db, metrics, events, logStream: { write: (line) => void logs.push(line) } });
  const address = await app.listen({ port: 0, host: "127.0.0.1" });

  const doFetch: TestServer["fetch"] = (p, init = {}) => {
    const { token, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token) headers.set("authorization", `Bearer ${token}`);
    if (json !== undefined) headers.set("content-type", "application/json");
    return fetch(address + p, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };

  const server: TestServer = {
    url: address,
    app,
    db,
    config,
    events,
    database,
    store,
    storeSettings,
    sql,
    logs,
    async graphql(query, variables, token) {
      const res = await doFetch("/graphql", { method: "POST", json: { query, variables }, token });
      const body = (await res.json()) as any;
      return { status: res.status, data: body.data, errors: body.errors, body };
    },
    fetch: doFetch,
    async signUp(prefix = "user", role = "USER") {
      const username = `${prefix}${++counter}${Math.random().toString(36).slice(2, 6)}`;
      const r = await server.graphql(
        `mutation($input: RegisterInput!) { register(input: $input) { accessToken user { id } } }`,
        { input: { username, password: "correct-horse", firstName: prefix } },
      );
      if (!r.data) throw new Error(`signUp failed: ${JSON.stringify(r.errors)}`);
      if (role === "ADMIN")
        await db.prisma.user.update({ where: { id: r.data.register.user.id }, data: { role: "ADMIN" } });
      return { token: r.data.register.accessToken, id: r.data.register.user.id, username };
    },
    async close() {
      await app.close();
      await events.close();
      await db.close();
      store.close();
      await drop();
      if (uploadRoot) rmSync(uploadRoot, { recursive: true, force: true });
    },
  };
  return server;
}
