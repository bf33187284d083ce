// backup, restore and copy-data with covers in an S3-compatible bucket (s3rver on 127.0.0.1),
// through the real commands, on the database under test (SQLite, or PostgreSQL in that run):
// a folder's covers backed up and restored into a bucket, a bucket's backed up and restored into a
// folder, copy-data into a bucket and back out of it with equal checksums, a cover replaced while
// the backup runs still restorable (the race of issue 44, src/storage/bucket-covers.ts), a cover
// missing from the bucket failing the backup, and the attacker's view: restore and copy-data
// pointed at a bucket they were not meant for (none, wrong keys, another program's objects,
// another deployment's covers) refuse in one line and change nothing.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConnection } from "../../src/backup/connection/open.ts";
import {
  createGroceryWithCover,
  expectRefusal,
  jsonResult,
  pngWith,
  replaceCover,
  scratchSpace,
} from "../helpers/data-moves.ts";
import { runAdminWith } from "../helpers/process.ts";
import { adminClient, bucketSettings, startS3Server, type S3Server } from "../helpers/s3-server.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const PROCESSES = 240_000;
const space = scratchSpace();
let s3: S3Server;
let admin: S3Client;
const FILESYSTEM = { UPLOAD_STORE: "filesystem" };

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** A bucket's keys, sorted. */
async function keysIn(bucket: string, prefix = ""): Promise<string[]> {
  const listed = await admin.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

async function objectBytes(bucket: string, key: string): Promise<Buffer> {
  const got = await admin.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await got.Body!.transformToByteArray());
}

/** Every object under `prefix` (name without it -> SHA-256). */
async function bucketChecksums(bucket: string, prefix = ""): Promise<Record<string, string>> {
  const sums: Record<string, string> = {};
  for (const key of await keysIn(bucket, prefix))
    sums[key.slice(prefix.length)] = sha256(await objectBytes(bucket, key));
  return sums;
}

/** Every file of a folder (name -> SHA-256), dot-names left out. */
function folderChecksums(dir: string): Record<string, string> {
  const sums: Record<string, string> = {};
  for (const name of readdirSync(dir).sort())
    if (!name.startsWith(".")) sums[name] = sha256(readFileSync(path.join(dir, name)));
  return sums;
}

/** The covers the groceries of a database name. */
async function coversNamed(url: string): Promise<string[]> {
  const conn = await openConnection(url);
  try {
    return (await conn.rows(`SELECT "cover" FROM "Grocery" WHERE "cover" IS NOT NULL`)).map(([c]) => String(c)).sort();
  } finally {
    await conn.close();
  }
}

/** Rows in the gateway's groceries table; 0 when it has none (or no such table yet). */
async function groceryRows(url: string): Promise<number> {
  const conn = await openConnection(url).catch(() => undefined);
  if (!conn) return 0;
  try {
    return Number((await conn.rows(`SELECT count(*) FROM "Grocery"`))[0]![0]);
  } catch {
    return 0;
  } finally {
    await conn.close();
  }
}

/** A server whose covers are in `store` (a fresh bucket, or its own folder), with `covers` groceries with covers. */
async function serverWithCovers(name: string, store: Record<string, string>, covers: number) {
  const server = await startServer(store);
  const owner = await server.signUp(name);
  const bytes = new Map<string, Buffer>();
  for (let i = 0; i < covers; i++) {
    const tag = `${name} cover ${i} ${"x".repeat(2000)}`;
    const created = await createGroceryWithCover(server, owner.token, `${name} ${i}`, pngWith(tag));
    expect(created, `${name} ${i}`).toBeDefined();
    bytes.set(created!.cover, Buffer.from(pngWith(tag)));
  }
  return { server, owner, bytes };
}

/** The admin command on `server`'s database with its store's settings (and `extra`). */
const adminOf = (server: TestServer, extra: Record<string, string>, ...args: string[]) =>
  runAdminWith(
    {
      DATABASE_URL: server.database.url,
      UPLOAD_DIR: server.config.uploadDir,
      ...FILESYSTEM,
      ...server.storeSettings,
      ...extra,
    },
    ...args,
  );

const newBackupDir = (name: string) => path.join(space.folder(`gw-bucket-${name}-`), "backup");

/** A backup of `server` through the command, which must succeed with `covers` covers; its folder. */
async function backupOf(server: TestServer, name: string, covers: number): Promise<string> {
  const dir = newBackupDir(name);
  const run = await adminOf(server, {}, "backup", dir);
  expect(run.code, run.stderr).toBe(0);
  expect(jsonResult(run).covers).toMatchObject({ files: covers, dangling: 0 });
  return dir;
}

/** name -> SHA-256 of each cover's bytes. */
const checksumsOf = (covers: Map<string, Buffer>) =>
  Object.fromEntries([...covers].map(([name, bytes]) => [name, sha256(bytes)]));
const newUploadDir = (name: string) => path.join(space.folder(`gw-bucket-${name}-`), "uploads");

beforeAll(async () => {
  s3 = await startS3Server();
  admin = adminClient(s3.endpoint);
});

afterAll(async () => {
  admin?.destroy();
  await space.cleanUp();
  await s3?.close();
});

describe("backup and restore with covers in a bucket", () => {
  let folderServer: Awaited<ReturnType<typeof serverWithCovers>>;
  let bucketServer: Awaited<ReturnType<typeof serverWithCovers>>;
  beforeAll(async () => {
    folderServer = await serverWithCovers("folder", FILESYSTEM, 3);
    bucketServer = await serverWithCovers("bucket", await bucketSettings(s3, { S3_PREFIX: "covers/" }), 3);
  }, PROCESSES);
  afterAll(async () => {
    await folderServer?.server.close();
    await bucketServer?.server.close();
  });

  it(
    "a folder's backup restores into a bucket: every cover there byte for byte, checked, and served from it",
    async () => {
      const dir = await backupOf(folderServer.server, "from-folder", 3);

      const target = await space.database();
      const bucket = await bucketSettings(s3, { S3_PREFIX: "restored/" });
      const run = await runAdminWith(
        { DATABASE_URL: target.url, UPLOAD_DIR: newUploadDir("unused"), ...bucket },
        "restore",
        dir,
      );
      expect(run.code, run.stderr).toBe(0);
      const json = jsonResult(run);
      expect(json).toMatchObject({ ok: true, coversAdded: 3, coversReplaced: 0 });
      expect(json.verification.covers).toMatchObject({ expected: 3, present: 3, missing: [], differing: [] });
      const expected = checksumsOf(folderServer.bytes);
      expect(await bucketChecksums(bucket.S3_BUCKET, "restored/")).toEqual(expected);
      expect(await keysIn(bucket.S3_BUCKET)).toEqual(
        Object.keys(expected)
          .map((n) => `restored/${n}`)
          .sort(),
      );

      const restored = await startServer(bucket, { database: target });
      try {
        for (const [name, bytes] of folderServer.bytes) {
          const served = await restored.fetch(`/uploads/${name}`);
          expect(served.status, name).toBe(200);
          expect(Buffer.from(await served.arrayBuffer()).equals(bytes), name).toBe(true);
        }
      } finally {
        await restored.close();
      }
    },
    PROCESSES,
  );

  it(
    "a bucket's backup holds its covers (checksummed as files are) and restores into a folder",
    async () => {
      const dir = await backupOf(bucketServer.server, "from-bucket", 3);
      const expected = checksumsOf(bucketServer.bytes);
      expect(folderChecksums(path.join(dir, "uploads"))).toEqual(expected);
      const lines = readFileSync(path.join(dir, "uploads.sha256"), "utf8");
      expect(lines).toBe(
        Object.entries(expected)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([name, sum]) => `${sum}  ${name}\n`)
          .join(""),
      );

      const target = await space.database();
      const uploads = newUploadDir("restored");
      const run = await runAdminWith({ DATABASE_URL: target.url, UPLOAD_DIR: uploads, ...FILESYSTEM }, "restore", dir);
      expect(run.code, run.stderr).toBe(0);
      expect(jsonResult(run)).toMatchObject({ ok: true, coversAdded: 3 });
      expect(folderChecksums(uploads)).toEqual(expected);
      expect(await coversNamed(target.url)).toEqual(Object.keys(expected).sort());
    },
    PROCESSES,
  );

  it(
    "a cover the rows name that is not in the bucket fails the backup (exit 1), unless --allow-missing-covers",
    async () => {
      const { server, owner } = bucketServer;
      const gone = await createGroceryWithCover(server, owner.token, "soon gone", pngWith("soon gone"));
      const settings = server.storeSettings;
      await admin.send(new DeleteObjectCommand({ Bucket: settings.S3_BUCKET, Key: `covers/${gone!.cover}` }));
      const parent = space.folder("gw-bucket-missing-");
      const refused = await adminOf(server, {}, "backup", path.join(parent, "backup"));
      expectRefusal(
        refused,
        1,
        new RegExp(
          `1 covers the snapshot's rows name are not in s3://${settings.S3_BUCKET}/covers/ \\(e\\.g\\. ${gone!.cover}\\).*--allow-missing-covers`,
        ),
      );
      expect(readdirSync(parent)).toEqual([]); // the partial backup removed

      const dir = newBackupDir("allowed");
      const allowed = await adminOf(server, {}, "backup", dir, "--allow-missing-covers");
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(jsonResult(allowed).covers).toMatchObject({ files: 3, dangling: 1 });
    },
    PROCESSES,
  );
});

describe("a cover replaced in the bucket while the backup runs", () => {
  it(
    "is still in the backup: each backup restored serves every cover its snapshot names, byte for byte",
    async () => {
      const { server, owner, bytes } = await serverWithCovers("race", await bucketSettings(s3), 40);
      try {
        const target = await createGroceryWithCover(server, owner.token, "replaced", pngWith("replaced start"));
        bytes.set(target!.cover, Buffer.from(pngWith("replaced start")));
        let stop = false;
        const replacedAt: number[] = [];
        const replacing = (async () => {
          for (let i = 0; !stop; i++) {
            const tag = `replaced ${i}`;
            const name = await replaceCover(server, owner.token, target!.id, pngWith(tag));
            if (name) {
              bytes.set(name, Buffer.from(pngWith(tag)));
              replacedAt.push(Date.now());
            }
          }
        })();
        const backups: { dir: string; startedAt: number; endedAt: number }[] = [];
        try {
          for (let i = 0; i < 2; i++) {
            const dir = newBackupDir("race");
            const startedAt = Date.now();
            const run = await adminOf(server, {}, "backup", dir);
            expect(run.code, run.stderr).toBe(0);
            backups.push({ dir, startedAt, endedAt: Date.now() });
          }
        } finally {
          stop = true;
          await replacing;
        }
        for (const backup of backups) {
          const during = replacedAt.filter((at) => at > backup.startedAt && at < backup.endedAt);
          expect(during.length, "covers replaced while the backup ran").toBeGreaterThan(3);
          const database = await space.database();
          const uploads = newUploadDir("race-restored");
          const run = await runAdminWith(
            { DATABASE_URL: database.url, UPLOAD_DIR: uploads, ...FILESYSTEM },
            "restore",
            backup.dir,
          );
          expect(run.code, run.stderr).toBe(0);
          const covers = await coversNamed(database.url);
          expect(covers.length).toBe(41);
          for (const name of covers)
            expect(readFileSync(path.join(uploads, name)).equals(bytes.get(name)!), name).toBe(true);
        }
        // The replaced covers were kept under .removed/ while the backups held, and are not served.
        const bucket = server.storeSettings.S3_BUCKET!;
        const removed = await keysIn(bucket, ".removed/");
        expect(removed.length).toBeGreaterThan(0);
        expect((await server.fetch(`/${removed[0]!.replace(".removed/", "uploads/")}`)).status).toBe(404);
        expect(await keysIn(bucket, ".backup-holds/")).toEqual([]); // released
      } finally {
        await server.close();
      }
    },
    PROCESSES,
  );
});

describe("copy-data into a bucket and out of it", () => {
  let source: Awaited<ReturnType<typeof serverWithCovers>>;
  let expected: Record<string, string>;
  let bucket: string;
  let s3Access: Record<string, string>;
  beforeAll(async () => {
    source = await serverWithCovers("copied", FILESYSTEM, 3);
    expected = checksumsOf(source.bytes);
    const settings = await bucketSettings(s3);
    bucket = settings.S3_BUCKET;
    // The S3_* settings reach the store; the source's covers stay in its folder (UPLOAD_STORE unset).
    const { UPLOAD_STORE: _store, S3_BUCKET: _bucket, ...access } = settings;
    s3Access = access;
  }, PROCESSES);
  afterAll(async () => source?.server.close());

  it(
    "--uploads-to s3://bucket/prefix copies the folder's covers with equal checksums; run again, it copies nothing twice",
    async () => {
      const target = await space.database();
      const run = await adminOf(
        source.server,
        s3Access,
        "copy-data",
        "--to",
        target.url,
        "--uploads-to",
        `s3://${bucket}/moved`,
      );
      expect(run.code, run.stderr).toBe(0);
      const json = jsonResult(run);
      expect(json).toMatchObject({ ok: true, coversCopied: 3 });
      expect(json.verification.covers).toMatchObject({ expected: 3, present: 3, missing: [], differing: [] });
      expect(await bucketChecksums(bucket, "moved/")).toEqual(expected);

      const again = await adminOf(
        source.server,
        s3Access,
        "copy-data",
        "--to",
        target.url,
        "--uploads-to",
        `s3://${bucket}/moved/`,
        "--overwrite",
      );
      expect(again.code, again.stderr).toBe(0);
      expect(jsonResult(again)).toMatchObject({ ok: true, coversCopied: 0 });
      expect(await keysIn(bucket)).toEqual(
        Object.keys(expected)
          .map((n) => `moved/${n}`)
          .sort(),
      );

      // And back: from the copy, covers in that bucket, into a folder.
      const back = await space.database();
      const uploads = newUploadDir("back");
      const returned = await runAdminWith(
        {
          DATABASE_URL: target.url,
          UPLOAD_DIR: newUploadDir("unused"),
          UPLOAD_STORE: "s3",
          S3_BUCKET: bucket,
          S3_PREFIX: "moved/",
          ...s3Access,
        },
        "copy-data",
        "--to",
        back.url,
        "--uploads-to",
        uploads,
      );
      expect(returned.code, returned.stderr).toBe(0);
      expect(jsonResult(returned)).toMatchObject({ ok: true, coversCopied: 3 });
      expect(folderChecksums(uploads)).toEqual(expected);
      expect(await coversNamed(back.url)).toEqual(Object.keys(expected).sort());
    },
    PROCESSES,
  );

  describe("pointed at a bucket it was not meant for: one line, exit 2, nothing changed", () => {
    const refusedCopy = async (settings: Record<string, string>, uploadsTo: string) => {
      const target = await space.database();
      const run = await adminOf(source.server, settings, "copy-data", "--to", target.url, "--uploads-to", uploadsTo);
      expect(await groceryRows(target.url)).toBe(0);
      return run;
    };

    it(
      "a bucket that does not exist",
      async () => {
        const run = await refusedCopy(s3Access, "s3://no-such-bucket/covers");
        expectRefusal(run, 2, /s3:\/\/no-such-bucket\/covers\/: the bucket no-such-bucket does not exist/);
      },
      PROCESSES,
    );

    it(
      "keys the store refuses",
      async () => {
        const run = await refusedCopy(
          { ...s3Access, S3_ACCESS_KEY_ID: "WRONG", S3_SECRET_ACCESS_KEY: "wrong" },
          `s3://${bucket}/other`,
        );
        expectRefusal(run, 2, /refused these keys/);
        expect(await keysIn(bucket, "other/")).toEqual([]);
      },
      PROCESSES,
    );

    it(
      "a bucket holding another program's objects",
      async () => {
        const { S3_BUCKET: theirs } = await bucketSettings(s3);
        await admin.send(new PutObjectCommand({ Bucket: theirs, Key: "invoices/2026-11.pdf", Body: "%PDF" }));
        const run = await refusedCopy(s3Access, `s3://${theirs}`);
        expectRefusal(run, 2, /holds objects that are not covers \(e\.g\. invoices\/2026-11\.pdf\)/);
        expect(await keysIn(theirs)).toEqual(["invoices/2026-11.pdf"]);
      },
      PROCESSES,
    );

    it(
      "a bad bucket name or prefix (the command line)",
      async () => {
        expectRefusal(await refusedCopy(s3Access, "s3://Not_A_Bucket/x"), 2, /not a bucket name/);
        expectRefusal(await refusedCopy(s3Access, `s3://${bucket}/../x`), 2, /prefix must be folder names/);
      },
      PROCESSES,
    );
  });
});

describe("restore pointed at a bucket it was not meant for", () => {
  let backupDir: string;
  let covers: Map<string, Buffer>;
  beforeAll(async () => {
    const made = await serverWithCovers("restored", FILESYSTEM, 2);
    covers = made.bytes;
    backupDir = await backupOf(made.server, "for-restore", 2);
    await made.server.close();
  }, PROCESSES);

  const restoreInto = async (bucket: Record<string, string>, ...options: string[]) => {
    const target = await space.database();
    const run = await runAdminWith(
      { DATABASE_URL: target.url, UPLOAD_DIR: newUploadDir("unused"), ...bucket },
      "restore",
      backupDir,
      ...options,
    );
    return { run, target };
  };

  it(
    "a bucket that does not exist, or refuses the keys: exit 2, the database left empty",
    async () => {
      const settings = await bucketSettings(s3);
      for (const [bad, message] of [
        [{ S3_BUCKET: "no-such-bucket" }, /the bucket no-such-bucket does not exist/],
        [{ S3_ACCESS_KEY_ID: "WRONG" }, /refused these keys/],
      ] as const) {
        const { run, target } = await restoreInto({ ...settings, ...bad });
        expectRefusal(run, 2, message);
        expect(await groceryRows(target.url)).toBe(0);
      }
      expect(await keysIn(settings.S3_BUCKET)).toEqual([]);
    },
    PROCESSES,
  );

  it(
    "another deployment's covers, another program's objects, a cover's name with other content: refused, the bucket as it was",
    async () => {
      const settings = await bucketSettings(s3);
      const bucket = settings.S3_BUCKET;
      const theirs = "0123456789abcdef0123456789abcdef.png";
      await admin.send(new PutObjectCommand({ Bucket: bucket, Key: theirs, Body: "their cover" }));
      const other = await restoreInto(settings);
      expectRefusal(
        other.run,
        1,
        new RegExp(`holds 1 covers that are not the ones written here \\(e\\.g\\. ${theirs}\\).*--overwrite`),
      );
      expect(await groceryRows(other.target.url)).toBe(0);
      expect(await keysIn(bucket)).toEqual([theirs]);

      await admin.send(new DeleteObjectCommand({ Bucket: bucket, Key: theirs }));
      await admin.send(new PutObjectCommand({ Bucket: bucket, Key: "notes.txt", Body: "not a cover" }));
      const program = await restoreInto(settings, "--overwrite");
      expectRefusal(program.run, 2, /holds objects that are not covers \(e\.g\. notes\.txt\)/);
      expect(await groceryRows(program.target.url)).toBe(0);

      await admin.send(new DeleteObjectCommand({ Bucket: bucket, Key: "notes.txt" }));
      const [name] = [...covers.keys()];
      await admin.send(new PutObjectCommand({ Bucket: bucket, Key: name, Body: "other content" }));
      const collision = await restoreInto(settings);
      expectRefusal(collision.run, 1, /holds 1 files under the names of the backup's covers, with other content/);
      expect(await groceryRows(collision.target.url)).toBe(0);
      expect((await objectBytes(bucket, name!)).toString()).toBe("other content");
      expect(await keysIn(bucket)).toEqual([name]);

      // --overwrite replaces it, and restores.
      const replaced = await restoreInto(settings, "--overwrite");
      expect(replaced.run.code, replaced.run.stderr).toBe(0);
      expect(jsonResult(replaced.run)).toMatchObject({ ok: true, coversAdded: 1, coversReplaced: 1 });
      for (const [cover, bytes] of covers) expect((await objectBytes(bucket, cover)).equals(bytes), cover).toBe(true);
      expect(existsSync(backupDir)).toBe(true);
    },
    PROCESSES,
  );
});
