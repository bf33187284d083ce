// The demo data (`npm run seed`'s small set) seeded once per test file, then copied for every
// server that needs a fresh one: a copy of the file on SQLite, CREATE DATABASE ... TEMPLATE on
// PostgreSQL. Seeding takes seconds (covers drawn, a password hashed, a thousand rows); a copy is
// instant, so each document of the examples test starts on untouched demo data.
import { copyFileSync, cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { loadConfig } from "../../src/config.ts";
import { createDb } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import { DEFAULT_SEED_PASSWORD, seed } from "../../src/seed/seed.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { startServer, type TestServer } from "./server.ts";

export type DemoData = {
  /** A server over a fresh copy of the demo data, its covers in its upload folder; close() drops the copy. */
  serve(env?: Record<string, string>): Promise<TestServer>;
  drop(): Promise<void>;
};

/** The password of the seeded accounts (`demo`, `admin`, ...). */
export const DEMO_PASSWORD = DEFAULT_SEED_PASSWORD;

export async function seededDemoData(): Promise<DemoData> {
  const template = await createTestDatabase();
  const uploads = mkdtempSync(path.join(tmpdir(), "gw-demo-uploads-"));
  const config = loadConfig({ NODE_ENV: "test", DATABASE_URL: template.url, UPLOAD_DIR: uploads });
  await migrate(config.database);
  const db = createDb(config.database);
  await seed(db, { size: "small", uploadDir: uploads, password: DEMO_PASSWORD, database: config.database });
  await db.close();

  return {
    async serve(env = {}) {
      const server = await startServer(env, { database: await copyOf(template) });
      cpSync(uploads, server.config.uploadDir, { recursive: true });
      return server;
    },
    async drop() {
      await template.drop();
      rmSync(uploads, { recursive: true, force: true });
    },
  };
}

async function copyOf(template: TestDatabase): Promise<TestDatabase> {
  if (template.provider === "sqlite") {
    const file = template.url.slice("file:".length);
    const dir = mkdtempSync(path.join(tmpdir(), "gw-demo-"));
    for (const suffix of ["", "-wal", "-shm"])
      if (existsSync(file + suffix)) copyFileSync(file + suffix, path.join(dir, "test.db" + suffix));
    return {
      url: `file:${path.join(dir, "test.db")}`,
      provider: "sqlite",
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const server = new URL(template.url);
  const source = server.pathname.slice(1);
  const name = `gw_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${source}`);
  await admin.end();
  server.pathname = `/${name}`;
  return {
    url: server.toString(),
    provider: "postgres",
    drop: async () => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
