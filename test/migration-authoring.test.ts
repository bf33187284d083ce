// Authoring migrations with the Prisma 7 CLI, offline (prisma/new-migration.mjs): the CLI runs the
// WebAssembly schema engine through prisma/schema-engine.mjs, which speaks a private protocol of
// the pinned Prisma version. These checks fail if that stand-in stops answering (the CLI then
// prints nothing and still exits 0) or if the model changed without a migration.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testProvider, type TestDatabase } from "./helpers/database.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const provider = testProvider();
const prismaDir = path.join(ROOT, "prisma", provider);
const run = promisify(execFile);

/** `prisma migrate diff ... --script` with the provider's config file; its SQL (stdout). */
async function migrateDiff(args: string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [
      path.join(ROOT, "node_modules/prisma/build/index.js"),
      "migrate",
      "diff",
      ...args,
      "--script",
      "--config",
      path.join(ROOT, `prisma/${provider}.config.ts`),
    ],
    { cwd: ROOT, env: { ...process.env, ...env, PRISMA_HIDE_UPDATE_MESSAGE: "1" }, timeout: 60_000 },
  );
  return stdout.trim();
}

/**
 * The diff without the steps that would drop the search indexes: tables, FTS5 tables (with their
 * shadow tables), stored counts, the R*Tree (with its shadow tables), trigram and point indexes the
 * search migrations add by hand, derived from the model's rows and kept out of the model (Prisma's
 * schema cannot describe them), and PostgreSQL's index of a city in the RATING order (NULLS LAST,
 * which the schema cannot say either; SQLite has no such index). Any other step stays.
 */
const SEARCH_INDEX =
  /^(Restaurant|Grocery)(Search|TitleTrigrams|FacetCount|FacetSpelling|Place)\w*$|^SearchTerm$|_titleSearch_trgm_idx$|^Restaurant_point_idx$|^Restaurant_citySearch_ratingAvg_id_idx$/;
function withoutSearchIndexes(sql: string): string {
  const steps = sql.split(/\n\s*\n/).filter((step) => {
    const dropped =
      /DROP (?:TABLE|INDEX) "(\w+)"/.exec(step)?.[1] ?? /^ALTER TABLE "(\w+)" DROP CONSTRAINT "\w+";$/m.exec(step)?.[1];
    return !(dropped && SEARCH_INDEX.test(dropped) && !/\bCREATE\b|\bADD\b/.test(step));
  });
  return steps.length === 0 ? "-- This is an empty migration." : steps.join("\n\n");
}

let database: TestDatabase;
let scratch: string;
beforeAll(async () => {
  database = await createTestDatabase();
  scratch = mkdtempSync(path.join(tmpdir(), "gw-authoring-"));
});
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await database?.drop();
});

describe(`migration authoring (${provider === "postgres" ? "PostgreSQL" : "SQLite"})`, () => {
  it("the committed migrations build exactly the current model", async () => {
    // Replays every migration into a shadow database (SQLite: in memory; PostgreSQL: a throw-away
    // database on the test server) and compares the result with the schema.
    const env: Record<string, string> =
      provider === "postgres" ? { PG_URL: database.url } : { SQLITE_URL: database.url };
    const sql = await migrateDiff(
      ["--from-migrations", path.join(prismaDir, "migrations"), "--to-schema", path.join(prismaDir, "schema.prisma")],
      env,
    );
    expect(withoutSearchIndexes(sql)).toBe("-- This is an empty migration.");
  }, 90_000);

  it("writes the SQL of a model change with no database at all, and the snapshot is the current model", async () => {
    // Nothing listens on port 1; the SQLite file must not be created.
    const noDatabase = {
      PG_URL: "postgresql://postgres@127.0.0.1:1/none",
      SQLITE_URL: `file:${path.join(scratch, "never.db")}`,
    };
    const snapshot = path.join(prismaDir, "migrations/snapshot.prisma");
    expect(
      await migrateDiff(["--from-schema", snapshot, "--to-schema", path.join(prismaDir, "schema.prisma")], noDatabase),
    ).toBe("-- This is an empty migration.");

    const changed = path.join(scratch, "schema.prisma");
    writeFileSync(
      changed,
      readFileSync(snapshot, "utf8").replace(/^model User \{$/m, "model User {\n  nickname String?"),
    );
    const sql = await migrateDiff(["--from-schema", snapshot, "--to-schema", changed], noDatabase);
    expect(sql).toMatch(/ALTER TABLE "User" ADD COLUMN\s+"nickname" TEXT;/);
    expect(existsSync(path.join(scratch, "never.db"))).toBe(false);
  }, 90_000);
});
