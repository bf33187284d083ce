// Another program's objects in a database a data command works on: an `invoices` table of 1,000
// rows, a view over it and, on PostgreSQL, a function (test/helpers/other-program.ts). Restore and
// copy-data refuse such a target, changing nothing; with --overwrite they replace only what is the
// gateway's, say what else is there, and leave it exactly as it was. A backup leaves such objects
// out. What counts as the gateway's is read from its migrations: a freshly migrated database holds
// nothing else. Runs on SQLite and PostgreSQL.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConnection } from "../../src/backup/connection/open.ts";
import { ownership } from "../../src/backup/connection/ownership.ts";
import { gatewayEntries } from "../../src/backup/connection/postgres/archive.ts";
import { findPgTool } from "../../src/backup/connection/postgres/tools.ts";
import { modelTables } from "../../src/backup/connection/tables.ts";
import { migrate } from "../../src/db/migrate.ts";
import { testProvider, type TestDatabase } from "../helpers/database.ts";
import { adminOn, expectRefusal, jsonResult, scratchSpace, serverWithBackup } from "../helpers/data-moves.ts";
import { addOtherProgram, everyObject, otherProgramState } from "../helpers/other-program.ts";
import { runAdminWith } from "../helpers/process.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const PROCESSES = 180_000;
const postgres = testProvider() === "postgres";
const space = scratchSpace();
const scratch = space.folder;
const fresh = space.database;
let source: TestServer;
let backupDir: string;
let restaurants: number;

/** A new database holding the other program's objects and nothing else. */
async function otherProgramsDatabase(): Promise<TestDatabase> {
  const database = await fresh();
  await addOtherProgram(database);
  return database;
}

const restoreInto = (database: TestDatabase, uploads: string, ...more: string[]) =>
  runAdminWith({ DATABASE_URL: database.url, UPLOAD_DIR: uploads }, "restore", backupDir, ...more);
const copyInto = (database: TestDatabase, ...more: string[]) =>
  adminOn(source, "copy-data", "--to", database.url, ...more);

async function countRestaurants(database: TestDatabase): Promise<number> {
  const conn = await openConnection(database.url);
  try {
    return Number((await conn.rows(`SELECT count(*) FROM "Restaurant"`))[0]![0]);
  } finally {
    await conn.close();
  }
}

/** The other program's objects, each named in `text` with its kind. */
function expectOthersNamed(text: string) {
  for (const named of ["invoices (table)", "invoice_totals (view)", ...(postgres ? ["invoice_tax (function)"] : [])])
    expect(text).toContain(named);
}

beforeAll(async () => {
  ({ server: source, backupDir } = await serverWithBackup(space, "foreign", { restaurants: 5 }));
  restaurants = await source.db.prisma.restaurant.count();
}, PROCESSES);

afterAll(async () => {
  await source?.close();
  await space.cleanUp();
});

describe("what is the gateway's", () => {
  it("a freshly migrated database holds nothing that is not the gateway's, and every table of the model is", async () => {
    const database = await fresh();
    await migrate({
      dialect: database.provider,
      url: database.url,
      poolSize: 1,
      poolIdleTimeoutMs: 0,
      sqliteSynchronous: "NORMAL",
    });
    const conn = await openConnection(database.url);
    try {
      const owned = await ownership(conn);
      expect(owned.isGateway).toBe(true);
      expect(owned.foreign).toEqual([]);
      const names = new Set(owned.gateway.map((o) => o.name));
      for (const { name } of modelTables()) expect(names.has(name), name).toBe(true);
    } finally {
      await conn.close();
    }
  });

  it.skipIf(!postgres)("restore keeps every entry of a gateway database's archive (PostgreSQL)", () => {
    const listing = execFileSync(findPgTool("pg_restore", 15), ["--list", path.join(backupDir, "database.pgdump")], {
      encoding: "utf8",
    });
    const { list, leftOut } = gatewayEntries(listing, "public");
    expect(leftOut).toEqual([]);
    expect(list.split("\n").filter(Boolean).length).toBeGreaterThan(100);
  });
});

describe("a backup of a database shared with another program", () => {
  it(
    "leaves the other program's objects out of the backup and names them",
    async () => {
      const shared = await startServer();
      try {
        await addOtherProgram(shared.database);
        const before = await otherProgramState(shared.database);
        const dir = path.join(scratch("gw-foreign-shared-"), "backup");
        const run = await adminOn(shared, "backup", dir);
        expect(run.code, run.stderr).toBe(0);
        expectOthersNamed(jsonResult(run).leftOut.join(", "));
        expect(await otherProgramState(shared.database)).toEqual(before);
        if (postgres) {
          const listing = execFileSync(findPgTool("pg_restore", 15), ["--list", path.join(dir, "database.pgdump")], {
            encoding: "utf8",
          });
          expect(listing).not.toMatch(/TABLE( DATA)? public invoices |VIEW public invoice_totals /);
          // pg_dump cannot leave a function out; restore does.
          expect(gatewayEntries(listing, "public").leftOut).toEqual(["FUNCTION public.invoice_tax(numeric)"]);
        } else {
          const copy = new Database(path.join(dir, "database.sqlite"), { readonly: true });
          try {
            expect(copy.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'invoice%'").all()).toEqual([]);
            expect(readFileSync(path.join(dir, "database.sqlite")).includes("customer 12")).toBe(false);
          } finally {
            copy.close();
          }
        }
      } finally {
        await shared.close();
      }
    },
    PROCESSES,
  );
});

describe("restore into a database holding another program's objects", () => {
  it(
    "is refused, changing nothing; --overwrite replaces only the gateway's data, names the rest and leaves it as it was",
    async () => {
      const target = await otherProgramsDatabase();
      const before = await otherProgramState(target);
      const objectsBefore = await everyObject(target);
      const uploads = path.join(scratch("gw-foreign-uploads-"), "uploads");

      const refused = await restoreInto(target, uploads);
      expectRefusal(refused, 1, /the target database holds what is not the gateway's: .*add --overwrite/);
      expectOthersNamed(refused.stderr);
      expect(await everyObject(target)).toEqual(objectsBefore);
      expect(await otherProgramState(target)).toEqual(before);
      expect(existsSync(uploads)).toBe(false);

      const replaced = await restoreInto(target, uploads, "--overwrite");
      expect(replaced.code, replaced.stderr).toBe(0);
      const json = jsonResult(replaced);
      expect(json).toMatchObject({ command: "restore", ok: true, verification: { ok: true } });
      expectOthersNamed(json.kept.join(", "));
      expect(await otherProgramState(target)).toEqual(before);
      expect(await countRestaurants(target)).toBe(restaurants);

      // Again, over the gateway's data restored there: only that is replaced.
      const again = await restoreInto(target, uploads, "--overwrite");
      expect(again.code, again.stderr).toBe(0);
      expect(await otherProgramState(target)).toEqual(before);
      expect(await countRestaurants(target)).toBe(restaurants);
    },
    PROCESSES,
  );

  it(
    "holding another program's table named like one of the gateway's: refused even with --overwrite",
    async () => {
      const target = await fresh();
      if (target.provider === "sqlite") {
        const db = new Database(target.url.slice("file:".length));
        db.exec(`CREATE TABLE "User" (id INTEGER PRIMARY KEY, email TEXT); INSERT INTO "User" VALUES (1, 'a@b.c')`);
        db.close();
      } else {
        const conn = await openConnection(target.url);
        await conn.run(
          `CREATE TABLE "User" (id integer PRIMARY KEY, email text); INSERT INTO "User" VALUES (1, 'a@b.c')`,
        );
        await conn.close();
      }
      const objectsBefore = await everyObject(target);
      const run = await restoreInto(target, path.join(scratch("gw-foreign-user-"), "uploads"), "--overwrite");
      expectRefusal(run, 1, /the target database holds User \(table\), which another program made/);
      expect(await everyObject(target)).toEqual(objectsBefore);
      const copy = await copyInto(target, "--overwrite");
      expectRefusal(copy, 1, /the target database holds User \(table\), which another program made/);
      expect(await everyObject(target)).toEqual(objectsBefore);
    },
    PROCESSES,
  );

  it.skipIf(!postgres)(
    "another program's view on a gateway table: --overwrite is refused before anything is written (PostgreSQL)",
    async () => {
      const target = await fresh();
      const uploads = path.join(scratch("gw-foreign-view-"), "uploads");
      const first = await restoreInto(target, uploads);
      expect(first.code, first.stderr).toBe(0);
      const conn = await openConnection(target.url);
      await conn.run(`CREATE VIEW user_names AS SELECT "username" FROM "User"`);
      await conn.close();
      const objectsBefore = await everyObject(target);
      const run = await restoreInto(target, uploads, "--overwrite");
      expectRefusal(
        run,
        1,
        /another program's user_names \(view\) on "User" depends on the gateway's tables, which restore replaces/,
      );
      expect(await everyObject(target)).toEqual(objectsBefore);
      expect(await countRestaurants(target)).toBe(restaurants);
    },
    PROCESSES,
  );
});

describe("copy-data into a database holding another program's objects", () => {
  it(
    "is refused, changing nothing; --overwrite fills only the gateway's tables, names the rest and leaves it as it was",
    async () => {
      const target = await otherProgramsDatabase();
      const before = await otherProgramState(target);
      const objectsBefore = await everyObject(target);
      const uploads = path.join(scratch("gw-foreign-copy-"), "uploads");

      const refused = await copyInto(target, "--uploads-to", uploads);
      expectRefusal(refused, 1, /the target database holds what is not the gateway's: .*add --overwrite/);
      expectOthersNamed(refused.stderr);
      expect(await everyObject(target)).toEqual(objectsBefore);
      expect(existsSync(uploads)).toBe(false);

      const filled = await copyInto(target, "--uploads-to", uploads, "--overwrite");
      expect(filled.code, filled.stderr).toBe(0);
      const json = jsonResult(filled);
      expect(json).toMatchObject({ command: "copy-data", ok: true, verification: { ok: true } });
      expectOthersNamed(json.kept.join(", "));
      expect(await otherProgramState(target)).toEqual(before);
      expect(await countRestaurants(target)).toBe(restaurants);

      // A target holding the gateway's data: refused, then replaced with --overwrite.
      expectRefusal(await copyInto(target, "--uploads-to", uploads), 1, /holds what is not the gateway's/);
      const again = await copyInto(target, "--uploads-to", uploads, "--overwrite");
      expect(again.code, again.stderr).toBe(0);
      expect(await otherProgramState(target)).toEqual(before);
      expect(await countRestaurants(target)).toBe(restaurants);
    },
    PROCESSES,
  );
});

describe("a database holding a single object of another program's, and nothing else", () => {
  // Each kind on its own, so that none is let through by another one beside it. SQLite has no
  // sequences or stored functions: a view (it needs no table) stands for them there.
  const lone = postgres
    ? [
        ["sequence", `CREATE SEQUENCE invoice_numbers START 1000`, /invoice_numbers \(sequence\)/],
        [
          "function",
          `CREATE SCHEMA billing; CREATE FUNCTION billing.vat(n numeric) RETURNS numeric LANGUAGE sql AS 'SELECT n * 0.2'`,
          /billing\.vat \(function\)/,
        ],
        ["view", `CREATE VIEW today AS SELECT now() AS at`, /today \(view\)/],
      ]
    : [["view", `CREATE VIEW today AS SELECT datetime('now') AS at`, /today \(view\)/]];
  it(
    "restore and copy-data refuse it, naming it, and change nothing",
    async () => {
      for (const [kind, sql, named] of lone as [string, string, RegExp][]) {
        const target = await fresh();
        if (target.provider === "sqlite") {
          const db = new Database(target.url.slice("file:".length));
          db.exec(sql);
          db.close();
        } else {
          const conn = await openConnection(target.url);
          await conn.run(sql);
          await conn.close();
        }
        const objectsBefore = await everyObject(target);
        const uploads = path.join(scratch(`gw-lone-${kind}-`), "uploads");
        const restored = await restoreInto(target, uploads);
        expectRefusal(restored, 1, /the target database holds what is not the gateway's: .*add --overwrite/);
        expect(restored.stderr, kind).toMatch(named);
        const copied = await copyInto(target, "--uploads-to", uploads);
        expectRefusal(copied, 1, /the target database holds what is not the gateway's: .*add --overwrite/);
        expect(copied.stderr, kind).toMatch(named);
        expect(await everyObject(target), kind).toEqual(objectsBefore);
        expect(existsSync(uploads), kind).toBe(false);
      }
    },
    PROCESSES,
  );
});
