// Every admin command pointed at what it was not meant for (the attacker's view): another
// program's database (an `invoices` table of 1,000 rows, a view and, on PostgreSQL, a function;
// on SQLite a file in its own rollback-journal mode), folders holding other files, and a running
// service under write load. Each is refused with one line, or does its work; either way nothing
// another program owns changes (a SQLite file stays byte for byte the same, with no -wal file
// beside it), and without an explicit flag nothing is replaced. Runs on SQLite and PostgreSQL.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqliteFilePath } from "../../src/db/sqlite/file.ts";
import type { TestDatabase } from "../helpers/database.ts";
import {
  ADD_COMMENT,
  adminOn,
  eachLimited,
  expectRefusal,
  graphql,
  jsonResult,
  scratchSpace,
  serverWithBackup,
} from "../helpers/data-moves.ts";
import { addOtherProgram, everyObject, otherProgramState } from "../helpers/other-program.ts";
import { runAdminWith } from "../helpers/process.ts";
import type { TestServer } from "../helpers/server.ts";

const PROCESSES = 300_000;
const space = scratchSpace();
const scratch = space.folder;
const fresh = space.database;
let source: TestServer;
let backupDir: string;

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** Everything that tells whether another program's database changed. */
async function fingerprintOf(database: TestDatabase) {
  const file = database.provider === "sqlite" ? sqliteFilePath(database.url) : undefined;
  return {
    objects: await everyObject(database),
    state: await otherProgramState(database),
    ...(file
      ? { bytes: sha256(file), beside: readdirSync(path.dirname(file)).filter((f) => f !== path.basename(file)) }
      : {}),
  };
}

beforeAll(async () => {
  ({ server: source, backupDir } = await serverWithBackup(space, "targets"));
}, PROCESSES);

afterAll(async () => {
  await source?.close();
  await space.cleanUp();
});

describe("every admin command pointed at another program's database", () => {
  it(
    "is refused with one line, and the database stays exactly as it was",
    async () => {
      const other = await fresh();
      await addOtherProgram(other);
      const before = await fingerprintOf(other);
      const elsewhere = await fresh();
      const uploads = path.join(scratch("gw-targets-uploads-"), "uploads");
      const on = { DATABASE_URL: other.url, UPLOAD_DIR: uploads };
      const notGateways =
        /is not the gateway's database: it holds .*invoices \(table\).* and none of the gateway's migrations/;
      const cases: [string[], RegExp][] = [
        [["create", "boss", "--password", "a-long-password"], notGateways],
        [["promote", "ann"], notGateways],
        [["demote", "ann"], notGateways],
        [["revoke-tokens", "ann"], notGateways],
        [["grant-badge", "r1", "Best of Town"], notGateways],
        [["revoke-badge", "r1", "Best of Town"], notGateways],
        [["reports"], notGateways],
        [["resolve-report", "r1", "--as", "boss"], notGateways],
        [["backup", path.join(scratch("gw-targets-out-"), "backup")], /is not a gateway database/],
        [["restore", backupDir], /the target database holds what is not the gateway's: .*invoices \(table\)/],
        [["copy-data", "--to", elsewhere.url], /is not a gateway database/],
      ];
      const runs = await eachLimited(cases, 3, ([args]) => runAdminWith(on, ...args));
      runs.forEach((run, i) => expectRefusal(run, 1, cases[i]![1]));
      // copy-data into it, from the gateway's database.
      const into = await adminOn(source, "copy-data", "--to", other.url);
      expectRefusal(into, 1, /the target database holds what is not the gateway's: .*add --overwrite/);
      expect(await fingerprintOf(other)).toEqual(before);
      expect(existsSync(uploads)).toBe(false);
      expect(await everyObject(elsewhere)).toEqual([]);
    },
    PROCESSES,
  );
});

describe("folders holding other files", () => {
  it(
    "restore puts the covers beside the other files and replaces none without --overwrite; copy-data --uploads-to the same",
    async () => {
      const uploads = path.join(scratch("gw-targets-mixed-"), "uploads");
      mkdirSync(uploads);
      writeFileSync(path.join(uploads, "notes.txt"), "mine");
      const name = readFileSync(path.join(backupDir, "uploads.sha256"), "utf8").split("\n")[0]!.split("  ")[1]!;
      writeFileSync(path.join(uploads, name), "also mine");
      const target = await fresh();

      const restored = await runAdminWith({ DATABASE_URL: target.url, UPLOAD_DIR: uploads }, "restore", backupDir);
      expectRefusal(restored, 1, /holds 1 files under the names of the backup's covers, with other content/);
      expect(readdirSync(uploads).sort()).toEqual([name, "notes.txt"].sort());
      expect(readFileSync(path.join(uploads, name), "utf8")).toBe("also mine");

      const copied = await adminOn(source, "copy-data", "--to", target.url, "--uploads-to", uploads);
      expectRefusal(copied, 1, new RegExp(`holds ${name} with other content than the source's cover .*--overwrite`));
      expect(readFileSync(path.join(uploads, name), "utf8")).toBe("also mine");
      expect(await everyObject(target)).toEqual([]);

      const replaced = await runAdminWith(
        { DATABASE_URL: target.url, UPLOAD_DIR: uploads },
        "restore",
        backupDir,
        "--overwrite",
      );
      expect(replaced.code, replaced.stderr).toBe(0);
      expect(jsonResult(replaced)).toMatchObject({ ok: true, coversReplaced: 1 });
      expect(readFileSync(path.join(uploads, "notes.txt"), "utf8")).toBe("mine");
      expect(readFileSync(path.join(uploads, name))).toEqual(readFileSync(path.join(backupDir, "uploads", name)));
    },
    PROCESSES,
  );
});

describe("the commands of the running service's own database, under write load", () => {
  it(
    "account and badge commands do their work while comments keep being written; no acknowledged write is lost",
    async () => {
      const writer = await source.signUp("writer");
      const bystander = await source.signUp("bystander");
      const restaurant = (await source.db.prisma.restaurant.findFirstOrThrow({ select: { id: true } })).id;
      let stop = false;
      const acknowledged: string[] = [];
      const writing = (async () => {
        for (let i = 0; !stop; i++) {
          const r = await graphql(
            source,
            ADD_COMMENT,
            { id: restaurant, input: { title: `steady ${i}`, body: "on", rating: 4 } },
            writer.token,
          );
          if (r.body.data?.addComment) acknowledged.push(r.body.data.addComment.id);
        }
      })();
      const on = { DATABASE_URL: source.database.url, UPLOAD_DIR: source.config.uploadDir };
      try {
        for (const args of [
          ["revoke-tokens", bystander.username],
          ["grant-badge", restaurant, "Under load"],
          ["promote", bystander.username],
          ["reports"],
        ]) {
          const run = await runAdminWith(on, ...args);
          expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(0);
        }
      } finally {
        stop = true;
        await writing;
      }
      expect(acknowledged.length).toBeGreaterThan(0);
      // Read back by title, not `id IN (…)`: a quiet machine acknowledges more comments than
      // SQLite's statement takes parameters.
      const stored = await source.db.prisma.comment.findMany({
        where: { title: { startsWith: "steady " } },
        select: { id: true },
      });
      const storedIds = new Set(stored.map((comment) => comment.id));
      expect(acknowledged.filter((id) => !storedIds.has(id))).toEqual([]);
      expect(
        (
          await graphql(
            source,
            `
              {
                me {
                  id
                }
              }
            `,
            {},
            writer.token,
          )
        ).body.data.me.id,
      ).toBe(writer.id);
      expect(
        (
          await graphql(
            source,
            `
              {
                me {
                  id
                }
              }
            `,
            {},
            bystander.token,
          )
        ).body.data?.me ?? null,
      ).toBeNull();
    },
    PROCESSES,
  );
});
