// `npm run admin -- copy-data --to <DATABASE_URL>` through the real command: a SQLite database
// (the seeder's demo data, plus accounts, covers and comments made through the HTTP API) goes to
// the database under test (PostgreSQL in the PostgreSQL run) and back into SQLite with identical
// checksums; a server on the copy signs in a token issued before and serves its covers; ratings
// stay equal to their comments. A copy killed with SIGKILL halfway finishes on the next run
// without doubling anything. Bad input is refused with one line, changing nothing.
import { copyFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import Database from "better-sqlite3";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConnection } from "../../src/backup/connection/open.ts";
import { createDb } from "../../src/db/client.ts";
import { sqliteFilePath } from "../../src/db/sqlite/file.ts";
import { seed } from "../../src/seed/seed.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import {
  ADD_COMMENT,
  createGroceryWithCover,
  eachLimited,
  expectRefusal,
  graphql,
  jsonResult,
  orphanRows,
  pngWith,
  ratingMismatches,
  sqliteDatabase,
  tempDir,
} from "../helpers/data-moves.ts";
import { runAdminWith, startAdmin } from "../helpers/process.ts";
import { startServer } from "../helpers/server.ts";

let source: TestDatabase & { dir: string };
let sourceUploads: string;
let signedIn: { token: string; id: string };
let sourceRows: Record<string, number>;
const dropLater: TestDatabase[] = [];
const removeLater: string[] = [];

/** copy-data from `from` (its covers in `uploads`) with these arguments. */
const copy = (from: string, uploads: string, ...args: string[]) =>
  runAdminWith({ DATABASE_URL: from, UPLOAD_DIR: uploads }, "copy-data", ...args);

async function fresh(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  dropLater.push(database);
  return database;
}

function folder(prefix: string) {
  const dir = tempDir(prefix);
  removeLater.push(dir);
  return path.join(dir, "uploads");
}

beforeAll(async () => {
  source = sqliteDatabase("gw-copy-source-");
  removeLater.push(source.dir);
  const server = await startServer({}, { database: source });
  sourceUploads = server.config.uploadDir;
  try {
    await seed(server.db, { size: "small", uploadDir: sourceUploads, password: "seed-password" });
    signedIn = await server.signUp("mover");
    // An account an identity provider signed in (the OIDC sign-in's link row) moves with the rest.
    const linked = await server.signUp("provider-linked");
    await server.db.prisma.providerIdentity.create({
      data: { issuer: "https://id.example.test", subject: "sub-mover", userId: linked.id },
    });
    const restaurant = (await server.db.prisma.restaurant.findFirstOrThrow({ select: { id: true } })).id;
    await graphql(
      server,
      ADD_COMMENT,
      { id: restaurant, input: { title: "before the move", body: "still here", rating: 5 } },
      signedIn.token,
    );
    expect(await createGroceryWithCover(server, signedIn.token, "moved grocery", pngWith("moved"))).toBeDefined();
    for (const at of OPEN_AT) sourceOpen.set(at, await openAt(server, at));
    expect(OPEN_AT.map((at) => Number(sourceOpen.get(at)![0])).every((n) => n > 0)).toBe(true);
    const conn = await openConnection(source.url);
    sourceRows = {};
    for (const table of [
      "User",
      "AccessToken",
      "ProviderIdentity",
      "Restaurant",
      "RestaurantTag",
      "Comment",
      "Grocery",
      "GroceryTag",
      "Badge",
      "Report",
    ]) {
      sourceRows[table] = Number((await conn.rows(`SELECT count(*) FROM "${table}"`))[0]![0]);
    }
    await conn.close();
  } finally {
    // The service stops before the move (copy-data wants no writes); its upload folder stays.
    await server.app.close();
    await server.events.close();
    await server.db.close();
  }
}, 120_000);

/** The ids of the restaurants open at an instant, sorted (the small seed has a few hundred). */
const OPEN_AT = ["2026-11-27T13:00:00Z", "2026-11-28T01:00:00Z", "2026-11-27T20:30:00Z"];
const sourceOpen = new Map<string, string[]>();
async function openAt(
  server: { graphql: (query: string, variables: Record<string, unknown>, token?: string) => Promise<any> },
  at: string,
): Promise<string[]> {
  const r = await server.graphql(
    `query($at: DateTime!) { restaurants(filter: { openAt: $at }, first: 100) { totalCount nodes { id } } }`,
    { at },
    signedIn.token,
  );
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return [`${r.data.restaurants.totalCount}`, ...r.data.restaurants.nodes.map((n: { id: string }) => n.id).sort()];
}

afterAll(async () => {
  for (const database of dropLater) await database.drop().catch(() => {});
  for (const dir of removeLater) rmSync(dir, { recursive: true, force: true });
  rmSync(path.dirname(sourceUploads), { recursive: true, force: true });
});

describe("SQLite -> the database under test -> SQLite", () => {
  let middle: TestDatabase;
  let middleUploads: string;
  let there: any;
  let back: any;

  beforeAll(async () => {
    middle = await fresh();
    middleUploads = folder("gw-copy-middle-");
    const run1 = await copy(source.url, sourceUploads, "--to", middle.url, "--uploads-to", middleUploads);
    expect(run1.code, run1.stderr).toBe(0);
    there = jsonResult(run1);
    const end = sqliteDatabase("gw-copy-back-");
    removeLater.push(end.dir);
    const run2 = await copy(
      middle.url,
      middleUploads,
      "--to",
      end.url,
      "--uploads-to",
      folder("gw-copy-back-uploads-"),
    );
    expect(run2.code, run2.stderr).toBe(0);
    back = jsonResult(run2);
  }, 120_000);

  it("copies every table, verified on both sides, and round-trips to identical checksums", () => {
    expect(there).toMatchObject({ command: "copy-data", ok: true, resumed: false, verification: { ok: true } });
    for (const [table, rows] of Object.entries(sourceRows)) {
      expect(there.verification.tables[table].actual.rows, table).toBe(rows);
      expect(rows, table).toBeGreaterThan(0);
    }
    const checksums = (report: any, side: "expected" | "actual") =>
      Object.fromEntries(Object.entries<any>(report.verification.tables).map(([name, t]) => [name, t[side].checksum]));
    expect(checksums(back, "actual")).toEqual(checksums(there, "expected"));
    expect(checksums(there, "actual")).toEqual(checksums(there, "expected"));
    expect(there.verification.covers).toMatchObject({ missing: [], differing: [], dangling: 0 });
    expect(there.verification.covers.present).toBeGreaterThan(sourceRows.Grocery!); // groceries, restaurants and badges
    expect(there.coversCopied).toBe(there.verification.covers.present);
  });

  it("a server on the copy signs in a token issued before the move, serves the copied covers and finds text (its search index rebuilt)", async () => {
    const server = await startServer({ UPLOAD_DIR: middleUploads }, { database: { ...middle, drop: async () => {} } });
    try {
      expect((await server.graphql(`{ me { id } }`, {}, signedIn.token)).data?.me?.id).toBe(signedIn.id);
      const { cover } = await server.db.prisma.grocery.findFirstOrThrow({
        where: { title: "moved grocery" },
        select: { cover: true },
      });
      const served = await server.fetch(`/uploads/${cover}`, { headers: { connection: "close" } });
      expect(Buffer.from(await served.arrayBuffer()).equals(readFileSync(path.join(sourceUploads, cover!)))).toBe(true);
      expect(await ratingMismatches(server.db)).toEqual([]);
      expect(await orphanRows(server.db)).toBe(0);
      // Search tables are derived: the target's own triggers built them as the rows arrived.
      const found = await server.graphql(
        `{ groceries(filter: { search: "moved" }) { nodes { title } } }`,
        {},
        signedIn.token,
      );
      expect(found.data?.groceries?.nodes, JSON.stringify(found.errors)).toEqual([{ title: "moved grocery" }]);
      const { title } = await server.db.prisma.restaurant.findFirstOrThrow({
        orderBy: { id: "asc" },
        select: { title: true },
      });
      const restaurants = await server.graphql(
        `query($q: String!) { restaurants(filter: { search: $q }) { nodes { title } } }`,
        { q: title },
        signedIn.token,
      );
      expect(restaurants.data?.restaurants?.nodes?.map((n: { title: string }) => n.title)).toContain(title);
      // So are the opening patterns (not copied: the target's triggers derived them again, with
      // ids of their own): the same restaurants are open at the same instants as in the source.
      for (const at of OPEN_AT) expect(await openAt(server, at), at).toEqual(sourceOpen.get(at));
    } finally {
      await server.close();
    }
  }, 120_000);

  it("refuses to copy into a database that is not empty, changing nothing", async () => {
    const run = await copy(source.url, sourceUploads, "--to", middle.url);
    expectRefusal(run, 1, /the target database is not empty \(User, .*hold rows\)/);
    const db = createDb({
      dialect: middle.provider,
      url: middle.url,
      poolSize: 1,
      poolIdleTimeoutMs: 0,
      sqliteSynchronous: "FULL",
    });
    try {
      expect(await db.prisma.user.count()).toBe(sourceRows.User);
    } finally {
      await db.close();
    }
  }, 120_000);
});

describe("kill -9 halfway", () => {
  it("the next run goes on from the last committed batch and finishes, nothing doubled; a run from another source is refused", async () => {
    const target = await fresh();
    // 5 rows a batch, 20 ms apart: the copy lasts seconds, so the kill lands halfway on any machine.
    const started = startAdmin(
      { DATABASE_URL: source.url, UPLOAD_DIR: sourceUploads },
      "copy-data",
      "--to",
      target.url,
      "--batch-rows",
      "5",
      "--pause-ms",
      "20",
    );
    const total = Object.values(sourceRows).reduce((a, b) => a + b, 0);
    let copied = 0;
    for (let i = 0; i < 600 && copied < 150; i++) {
      await new Promise((r) => setTimeout(r, 50));
      copied = await copiedSoFar(target);
    }
    started.child.kill("SIGKILL");
    const killed = await started.finished;
    expect(killed.code).toBe(null); // killed, not finished
    copied = await copiedSoFar(target);
    expect(copied).toBeGreaterThanOrEqual(150);
    expect(copied).toBeLessThan(total);

    const other = sqliteDatabase("gw-copy-other-");
    removeLater.push(other.dir);
    await runAdminWith({ DATABASE_URL: other.url }, "reports"); // migrates it: a valid, empty source
    expectRefusal(
      await copy(other.url, sourceUploads, "--to", target.url),
      1,
      /holds an unfinished copy from file:.*gw-copy-source-.*--restart/,
    );

    const resumed = await copy(source.url, sourceUploads, "--to", target.url, "--batch-rows", "5");
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = jsonResult(resumed);
    expect(report).toMatchObject({ ok: true, resumed: true, verification: { ok: true } });
    for (const [table, rows] of Object.entries(sourceRows))
      expect(report.verification.tables[table].actual.rows, table).toBe(rows);
    const conn = await openConnection(target.url);
    try {
      await expect(conn.rows(`SELECT count(*) FROM "_gateway_copy_progress"`)).rejects.toThrow(); // removed once verified
    } finally {
      await conn.close();
    }
  }, 120_000);
});

describe("a source that changed between an interrupted run and the next", () => {
  it("makes the verification fail (exit 1, the report names the table); --restart copies afresh", async () => {
    // A private copy of the source, to change.
    const changed = sqliteDatabase("gw-copy-changed-");
    removeLater.push(changed.dir);
    for (const suffix of ["", "-wal", "-shm"]) {
      if (existsSync(sqliteFilePath(source.url) + suffix))
        copyFileSync(sqliteFilePath(source.url) + suffix, sqliteFilePath(changed.url) + suffix);
    }
    const target = await fresh();
    const started = startAdmin(
      { DATABASE_URL: changed.url, UPLOAD_DIR: sourceUploads },
      "copy-data",
      "--to",
      target.url,
      "--batch-rows",
      "5",
    );
    let done: string | undefined;
    for (let i = 0; i < 600 && !done; i++) {
      await new Promise((r) => setTimeout(r, 50));
      done = await aCopiedTable(target);
    }
    started.child.kill("SIGKILL");
    await started.finished;
    expect(done, "a table with rows copied in full before the kill").toBeDefined();

    const db = new Database(sqliteFilePath(changed.url));
    db.pragma("foreign_keys = ON");
    db.prepare(`DELETE FROM "${done}" WHERE rowid = (SELECT min(rowid) FROM "${done}")`).run();
    db.close();

    const differing = await copy(changed.url, sourceUploads, "--to", target.url);
    expect(differing.code).toBe(1);
    const report = JSON.parse(differing.stdout.trim());
    expect(report).toMatchObject({ command: "copy-data", ok: false, verification: { ok: false } });
    expect(report.verification.tables[done!].match).toBe(false);
    expect(report.verification.tables[done!].actual.rows).toBe(report.verification.tables[done!].expected.rows + 1);
    expect(differing.stderr.trim().split("\n")).toHaveLength(1);
    expect(differing.stderr).toMatch(
      new RegExp(`^error: the target differs from the source: .*${done}.*run copy-data again with --restart`),
    );

    const again = await copy(changed.url, sourceUploads, "--to", target.url, "--restart");
    expect(again.code, again.stderr).toBe(0);
    expect(jsonResult(again)).toMatchObject({ ok: true, resumed: false, verification: { ok: true } });
  }, 120_000);
});

/** A table the copy into `target` has finished, with rows in it (undefined while there is none). */
async function aCopiedTable(target: TestDatabase): Promise<string | undefined> {
  if (target.provider === "sqlite" && !existsSync(sqliteFilePath(target.url))) return undefined;
  const conn = await openConnection(target.url);
  try {
    const rows = await conn.rows(
      `SELECT table_name FROM "_gateway_copy_progress" WHERE table_name <> '' AND rows_copied > 0 AND done = TRUE`,
    );
    return rows.length ? String(rows[0]![0]) : undefined;
  } catch {
    return undefined;
  } finally {
    await conn.close();
  }
}

/** Rows the copy into `target` has committed so far (0 before its progress table exists). */
async function copiedSoFar(target: TestDatabase): Promise<number> {
  if (target.provider === "sqlite" && !existsSync(sqliteFilePath(target.url))) return 0;
  const conn = await openConnection(target.url);
  try {
    const [[sum]] = (await conn.rows(`SELECT sum(rows_copied) FROM "_gateway_copy_progress"`)) as [[unknown]];
    return Number(sum ?? 0);
  } catch {
    return 0;
  } finally {
    await conn.close();
  }
}

describe("bad input: one line, exit code, nothing changed", () => {
  it("refuses a --to that is not a database URL, an unreachable server, the source itself, and --restart with nothing to restart", async () => {
    const empty = await fresh();
    const cases: [string[], 1 | 2, RegExp][] = [
      [["--to", "mysql://localhost/gateway"], 2, /--to must be a database URL: postgresql:\/\/.* or file:/],
      [[], 2, /copy-data needs --to DATABASE_URL/],
      [
        ["--to", "postgresql://gw:secret@127.0.0.1:1/nowhere"],
        1,
        /cannot connect to postgresql:\/\/gw:\*\*\*@127\.0\.0\.1:1\/nowhere/,
      ],
      [["--to", source.url], 1, /--to names the database DATABASE_URL names/],
      [
        ["--to", empty.url, "--restart"],
        1,
        /--restart empties a target that holds an unfinished copy; this target holds none/,
      ],
      [["--to", empty.url, "--batch-rows", "0"], 2, /--batch-rows must be a whole number from 1 to 10000/],
      [["--to", empty.url, "--pause-ms", "soon"], 2, /--pause-ms must be a whole number from 0 to 60000/],
    ];
    const runs = await eachLimited(cases, 3, ([args]) => copy(source.url, sourceUploads, ...args));
    runs.forEach((run, i) => expectRefusal(run, cases[i]![1], cases[i]![2]));
    expect(runs[2]!.stderr).not.toContain("secret");
    expect(await copiedSoFar(empty)).toBe(0);
  }, 120_000);
});
