// A backup never misses a cover its snapshot names, however the running service changes covers
// meanwhile: with one cover replaced in a tight loop and groceries created then deleted, through
// the real HTTP server, while `npm run admin -- backup` runs (a separate process), each backup is
// restored and every grocery in it has its cover, byte for byte; so has a copy-data run meanwhile.
// A cover that was there at the snapshot but cannot be copied fails the backup (exit 1); a name
// that no file answered already at the snapshot is reported apart, as dangling. Runs on SQLite
// and PostgreSQL.
import { existsSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConnection } from "../../src/backup/connection/open.ts";
import {
  adminOn,
  createGroceryWithCover,
  DELETE_GROCERY,
  expectRefusal,
  graphql,
  jsonResult,
  pngWith,
  replaceCover,
  scratchSpace,
} from "../helpers/data-moves.ts";
import { runAdminWith } from "../helpers/process.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const PROCESSES = 240_000;
const space = scratchSpace();
const scratch = space.folder;
const fresh = space.database;
let server: TestServer;
let owner: { token: string; id: string };
/** Every cover the service acknowledged: its file name -> the tag its bytes carry (pngWith). */
const uploaded = new Map<string, string>();

const backupOf = (server: TestServer, dir: string) => adminOn(server, "backup", dir);

/** A grocery with a cover whose bytes carry `title` and `padding` (so that covers differ and weigh). */
async function groceryWithCover(api: TestServer, token: string, title: string, padding = "") {
  const tag = `${title}${padding}`;
  const created = await createGroceryWithCover(api, token, title, pngWith(tag));
  expect(created, title).toBeDefined();
  uploaded.set(created!.cover, tag);
  return created!;
}

beforeAll(async () => {
  server = await startServer();
  owner = await server.signUp("covers");
  // Covers enough that copying them takes a while: the window the service's changes fall into.
  for (let i = 0; i < 120; i++)
    await groceryWithCover(server, owner.token, `filler ${i}`, randomBytes(8000).toString("hex"));
}, PROCESSES);

afterAll(async () => {
  await server?.close();
  await space.cleanUp();
});

/** Restores `backupDir` into a new database and folder; the covers its groceries name, and that folder. */
async function restored(backupDir: string): Promise<{ covers: string[]; uploads: string }> {
  const target = await fresh();
  const uploads = path.join(scratch("gw-covers-restored-"), "uploads");
  const run = await runAdminWith({ DATABASE_URL: target.url, UPLOAD_DIR: uploads }, "restore", backupDir);
  expect(run.code, run.stderr).toBe(0);
  const conn = await openConnection(target.url);
  try {
    const rows = await conn.rows(`SELECT "cover" FROM "Grocery" WHERE "cover" IS NOT NULL`);
    return { covers: rows.map(([cover]) => String(cover)), uploads };
  } finally {
    await conn.close();
  }
}

describe("covers the running service replaces and deletes while backups run", () => {
  it(
    "each backup holds every cover its snapshot names, and its restore serves them byte for byte",
    async () => {
      const target = await groceryWithCover(server, owner.token, "replaced");
      let stop = false;
      const changes: number[] = [];
      const replacing = (async () => {
        for (let i = 0; !stop; i++) {
          const tag = `replaced ${i}`;
          const name = await replaceCover(server, owner.token, target.id, pngWith(tag));
          if (name) {
            uploaded.set(name, tag);
            changes.push(Date.now());
          }
        }
      })();
      const churning = (async () => {
        for (let i = 0; !stop; i++) {
          const created = await groceryWithCover(server, owner.token, `short-lived ${i}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
          const deleted = await graphql(server, DELETE_GROCERY, { id: created.id }, owner.token);
          expect(deleted.body.errors, JSON.stringify(deleted.body.errors)).toBeUndefined();
          changes.push(Date.now());
        }
      })();

      const backups: { dir: string; json: any; startedAt: number; endedAt: number }[] = [];
      const copy = { target: await fresh(), uploads: path.join(scratch("gw-covers-copy-"), "uploads") };
      let copied: any;
      try {
        for (let i = 0; i < 2; i++) {
          const dir = path.join(scratch("gw-covers-backup-"), "backup");
          const startedAt = Date.now();
          const run = await backupOf(server, dir);
          expect(run.code, run.stderr).toBe(0);
          backups.push({ dir, json: jsonResult(run), startedAt, endedAt: Date.now() });
        }
        // copy-data from the running service, too: its snapshot's covers are held the same way.
        const run = await adminOn(server, "copy-data", "--to", copy.target.url, "--uploads-to", copy.uploads);
        expect(run.code, run.stderr).toBe(0);
        copied = jsonResult(run);
      } finally {
        stop = true;
        await Promise.all([replacing, churning]);
      }
      expect(copied.verification.covers).toMatchObject({ missing: [], differing: [], dangling: 0 });
      const conn = await openConnection(copy.target.url);
      try {
        const covers = (await conn.rows(`SELECT "cover" FROM "Grocery" WHERE "cover" IS NOT NULL`)).map(String);
        expect(covers.filter((name) => !existsSync(path.join(copy.uploads, name)))).toEqual([]);
      } finally {
        await conn.close();
      }

      for (const backup of backups) {
        const during = changes.filter((at) => at > backup.startedAt && at < backup.endedAt);
        expect(during.length, "covers changed while the backup ran").toBeGreaterThan(5);
        const { covers, uploads } = await restored(backup.dir);
        expect(covers.length).toBeGreaterThan(120);
        const missing = covers.filter((name) => !existsSync(path.join(uploads, name)));
        expect(missing, `covers the snapshot names but the backup of ${backup.json.snapshotAt} lacks`).toEqual([]);
        for (const name of covers) {
          expect(readFileSync(path.join(uploads, name)).equals(Buffer.from(pngWith(uploaded.get(name)!))), name).toBe(
            true,
          );
        }
        expect(backup.json.covers).toMatchObject({ files: covers.length, dangling: 0 });
      }
    },
    PROCESSES,
  );
});

describe("a cover the snapshot names that is not in the upload folder", () => {
  let other: TestServer;
  let otherOwner: { token: string; id: string };
  beforeAll(async () => {
    other = await startServer();
    otherOwner = await other.signUp("dangling");
  });
  afterAll(async () => other?.close());

  it(
    "there at the snapshot but unreadable: the backup fails (exit 1), names it, and removes the partial folder",
    async () => {
      const kept = await groceryWithCover(other, otherOwner.token, "kept");
      const broken = await groceryWithCover(other, otherOwner.token, "broken");
      // A name in the folder whose file cannot be read (a link to nowhere): there, but not copyable.
      rmSync(path.join(other.config.uploadDir, broken.cover));
      symlinkSync("/nonexistent/cover.png", path.join(other.config.uploadDir, broken.cover));
      const parent = scratch("gw-covers-unreadable-");
      const run = await backupOf(other, path.join(parent, "backup"));
      expectRefusal(
        run,
        1,
        new RegExp(`cover ${broken.cover} was in the upload folder at the snapshot but could not be copied`),
      );
      expect(readdirSync(parent)).toEqual([]);
      rmSync(path.join(other.config.uploadDir, broken.cover));
      expect(existsSync(path.join(other.config.uploadDir, kept.cover))).toBe(true);
    },
    PROCESSES,
  );

  it(
    "missing already at the snapshot: the backup succeeds and reports it apart, as a dangling reference",
    async () => {
      // The file of "broken" is gone since the test before: the database's own dangling reference.
      const dir = path.join(scratch("gw-covers-dangling-"), "backup");
      const run = await backupOf(other, dir);
      expect(run.code, run.stderr).toBe(0);
      const json = jsonResult(run);
      expect(json.covers).toMatchObject({ files: 1, dangling: 1 });
      const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
      expect(manifest.uploads).toMatchObject({ files: 1, danglingCount: 1 });
      expect(manifest.uploads.dangling).toHaveLength(1);
    },
    PROCESSES,
  );
});
