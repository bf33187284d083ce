// `npm run admin -- backup` while the real server takes a steady stream of writes (comments,
// orders, groceries with covers), then `restore` into an empty database: every write acknowledged
// before the snapshot is there and none started after the backup ended, ratings equal the sum of
// their comments, no row refers to a missing one, each cover is there byte for byte and no file
// without a row; a server on the restored database is ready and a token issued before the backup
// still signs its user in. Runs on SQLite (online backup API) and PostgreSQL (pg_dump).
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client.ts";
import type { Db } from "../../src/db/db.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import {
  ADD_COMMENT,
  CREATE_RESTAURANT,
  createGroceryWithCover,
  graphql,
  jsonResult,
  ORDER,
  orphanRows,
  pngWith,
  ratingMismatches,
  tempDir,
} from "../helpers/data-moves.ts";
import { runAdminWith } from "../helpers/process.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

type Write = { kind: "comment" | "order" | "grocery"; id: string; startedAt: number; ackedAt: number; cover?: string };

let source: TestServer;
let backupDir: string;
let restoredUploads: string;
let target: TestDatabase;
let db: Db;
const writes: Write[] = [];
const started: { kind: Write["kind"]; startedAt: number; title: string }[] = [];
let tokenBefore: { token: string; id: string };
let linked: { issuer: string; subject: string; userId: string; createdAt: Date };
let backupJson: any;
let restoreJson: any;
let backupEndedAt: number;

beforeAll(async () => {
  source = await startServer();
  tokenBefore = await source.signUp("early");
  // The link an identity provider's sign-in makes (OIDC): its table is backed up like the others.
  linked = await source.db.prisma.providerIdentity.create({
    data: { issuer: "https://id.example.test", subject: "sub-early", userId: (await source.signUp("linked")).id },
  });
  const writer = await source.signUp("writer");
  const restaurants: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await graphql(
      source,
      CREATE_RESTAURANT,
      { input: { title: `Backed up ${i}`, categories: ["a", "b"], openingHours: [{ open: "09:00", close: "17:00" }] } },
      writer.token,
    );
    restaurants.push(r.body.data.createRestaurant.id);
  }

  // Three writers, one per kind of write, each sending one write after another until told to stop.
  let stop = false;
  let n = 0;
  const loop =
    (kind: Write["kind"], send: (title: string) => Promise<{ id: string; cover?: string } | undefined>) => async () => {
      while (!stop) {
        const title = `${kind}-${n++}`;
        const startedAt = Date.now();
        started.push({ kind, startedAt, title });
        const done = await send(title);
        if (done) writes.push({ kind, ...done, startedAt, ackedAt: Date.now() });
      }
    };
  const pick = () => restaurants[Math.floor(Math.random() * restaurants.length)];
  const load = Promise.all([
    loop("comment", async (title) => {
      const r = await graphql(
        source,
        ADD_COMMENT,
        { id: pick(), input: { title, body: "steady", rating: 1 + Math.floor(Math.random() * 5) } },
        writer.token,
      );
      return r.body.data?.addComment;
    })(),
    loop(
      "order",
      async (title) =>
        (await graphql(source, ORDER, { input: { restaurantId: pick(), recipe: title } }, writer.token)).body.data
          ?.orderRecipe,
    )(),
    loop("grocery", (title) => createGroceryWithCover(source, writer.token, title, pngWith(title)))(),
  ]);
  const acknowledged = async (count: number) => {
    while (writes.length < count) await new Promise((r) => setTimeout(r, 10));
  };

  await acknowledged(30);
  backupDir = path.join(tempDir("gw-backup-"), "backup");
  const backupRun = await runAdminWith(
    { DATABASE_URL: source.database.url, UPLOAD_DIR: source.config.uploadDir },
    "backup",
    backupDir,
  );
  backupEndedAt = Date.now();
  expect(backupRun.code, backupRun.stderr).toBe(0);
  backupJson = jsonResult(backupRun);
  const afterBackup = writes.length;
  await acknowledged(afterBackup + 15); // the load goes on after the backup
  stop = true;
  await load;

  target = await createTestDatabase();
  restoredUploads = path.join(tempDir("gw-restored-"), "uploads");
  const restoreRun = await runAdminWith(
    { DATABASE_URL: target.url, UPLOAD_DIR: restoredUploads },
    "restore",
    backupDir,
  );
  expect(restoreRun.code, restoreRun.stderr).toBe(0);
  restoreJson = jsonResult(restoreRun);
  db = createDb({
    dialect: target.provider,
    url: target.url,
    poolSize: 2,
    poolIdleTimeoutMs: 0,
    sqliteSynchronous: "FULL",
  });
}, 180_000);

afterAll(async () => {
  await db?.close();
  await source?.close();
  await target?.drop();
  if (backupDir) rmSync(path.dirname(backupDir), { recursive: true, force: true });
  if (restoredUploads) rmSync(path.dirname(restoredUploads), { recursive: true, force: true });
});

describe("a backup taken under a steady write load, restored into an empty database", () => {
  it("the backup reports what it holds: a snapshot time inside the load, rows per table, covers", () => {
    expect(backupJson).toMatchObject({ command: "backup", ok: true, provider: source.database.provider });
    const snapshotAt = Date.parse(backupJson.snapshotAt);
    expect(
      writes.some((w) => w.ackedAt < snapshotAt),
      "writes before the snapshot",
    ).toBe(true);
    expect(
      writes.some((w) => w.startedAt > snapshotAt),
      "writes after the snapshot",
    ).toBe(true);
    expect(backupJson.covers.files).toBe(readdirSync(path.join(backupDir, "uploads")).length);
    expect(statSync(backupDir).mode & 0o777, "password and token hashes: the owner's only").toBe(0o700);
    const manifest = JSON.parse(readFileSync(path.join(backupDir, "manifest.json"), "utf8"));
    expect(manifest.tables.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(["User", "AccessToken", "ProviderIdentity", "Restaurant", "Comment", "Grocery"]),
    );
    expect(manifest.tables.find((t: { name: string }) => t.name === "ProviderIdentity").rows).toBe(1);
  });

  it("an account an identity provider signed in keeps its link to the provider's subject", async () => {
    expect(await db.prisma.providerIdentity.findMany()).toEqual([linked]);
  });

  it("every write acknowledged before the snapshot is restored, none started after the backup ended", async () => {
    const snapshotAt = Date.parse(backupJson.snapshotAt);
    const ids = {
      comment: new Set((await db.prisma.comment.findMany({ select: { id: true } })).map((r) => r.id)),
      order: new Set((await db.prisma.order.findMany({ select: { id: true } })).map((r) => r.id)),
      grocery: new Set((await db.prisma.grocery.findMany({ select: { id: true } })).map((r) => r.id)),
    };
    const before = writes.filter((w) => w.ackedAt <= snapshotAt);
    expect(before.length).toBeGreaterThan(10);
    for (const w of before)
      expect(ids[w.kind].has(w.id), `${w.kind} ${w.id} acknowledged before the snapshot`).toBe(true);
    const late = writes.filter((w) => w.startedAt > backupEndedAt);
    expect(late.length).toBeGreaterThan(0);
    for (const w of late) expect(ids[w.kind].has(w.id), `${w.kind} ${w.id} started after the backup`).toBe(false);
    const titles = new Set([
      ...(await db.prisma.comment.findMany({ select: { title: true } })).map((c) => c.title),
      ...(await db.prisma.order.findMany({ select: { recipe: true } })).map((o) => o.recipe),
    ]);
    expect(started.filter((s) => s.startedAt > backupEndedAt && s.kind !== "grocery" && titles.has(s.title))).toEqual(
      [],
    );
  });

  it("ratings equal the sum of their comments, foreign keys hold, and the report says every table matches", async () => {
    expect(await ratingMismatches(db)).toEqual([]);
    expect(await orphanRows(db)).toBe(0);
    expect(restoreJson.ok).toBe(true);
    expect(restoreJson.verification.ok).toBe(true);
    for (const [name, t] of Object.entries<any>(restoreJson.verification.tables)) expect(t.match, name).toBe(true);
    if (target.provider === "sqlite") expect(restoreJson.verification.foreignKeyViolations).toBe(0);
  });

  it("each restored grocery has its cover, byte for byte, and no file is there without a row", async () => {
    const groceries = await db.prisma.grocery.findMany({ where: { cover: { not: null } }, select: { cover: true } });
    expect(groceries.length).toBeGreaterThan(0);
    for (const { cover } of groceries) {
      const original = path.join(source.config.uploadDir, cover!);
      expect(readFileSync(path.join(restoredUploads, cover!)).equals(readFileSync(original)), cover!).toBe(true);
    }
    expect(readdirSync(restoredUploads).sort()).toEqual(groceries.map((g) => g.cover!).sort());
    expect(readdirSync(path.join(backupDir, "uploads")).sort()).toEqual(groceries.map((g) => g.cover!).sort());
  });

  it("a server on the restored database is ready, serves the covers, finds text, and a token issued before the backup still works", async () => {
    const restored = await startServer(
      { UPLOAD_DIR: restoredUploads },
      { database: { ...target, drop: async () => {} } },
    );
    try {
      const ready = await restored.fetch("/readyz");
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: "ok", database: "ok", uploads: "ok" });
      const me = await restored.graphql(`{ me { id } }`, {}, tokenBefore.token);
      expect(me.data?.me?.id).toBe(tokenBefore.id);
      const found = await restored.graphql(
        `{ restaurants(filter: { search: "backed" }) { nodes { title } } }`,
        {},
        tokenBefore.token,
      );
      expect(found.data?.restaurants?.nodes, JSON.stringify(found.errors)).toHaveLength(5);
      const { cover } = await db.prisma.grocery.findFirstOrThrow({
        where: { cover: { not: null } },
        select: { cover: true },
      });
      // The last request closes its connection: a keep-alive one still finishing when close() starts would hold it open.
      const served = await restored.fetch(`/uploads/${cover}`, { headers: { connection: "close" } });
      expect(served.status).toBe(200);
      expect(
        Buffer.from(await served.arrayBuffer()).equals(readFileSync(path.join(source.config.uploadDir, cover!))),
      ).toBe(true);
    } finally {
      await restored.close();
    }
  }, 120_000);
});
