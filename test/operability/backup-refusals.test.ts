// Bad input to `backup` and `restore`, through the real commands: each is refused with one
// `error:` line and an exit code, and changes nothing (no folder created or emptied, no table or
// cover written); a full disk halfway (a small tmpfs) removes the partial output. Also: the
// report on a terminal, and --overwrite. Runs on SQLite and PostgreSQL.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConnection } from "../../src/backup/connection/open.ts";
import { sqliteFilePath } from "../../src/db/sqlite/file.ts";
import { createTestDatabase, testProvider, type TestDatabase } from "../helpers/database.ts";
import {
  CREATE_RESTAURANT,
  createGroceryWithCover,
  eachLimited,
  expectRefusal,
  graphql,
  jsonResult,
  pngWith,
  sqliteDatabase,
  tempDir,
} from "../helpers/data-moves.ts";
import { runAdminWith, startAdmin } from "../helpers/process.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let source: TestServer;
let backupDir: string;
const cleanup: string[] = [];
/** Each test runs the real command line, a process or a dozen (each a fresh Node): generous on a loaded machine. */
const PROCESSES = 300_000;

const backupOf = (database: string, dir: string, uploads = source.config.uploadDir) =>
  runAdminWith({ DATABASE_URL: database, UPLOAD_DIR: uploads }, "backup", dir);
const restoreInto = (database: string, uploads: string, dir: string, ...more: string[]) =>
  runAdminWith({ DATABASE_URL: database, UPLOAD_DIR: uploads }, "restore", dir, ...more);

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** A folder of our own for this test file. */
function scratch(prefix: string) {
  const dir = tempDir(prefix);
  cleanup.push(dir);
  return dir;
}

/** Whether `database` holds any table at all (restore refused = not even migrated). */
async function hasTables(database: TestDatabase): Promise<boolean> {
  if (database.provider === "sqlite") return existsSync(sqliteFilePath(database.url));
  const conn = await openConnection(database.url);
  try {
    return Number((await conn.rows(`SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`))[0]![0]) > 0;
  } finally {
    await conn.close();
  }
}

/** 200 restaurants, ~400 KB of text that does not compress (pg_dump's archive is compressed), three covers of ~60 KB. */
async function fill(server: TestServer) {
  const user = await server.signUp("filler");
  for (let i = 0; i < 200; i++) {
    const description = randomBytes(1500).toString("base64"); // 2,000 characters, the most a description takes
    const created = await graphql(
      server,
      CREATE_RESTAURANT,
      { input: { title: `Filler ${i}`, description } },
      user.token,
    );
    expect(created.body.data?.createRestaurant?.id, JSON.stringify(created.body.errors)).toBeDefined();
  }
  for (let i = 0; i < 3; i++) {
    expect(
      await createGroceryWithCover(server, user.token, `cover ${i}`, pngWith(randomBytes(30_000).toString("hex"))),
    ).toBeDefined();
  }
  return user;
}

beforeAll(async () => {
  source = await startServer();
  await fill(source);
  backupDir = path.join(scratch("gw-refusals-"), "backup");
  const run = await backupOf(source.database.url, backupDir);
  expect(run.code, run.stderr).toBe(0);
}, 2 * PROCESSES); // 200 restaurants through the API, then a backup: slow on a loaded machine

afterAll(async () => {
  await source?.close();
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

describe("backup refuses, creating nothing", () => {
  it(
    "a folder that is not empty, or not a folder",
    async () => {
      const dir = scratch("gw-not-empty-");
      writeFileSync(path.join(dir, "keep.txt"), "mine");
      const file = path.join(dir, "keep.txt");
      const [notEmpty, notFolder] = await Promise.all([
        backupOf(source.database.url, dir),
        backupOf(source.database.url, file),
      ]);
      expectRefusal(notEmpty, 1, /is not empty: a backup goes into a new or empty folder/);
      expectRefusal(notFolder, 1, /exists and is not a folder/);
      expect(readdirSync(dir)).toEqual(["keep.txt"]);
      expect(readFileSync(file, "utf8")).toBe("mine");
    },
    PROCESSES,
  );

  it(
    "a folder on a filesystem that takes no new folders (/proc): at once, with the reason",
    async () => {
      const started = startAdmin(
        { DATABASE_URL: source.database.url, UPLOAD_DIR: source.config.uploadDir },
        "backup",
        "/proc/bk",
      );
      const timer = setTimeout(() => started.child.kill("SIGKILL"), 60_000); // it once never ended
      const run = await started.finished;
      clearTimeout(timer);
      expectRefusal(run, 1, /cannot create \/proc\/bk: \/proc does not take new folders/);
    },
    PROCESSES,
  );

  it(
    "a database URL that is wrong, unreachable, missing or not a gateway database",
    async () => {
      const parent = scratch("gw-no-folder-");
      const notGateway = path.join(parent, "other.db");
      writeFileSync(notGateway, "");
      const cases: [string, 1 | 2, RegExp][] = [
        [
          "mysql://localhost/gateway",
          2,
          /invalid setting: DATABASE_URL="mysql:\/\/localhost\/gateway": must start with file:/,
        ],
        [
          "postgresql://gw:secret@127.0.0.1:1/nowhere",
          1,
          /cannot connect to postgresql:\/\/gw:\*\*\*@127\.0\.0\.1:1\/nowhere/,
        ],
        [`file:${path.join(parent, "missing.db")}`, 1, /there is no SQLite database at .*missing\.db/],
        [`file:${notGateway}`, 1, /is not a gateway database \(it has no migrations table\)/],
      ];
      const runs = await eachLimited(cases, 3, ([url], i) => backupOf(url, path.join(parent, `backup-${i}`)));
      runs.forEach((run, i) => expectRefusal(run, cases[i]![1], cases[i]![2]));
      expect(readdirSync(parent)).toEqual(["other.db"]);
    },
    PROCESSES,
  );
});

describe("restore refuses, changing nothing", () => {
  let target: TestDatabase;
  let uploads: string;
  beforeAll(async () => {
    target = await createTestDatabase();
    uploads = path.join(scratch("gw-restore-uploads-"), "uploads");
  });
  afterAll(async () => target?.drop());

  /** A copy of the good backup, changed by `damage`. */
  function damaged(damage: (dir: string) => void): string {
    const dir = path.join(scratch("gw-damaged-"), "backup");
    cpSync(backupDir, dir, { recursive: true });
    damage(dir);
    return dir;
  }
  /** An edited manifest, its checksum file written to match (as by hand: damage it does not find). */
  const editManifest = (edit: (m: any) => void) => (dir: string) => {
    const file = path.join(dir, "manifest.json");
    const manifest = JSON.parse(readFileSync(file, "utf8"));
    edit(manifest);
    writeFileSync(file, JSON.stringify(manifest));
    writeFileSync(path.join(dir, "manifest.sha256"), `${sha256(readFileSync(file))}  manifest.json\n`);
  };

  it(
    "folders that are not backups, damaged backups, newer schemas and formats",
    async () => {
      const empty = scratch("gw-empty-");
      const cases: [string, RegExp][] = [
        [path.join(empty, "missing"), /gw-empty-\w+\/missing does not exist$/],
        [empty, /is not a backup: it has no manifest\.json \(an unfinished backup has none\)/],
        [
          damaged((dir) => rmSync(path.join(dir, "manifest.sha256"))),
          /is not a complete backup: it has no manifest\.sha256/,
        ],
        [
          damaged((dir) => {
            // A table's checksum edited in the manifest, its own checksum left as it was.
            const file = path.join(dir, "manifest.json");
            const manifest = JSON.parse(readFileSync(file, "utf8"));
            manifest.tables.find((t: { name: string }) => t.name === "Restaurant").checksum = "0".repeat(64);
            writeFileSync(file, JSON.stringify(manifest, null, 2));
          }),
          /is damaged: manifest\.json does not match its checksum \(manifest\.sha256\)/,
        ],
        [
          damaged((dir) => {
            writeFileSync(path.join(dir, "manifest.json"), "{ not json");
            writeFileSync(path.join(dir, "manifest.sha256"), `${sha256(Buffer.from("{ not json"))}  manifest.json\n`);
          }),
          /is not a backup: manifest\.json is not JSON/,
        ],
        [
          damaged(editManifest((m) => (m.format = "tarball"))),
          /is not a backup: manifest\.json is not a gateway backup manifest/,
        ],
        [
          damaged(editManifest((m) => m.migrations.push("29991231000000_from_the_future"))),
          /holds a newer schema \(migration 29991231000000_from_the_future\) than this version knows/,
        ],
        [damaged(editManifest((m) => (m.formatVersion = 3))), /was written in backup format 3 by a newer gateway/],
        [damaged(editManifest((m) => delete m.tables)), /is not a valid backup: manifest\.json tables/],
        [
          damaged(editManifest((m) => (m.database.file = "../../../etc/passwd"))),
          /is not a valid backup: its database file must be database\.(sqlite|pgdump)/,
        ],
        [
          damaged((dir) => {
            const file = path.join(
              dir,
              readdirSync(dir).find((f) => f.startsWith("database."))!,
            );
            const bytes = readFileSync(file);
            bytes[bytes.length >> 1] ^= 0xff;
            writeFileSync(file, bytes);
          }),
          /is damaged: database\.(sqlite|pgdump) does not match its checksum/,
        ],
        [
          damaged((dir) => rmSync(path.join(dir, "uploads", readdirSync(path.join(dir, "uploads"))[0]!))),
          /is damaged: 1 covers are missing from uploads\//,
        ],
        [
          damaged((dir) => {
            // The last cover in name order: one that a restore copying them in order would reach last.
            const file = path.join(dir, "uploads", readdirSync(path.join(dir, "uploads")).sort().at(-1)!);
            const bytes = readFileSync(file);
            bytes[bytes.length - 1] ^= 0xff;
            writeFileSync(file, bytes);
          }),
          /is damaged: 1 covers in uploads\/ do not match their checksums/,
        ],
      ];
      const runs = await eachLimited(cases, 3, ([dir]) => restoreInto(target.url, uploads, dir));
      runs.forEach((run, i) => expectRefusal(run, 1, cases[i]![1]));
      expect(await hasTables(target)).toBe(false);
      expect(existsSync(uploads)).toBe(false);
    },
    PROCESSES,
  );

  it(
    "a backup of the other kind of database",
    async () => {
      const other =
        source.database.provider === "sqlite" ? "postgresql://postgres@127.0.0.1:1/elsewhere" : sqliteDatabase().url;
      const run = await restoreInto(other, uploads, backupDir);
      expectRefusal(
        run,
        1,
        source.database.provider === "sqlite"
          ? /is a SQLite backup: restore it into SQLite/
          : /is a PostgreSQL backup: restore it into PostgreSQL/,
      );
      expect(existsSync(uploads)).toBe(false);
    },
    PROCESSES,
  );

  it(
    "a database that is not empty; --overwrite replaces its data with the backup's",
    async () => {
      const run = await restoreInto(source.database.url, uploads, backupDir);
      expectRefusal(
        run,
        1,
        /the target database is not empty \(User, .*\): restore into an empty database, or add --overwrite/,
      );
      expect(existsSync(uploads)).toBe(false);

      const other = await startServer();
      try {
        const stranger = await other.signUp("stranger");
        const replaced = await restoreInto(other.database.url, other.config.uploadDir, backupDir, "--overwrite");
        expect(replaced.code, replaced.stderr).toBe(0);
        expect(jsonResult(replaced)).toMatchObject({ command: "restore", ok: true, verification: { ok: true } });
        expect(await other.db.prisma.user.findUnique({ where: { id: stranger.id } })).toBeNull();
        expect(await other.db.prisma.restaurant.count()).toBe(await source.db.prisma.restaurant.count());
      } finally {
        await other.close();
      }
    },
    PROCESSES,
  );
});

describe("restore's verification", () => {
  it(
    "a table that does not match the manifest: the report names it, exit 1",
    async () => {
      const dir = path.join(scratch("gw-mismatch-"), "backup");
      cpSync(backupDir, dir, { recursive: true });
      // Edited with its checksum to match (a forgery: the checksums find damage, not that), so the
      // restore writes, and the verification afterwards finds the difference.
      const file = path.join(dir, "manifest.json");
      const manifest = JSON.parse(readFileSync(file, "utf8"));
      manifest.tables.find((t: { name: string }) => t.name === "Restaurant").checksum = "0".repeat(64);
      writeFileSync(file, JSON.stringify(manifest));
      writeFileSync(path.join(dir, "manifest.sha256"), `${sha256(readFileSync(file))}  manifest.json\n`);
      const target = await createTestDatabase();
      try {
        const run = await restoreInto(target.url, path.join(scratch("gw-mismatch-uploads-"), "uploads"), dir);
        expect(run.code).toBe(1);
        const report = JSON.parse(run.stdout.trim());
        expect(report).toMatchObject({
          command: "restore",
          ok: false,
          verification: { ok: false, tables: { Restaurant: { match: false }, User: { match: true } } },
        });
        expect(run.stderr.trim()).toMatch(
          /^error: the restored data differs from the backup: Restaurant \(200 rows expected, 200 found, contents differ\); the restored data stays as it is: restore again with --overwrite, or from another backup$/,
        );
      } finally {
        await target.drop();
      }
    },
    PROCESSES,
  );
});

describe("a cover a row names but the upload folder lacks", () => {
  it(
    "is reported by backup (counted, named in the manifest), and restore expects the others only",
    async () => {
      const uploads = path.join(scratch("gw-absent-"), "uploads");
      cpSync(source.config.uploadDir, uploads, { recursive: true });
      const lost = readdirSync(uploads)[0]!;
      rmSync(path.join(uploads, lost));
      const dir = path.join(scratch("gw-absent-backup-"), "backup");
      const run = await backupOf(source.database.url, dir, uploads);
      expect(run.code, run.stderr).toBe(0);
      expect(jsonResult(run).covers).toMatchObject({ files: 2, dangling: 1 });
      expect(JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")).uploads).toMatchObject({
        files: 2,
        danglingCount: 1,
        dangling: [lost],
      });
      const target = await createTestDatabase();
      try {
        const restored = await restoreInto(target.url, path.join(scratch("gw-absent-restored-"), "uploads"), dir);
        expect(restored.code, restored.stderr).toBe(0);
        expect(jsonResult(restored).verification).toMatchObject({ ok: true, covers: { expected: 2, present: 2 } });
      } finally {
        await target.drop();
      }
    },
    PROCESSES,
  );
});

describe("on a terminal", () => {
  const hasScript = spawnSync("script", ["--version"]).status === 0;
  // `script` (util-linux, in every Debian) gives the command a pseudo-terminal.
  it.skipIf(!hasScript)(
    "backup draws its progress and ends with a readable summary instead of JSON",
    () => {
      const dir = path.join(scratch("gw-tty-"), "backup");
      const root = fileURLToPath(new URL("../..", import.meta.url));
      const command = `${JSON.stringify(process.execPath)} --import tsx src/cli/admin.ts backup ${JSON.stringify(dir)}`;
      const out = execFileSync("script", ["-qec", command, "/dev/null"], {
        cwd: root,
        env: {
          ...process.env,
          DATABASE_URL: source.database.url,
          UPLOAD_DIR: source.config.uploadDir,
          NODE_ENV: "test",
        },
        encoding: "utf8",
      });
      expect(out).toMatch(/\r\x1b\[Kcovers +\[[#-]+\] +\d+% \d+\/\d+ files/);
      expect(out).toMatch(/database +\[#+\] 100% [\d,]+\/[\d,]+ pages|database \(pg_dump\)/);
      expect(out).toMatch(/checksums +\[#+\] 100% 20\d\/20\d rows/);
      expect(out).toMatch(/backup written to .* in \d+\.\d s \(snapshot at /);
      expect(out).not.toMatch(/^\{"command"/m);
      expect(existsSync(path.join(dir, "manifest.json"))).toBe(true);
    },
    PROCESSES,
  );
});

// A real full filesystem: a tmpfs mounted for the test (root, where the sandbox allows mounts:
// CI's fresh machine runs as root; the probe below says whether this one may). Without it these
// tests are skipped, as are storage-failures.test.ts's.
const canMount = (() => {
  const probe = mkdtempSync(path.join(tmpdir(), "gw-mount-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe], { stdio: "ignore" });
    execFileSync("umount", [probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

describe.skipIf(!canMount)("a full disk halfway (a small tmpfs)", () => {
  const mounted: string[] = [];
  /** A folder on a new tmpfs of `size` (e.g. "256k"), unmounted after these tests. */
  function smallDisk(size: string): string {
    const dir = scratch("gw-full-");
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]);
    mounted.push(dir);
    return dir;
  }
  afterAll(() => {
    for (const dir of mounted) execFileSync("umount", ["-l", dir]);
  });

  it(
    "backup: fails with one line saying the disk is full and removes the partial backup",
    async () => {
      const disk = smallDisk("256k");
      const run = await backupOf(source.database.url, path.join(disk, "backup"));
      expectRefusal(run, 1, /the disk is full \(.*\); the partial backup was removed/);
      expect(readdirSync(disk)).toEqual([]);
      // An existing empty folder is emptied again, not removed.
      mkdirSync(path.join(disk, "given"));
      expectRefusal(await backupOf(source.database.url, path.join(disk, "given")), 1, /the disk is full/);
      expect(readdirSync(disk)).toEqual(["given"]);
      expect(readdirSync(path.join(disk, "given"))).toEqual([]);
    },
    PROCESSES,
  );

  it(
    "restore: covers onto a full disk; nothing restored, the covers it added removed, an upload folder it created too",
    async () => {
      const target = await createTestDatabase();
      try {
        // Two of the three ~60 KB covers do not fit: into the disk's root, then into a folder the restore creates.
        for (const uploads of ["", "uploads"]) {
          const disk = smallDisk("64k");
          const run = await restoreInto(target.url, path.join(disk, uploads), backupDir);
          expectRefusal(
            run,
            1,
            /the disk is full \(.*\); nothing was restored: the database and the upload folder are as they were/,
          );
          expect(readdirSync(disk), uploads).toEqual([]);
          expect(await hasTables(target)).toBe(false);
        }
      } finally {
        await target.drop();
      }
    },
    PROCESSES,
  );

  it(
    "backup: a read-only filesystem is named as such, at once",
    async () => {
      const dir = scratch("gw-readonly-");
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]);
      mounted.push(dir);
      mkdirSync(path.join(dir, "given"));
      execFileSync("mount", ["-o", "remount,ro", dir]);
      const [fresh, given] = await Promise.all([
        backupOf(source.database.url, path.join(dir, "backup")),
        backupOf(source.database.url, path.join(dir, "given")),
      ]);
      expectRefusal(fresh, 1, /cannot create .*\/backup: .* is on a read-only filesystem/);
      expectRefusal(given, 1, /cannot use .*\/given: .*given is on a read-only filesystem/);
      expect(readdirSync(dir)).toEqual(["given"]);
    },
    PROCESSES,
  );

  it(
    "restore: a file of other content under a cover's name is refused, and with --overwrite put back when the restore fails",
    async () => {
      const target = await createTestDatabase();
      try {
        const disk = smallDisk("64k");
        const [first] = readFileSync(path.join(backupDir, "uploads.sha256"), "utf8").split("\n");
        const name = first!.split("  ")[1]!;
        writeFileSync(path.join(disk, name), "another program's file");
        const refused = await restoreInto(target.url, disk, backupDir);
        expectRefusal(
          refused,
          1,
          /holds 1 files under the names of the backup's covers, with other content .*--overwrite/,
        );
        const failed = await restoreInto(target.url, disk, backupDir, "--overwrite");
        expectRefusal(
          failed,
          1,
          /the disk is full \(.*\); nothing was restored: the database and the upload folder are as they were/,
        );
        expect(readdirSync(disk)).toEqual([name]);
        expect(readFileSync(path.join(disk, name), "utf8")).toBe("another program's file");
        expect(await hasTables(target)).toBe(false);
      } finally {
        await target.drop();
      }
    },
    PROCESSES,
  );

  it.skipIf(testProvider() === "postgres")(
    "restore (SQLite): the database onto a full disk; no database file left",
    async () => {
      const disk = smallDisk("256k");
      const run = await restoreInto(`file:${path.join(disk, "gateway.db")}`, scratch("gw-full-uploads-"), backupDir);
      expectRefusal(run, 1, /the disk is full \(.*\); nothing was restored/);
      expect(readdirSync(disk)).toEqual([]);
    },
    PROCESSES,
  );
});
