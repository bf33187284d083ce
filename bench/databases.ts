// Fresh databases for one bench run: an SQLite file in a temp folder, and (when DATABASE_URL
// points at PostgreSQL) a new database on that server, dropped afterwards.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { createDb, type Db } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import type { SizeName } from "../src/seed/dataset.ts";
import { progressPrinter } from "../src/seed/progress.ts";
import { seed } from "../src/seed/seed.ts";

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
 * A fresh database of `provider`, migrated and seeded at `size`, with a client open on it (the
 * caller disconnects it); its `drop` is pushed onto `cleanups` so an interrupted run removes it.
 */
export async function seededDatabase(
  provider: "sqlite" | "postgres",
  { size, serverUrl, password }: { size: SizeName; serverUrl?: string; password: string },
  cleanups: (() => Promise<void>)[],
) {
  const database = provider === "sqlite" ? freshSqlite() : await freshPostgres(serverUrl!);
  cleanups.push(database.drop);
  const config = loadConfig({ DATABASE_URL: database.url, UPLOAD_DIR: database.uploadDir });
  await migrate(config.database);
  const db = createDb(config.database);
  const seeded = await seed(db, { size, uploadDir: database.uploadDir, password, onProgress: progressPrinter(process.stderr) });
  await settle(db, provider);
  return { database, db, seeded };
}

/**
 * What pgbench does before a run: a freshly seeded PostgreSQL database otherwise spends the first
 * minutes of the bench on autovacuum and analyze of the new tables, pruning the seed's dead rows
 * on first read, and a checkpoint writing out the whole seed, all on the cores the servers use.
 */
async function settle(db: Db, provider: "sqlite" | "postgres") {
  if (provider === "postgres") {
    await db.$executeRawUnsafe("VACUUM (ANALYZE)");
    await db.$executeRawUnsafe("CHECKPOINT");
  } else {
    await db.$queryRawUnsafe("PRAGMA wal_checkpoint(TRUNCATE)");
  }
}
