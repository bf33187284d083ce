// Fresh databases for one bench run: an SQLite file in a temp folder, and (when DATABASE_URL
// points at PostgreSQL) a new database on that server, dropped afterwards.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { createDb } from "../src/db/client.ts";
import type { Db } from "../src/db/db.ts";
import { migrate } from "../src/db/migrate.ts";
import type { SizeName } from "../src/seed/dataset.ts";
import { progressPrinter } from "../src/seed/progress.ts";
import { seed } from "../src/seed/seed.ts";
import { addDeepComments } from "./deep-comments.ts";
import { parentPidOf } from "./processes.ts";

export type BenchDatabase = {
  provider: "sqlite" | "postgres";
  url: string;
  /** Upload folder that goes with it (cover images of the seed). */
  uploadDir: string;
  drop(): Promise<void>;
};

export const isPostgresUrl = (url: string | undefined) => /^postgres(ql)?:\/\//.test(url ?? "");

export function freshSqlite(): BenchDatabase {
  const dir = mkdtempSync(path.join(tmpdir(), "gw-bench-"));
  return {
    provider: "sqlite",
    url: `file:${path.join(dir, "bench.db")}`,
    uploadDir: path.join(dir, "uploads"),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

export async function freshPostgres(serverUrl: string): Promise<BenchDatabase> {
  const name = `gw_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const uploads = mkdtempSync(path.join(tmpdir(), "gw-bench-pg-"));
  return {
    provider: "postgres",
    url: url.toString(),
    uploadDir: uploads,
    async drop() {
      rmSync(uploads, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * A fresh database of `provider`, migrated and seeded at `size` (plus the deep comment lists of
 * deep-comments.ts), and its connection settings; its
 * `drop` is pushed onto `cleanups` so an interrupted run removes it. The seeding client is closed
 * and let go: its Prisma query-plan cache held ~270 MB of the seed's bulk inserts (2.5 million
 * parameter descriptors), and the GC of that heap disturbed what the bench measured in its own
 * process for the rest of the run. A caller that reads in-process opens a client of its own.
 */
export async function seededDatabase(
  provider: "sqlite" | "postgres",
  { size, serverUrl, password }: { size: SizeName; serverUrl?: string; password: string },
  cleanups: (() => Promise<void>)[],
) {
  const database = provider === "sqlite" ? freshSqlite() : await freshPostgres(serverUrl!);
  cleanups.push(database.drop);
  const settings = loadConfig({ DATABASE_URL: database.url, UPLOAD_DIR: database.uploadDir }).database;
  await migrate(settings);
  const db = createDb(settings);
  try {
    const seeded = await seed(db, {
      size,
      uploadDir: database.uploadDir,
      password,
      onProgress: progressPrinter(process.stderr),
      database: settings,
    });
    seeded.inserted.comments += await addDeepComments(db, size);
    await settle(db, provider);
    return { database, settings, seeded };
  } finally {
    await db.close();
  }
}

/**
 * What pgbench does before a run: a freshly seeded PostgreSQL database otherwise spends the first
 * minutes of the bench on autovacuum and analyze of the new tables, pruning the seed's dead rows
 * on first read, and a checkpoint writing out the whole seed, all on the cores the servers use.
 * SQLite: the seed's WAL is folded into the database file.
 */
async function settle(db: Db, provider: "sqlite" | "postgres") {
  if (provider === "postgres") {
    await db.prisma.$executeRawUnsafe("VACUUM (ANALYZE)");
    await db.prisma.$executeRawUnsafe("CHECKPOINT");
  } else {
    await db.prisma.$queryRawUnsafe("PRAGMA wal_checkpoint(TRUNCATE)");
  }
}

/**
 * The pid of the PostgreSQL server (postmaster) behind `url` when it runs on this machine (the
 * parent of this connection's backend), else null: the bench then counts that server's CPU alone.
 */
export async function postgresServerPid(url: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const backend = Number((await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
    const comm = (() => {
      try {
        return readFileSync(`/proc/${backend}/comm`, "utf8").trim();
      } catch {
        return null;
      }
    })();
    return comm === "postgres" ? parentPidOf(backend) : null;
  } finally {
    await client.end();
  }
}

/** An access token for a seeded user, from the server at `url` (POST /auth/token). */
export async function signIn(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/auth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!res.ok || !body.access_token)
    throw new Error(`login of ${username} failed: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}
