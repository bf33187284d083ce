// health (src/http/health.ts) on a bare instance over a real, fresh database: /healthz answers
// without touching anything; /readyz checks the database, writes and the upload folder, and shows
// (never counts) Redis. Outages are tested through the real server (test/operability,
// test/hardening/upload-folder-readiness.test.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { createDb } from "../../src/db/client.ts";
import type { Db } from "../../src/db/db.ts";
import { migrate } from "../../src/db/migrate.ts";
import { healthPlugin } from "../../src/http/health.ts";
import { filesystemStore } from "../../src/storage/folder/filesystem-store.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

let database: TestDatabase;
let db: Db;
const folder = mkdtempSync(path.join(tmpdir(), "gw-health-"));

beforeAll(async () => {
  database = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: "test", DATABASE_URL: database.url });
  await migrate(config.database);
  db = createDb(config.database);
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
  rmSync(folder, { recursive: true, force: true });
});

async function app(uploadDir: string, redis?: { reachable(): boolean }) {
  const app = Fastify();
  await app.register(healthPlugin, {
    db,
    store: filesystemStore({ dir: uploadDir, diskReserveBytes: 0 }),
    redis: redis as never,
  });
  return app;
}

describe("health plugin", () => {
  it("answers /healthz and a ready /readyz", async () => {
    const server = await app(folder);
    expect((await server.inject({ url: "/healthz" })).json()).toEqual({ status: "ok" });
    const ready = await server.inject({ url: "/readyz" });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: "ok", database: "ok", writes: "ok", uploads: "ok" });
  });

  it("is not ready without a writable upload folder, and shows an unreachable Redis without counting it", async () => {
    const server = await app(path.join(folder, "missing"), { reachable: () => false });
    const res = await server.inject({ url: "/readyz" });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      status: "unavailable",
      database: "ok",
      writes: "ok",
      uploads: "not writable",
      redis: "unreachable",
    });
  });
});
