// Fresh databases for one bench run: an SQLite file in a temp folder, and (when DATABASE_URL
// points at PostgreSQL) a new database on that server, dropped afterwards.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

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
