// The demo data seeder (`npm run seed`): what it loads into a fresh database, that ratings agree
// with comments, that covers are real PNG files the server serves, that a second run adds and
// changes nothing, that every run generates the same data, and its density setting (--cities).
// Runs on SQLite and PostgreSQL.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { crc32, inflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client.ts";
import type { Db } from "../../src/db/db.ts";
import { migrate } from "../../src/db/migrate.ts";
import { verifyPassword } from "../../src/domain/accounts/passwords.ts";
import { registrationInput } from "../../src/domain/accounts/users.ts";
import { restaurant, SEED_CITIES, SIZES } from "../../src/seed/dataset.ts";
import { seed, type SeedReport } from "../../src/seed/seed.ts";
import { sweepUploads } from "../../src/storage/sweep.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PASSWORD = "seed-test-password";
const SMALL = SIZES.small;

/** Every seeded table, in a stable order, so two snapshots can be compared row for row. */
async function snapshot(db: Db) {
  return {
    users: await db.prisma.user.findMany({ orderBy: { id: "asc" } }),
    badges: await db.prisma.badge.findMany({ orderBy: { id: "asc" } }),
    restaurants: await db.prisma.restaurant.findMany({ orderBy: { id: "asc" } }),
    restaurantTags: await db.prisma.restaurantTag.findMany({
      orderBy: [{ restaurantId: "asc" }, { kind: "asc" }, { position: "asc" }],
    }),
    openingHours: await db.prisma.openingHours.findMany({ orderBy: [{ restaurantId: "asc" }, { position: "asc" }] }),
    restaurantBadges: await db.prisma.restaurantBadge.findMany({
      orderBy: [{ restaurantId: "asc" }, { badgeId: "asc" }],
    }),
    comments: await db.prisma.comment.findMany({ orderBy: { id: "asc" } }),
    orders: await db.prisma.order.findMany({ orderBy: { id: "asc" } }),
    reports: await db.prisma.report.findMany({ orderBy: { id: "asc" } }),
    groceries: await db.prisma.grocery.findMany({ orderBy: { id: "asc" } }),
    groceryTags: await db.prisma.groceryTag.findMany({
      orderBy: [{ groceryId: "asc" }, { kind: "asc" }, { position: "asc" }],
    }),
    shoppingListEntries: await db.prisma.shoppingListEntry.findMany({
      orderBy: [{ userId: "asc" }, { groceryId: "asc" }],
    }),
  };
}

const files = (dir: string) =>
  readdirSync(dir)
    .sort()
    .map((name) => ({
      name,
      size: statSync(path.join(dir, name)).size,
      mtimeMs: statSync(path.join(dir, name)).mtimeMs,
    }));

/** Reads a PNG the long way (chunks, CRCs, inflated pixel data) and returns its size; throws if anything is off. */
function readPng(bytes: Buffer): { width: number; height: number } {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (!bytes.subarray(0, 8).equals(signature)) throw new Error("no PNG signature");
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString("latin1", at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    const crc = bytes.readUInt32BE(at + 8 + length);
    if (crc !== crc32(bytes.subarray(at + 4, at + 8 + length))) throw new Error(`bad CRC in ${type}`);
    chunks.push({ type, data });
    at += 12 + length;
  }
  const [header] = chunks;
  if (header?.type !== "IHDR" || chunks.at(-1)?.type !== "IEND") throw new Error("chunks out of order");
  const width = header.data.readUInt32BE(0);
  const height = header.data.readUInt32BE(4);
  if (header.data[8] !== 8 || header.data[9] !== 2) throw new Error("expected 8-bit RGB");
  const pixels = inflateSync(Buffer.concat(chunks.filter((c) => c.type === "IDAT").map((c) => c.data)));
  if (pixels.length !== (width * 3 + 1) * height) throw new Error(`pixel data has ${pixels.length} bytes`);
  return { width, height };
}

describe("seeding a fresh database (small)", () => {
  let s: TestServer;
  let first: SeedReport;
  let second: SeedReport;
  let before: Awaited<ReturnType<typeof snapshot>>;
  let after: Awaited<ReturnType<typeof snapshot>>;
  let filesBefore: ReturnType<typeof files>;
  let filesAfter: ReturnType<typeof files>;

  beforeAll(async () => {
    s = await startServer();
    const options = { size: "small" as const, uploadDir: s.config.uploadDir, password: PASSWORD };
    first = await seed(s.db, options);
    before = await snapshot(s.db);
    filesBefore = files(s.config.uploadDir);
    second = await seed(s.db, options);
    after = await snapshot(s.db);
    filesAfter = files(s.config.uploadDir);
  });
  afterAll(async () => s?.close());

  it("loads the expected numbers of rows and reports them", async () => {
    expect(before.users).toHaveLength(SMALL.users + 2);
    expect(before.restaurants).toHaveLength(SMALL.restaurants);
    expect(before.groceries).toHaveLength(SMALL.groceries);
    expect(before.badges.length).toBeGreaterThanOrEqual(5);
    expect(before.comments.length).toBeGreaterThan(SMALL.restaurants); // tens to hundreds
    expect(before.orders.length).toBeGreaterThan(0);
    expect(before.shoppingListEntries.length).toBeGreaterThan(0);
    for (const [table, rows] of Object.entries(before))
      expect(first.inserted[table as keyof SeedReport["inserted"]], table).toBe(rows.length);
    expect(first.inserted.files).toBe(SMALL.restaurants + SMALL.groceries + before.badges.length);
  });

  it("a second run inserts nothing and changes nothing (rows and files)", () => {
    expect(Object.values(second.inserted).every((n) => n === 0)).toBe(true);
    expect(after).toEqual(before);
    expect(filesAfter).toEqual(filesBefore);
  });

  it("the upload sweep keeps every seeded cover (restaurants' and badges' too) and removes only a stray file", async () => {
    const stray = path.join(s.config.uploadDir, `${"f".repeat(32)}.png`);
    writeFileSync(stray, "not referenced");
    const removed = await sweepUploads(s.db, s.store, 0);
    expect(removed).toEqual([path.basename(stray)]);
    // Removed files are kept a while in .removed, for a backup that may need them (src/storage/folder/local-covers.ts).
    expect(files(s.config.uploadDir).filter((f) => f.name !== ".removed")).toEqual(filesAfter);
    expect(readdirSync(path.join(s.config.uploadDir, ".removed"))).toEqual([path.basename(stray)]);
  });

  it("keeps every restaurant's rating totals exactly equal to its comments", async () => {
    const totals = await s.db.prisma.comment.groupBy({
      by: ["restaurantId"],
      _sum: { rating: true },
      _count: { _all: true },
    });
    let rated = 0;
    for (const r of before.restaurants) {
      const t = totals.find((x) => x.restaurantId === r.id);
      const sum = t?._sum.rating ?? 0;
      const count = t?._count._all ?? 0;
      expect({ id: r.id, sum: r.ratingSum, count: r.ratingCount, avg: r.ratingAvg }).toEqual({
        id: r.id,
        sum,
        count,
        avg: count ? sum / count : null,
      });
      if (count) rated++;
    }
    expect(rated).toBeGreaterThan(SMALL.restaurants / 2);
    expect(before.comments.every((c) => c.rating >= 1 && c.rating <= 5)).toBe(true);
  });

  it("gives restaurants the variety a demo needs", () => {
    expect(new Set(before.restaurants.map((r) => r.city)).size).toBeGreaterThanOrEqual(5);
    expect(
      before.restaurants.every(
        (r) => r.latitude !== null && r.longitude !== null && r.citySearch === r.city!.toLowerCase(),
      ),
    ).toBe(true);
    expect(new Set(before.restaurantTags.map((t) => t.kind))).toEqual(
      new Set(["TYPE", "CATEGORY", "CUISINE", "PAYMENT_METHOD", "PRICE_RANGE", "DISH"]),
    );
    expect(before.restaurantTags.every((t) => t.valueKey === t.value.trim().toLowerCase())).toBe(true);
    expect(before.openingHours.some((h) => h.close < h.open)).toBe(true); // some run past midnight
    expect(
      before.openingHours.every(
        (h) => /^([01]\d|2[0-3]):[0-5]\d$/.test(h.open) && /^([01]\d|2[0-3]):[0-5]\d$/.test(h.close),
      ),
    ).toBe(true);
    expect(before.restaurantBadges.length).toBeGreaterThan(0);
    expect(
      new Set(before.groceryTags.filter((t) => t.kind === "CATEGORY").map((t) => t.value)).size,
    ).toBeGreaterThanOrEqual(8);
    expect(before.groceryTags.some((t) => t.kind === "METRIC_UNIT")).toBe(true);
    // Seeded accounts obey the sign-up rules, so they can sign in and be edited like any other.
    for (const u of before.users)
      expect(registrationInput.safeParse({ ...u, password: PASSWORD }).success, u.username).toBe(true);
  });

  it("stores every cover as a valid PNG under an upload-style name", () => {
    const covers = [...before.restaurants, ...before.groceries, ...before.badges].map((x) => x.cover);
    expect(covers.every((c) => c !== null)).toBe(true);
    expect(new Set(covers).size).toBe(covers.length);
    for (const cover of covers) {
      expect(cover).toMatch(/^[0-9a-f]{32}\.png$/);
      const { width, height } = readPng(readFileSync(path.join(s.config.uploadDir, cover!)));
      expect(width * height).toBeGreaterThan(0);
    }
    expect(filesBefore.every((f) => !f.name.startsWith("."))).toBe(true); // no temp files left behind
  });

  it("creates a demo user and an admin who sign in with the password, and the API reads the data", async () => {
    expect(first.accounts).toEqual({ demo: "demo", admin: "admin" });
    expect(first.passwordWorks).toBe(true);
    const admin = before.users.find((u) => u.username === "admin")!;
    expect(admin.role).toBe("ADMIN");
    expect(await verifyPassword(PASSWORD, admin.passwordHash)).toBe(true);

    const login = await s.fetch("/auth/token", { method: "POST", json: { username: "demo", password: PASSWORD } });
    expect(login.status).toBe(200);
    const token = ((await login.json()) as any).access_token as string;
    const r = before.restaurants.find((x) => x.ratingCount > 0)!;
    const read = await s.graphql(
      `query($id: ID!) { restaurant(id: $id) { title rating commentCount owner { username } latestComment { id } } }`,
      { id: r.id },
      token,
    );
    const newest = before.comments
      .filter((c) => c.restaurantId === r.id)
      .sort((a, b) => +b.createdAt - +a.createdAt)[0]!;
    expect(read.data.restaurant).toMatchObject({
      title: r.title,
      rating: r.ratingAvg,
      commentCount: r.ratingCount,
      latestComment: { id: newest.id },
    });
    const mine = await s.graphql(`{ restaurants(first: 100) { nodes { id owner { username } } } }`, {}, token);
    expect(mine.data.restaurants.nodes.filter((n: any) => n.owner.username === "demo").length).toBeGreaterThan(0);

    const cover = before.groceries[0]!.cover!;
    const image = await s.fetch(`/uploads/${cover}`, { token });
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await image.arrayBuffer()).equals(readFileSync(path.join(s.config.uploadDir, cover)))).toBe(
      true,
    );
  });

  it("generates the same data in another database (fixed ids, fixed PRNG, fixed dates)", async () => {
    const other = await createTestDatabase();
    const uploads = mkdtempSync(path.join(tmpdir(), "gw-seed-"));
    try {
      const database = {
        dialect: other.provider,
        url: other.url,
        poolSize: 2,
        poolIdleTimeoutMs: 0,
        sqliteSynchronous: "NORMAL" as const,
      };
      await migrate(database);
      const db = createDb(database);
      try {
        await seed(db, { size: "small", uploadDir: uploads, password: PASSWORD });
        const again = await snapshot(db);
        const withoutHashes = (x: typeof before) => ({ ...x, users: x.users.map(({ passwordHash, ...u }) => u) });
        expect(withoutHashes(again)).toEqual(withoutHashes(before));
        expect(readdirSync(uploads).sort()).toEqual(filesBefore.map((f) => f.name));
        const name = filesBefore[0]!.name;
        expect(readFileSync(path.join(uploads, name)).equals(readFileSync(path.join(s.config.uploadDir, name)))).toBe(
          true,
        );
      } finally {
        await db.close();
      }
    } finally {
      await other.drop();
      rmSync(uploads, { recursive: true, force: true });
    }
  });
});

const run = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, ["--import", "tsx", "src/cli/seed.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 60_000,
  });

describe("npm run seed (the command line)", () => {
  it("seeds, prints the accounts and their password, and adds nothing the second time", async () => {
    const database = await createTestDatabase();
    const uploads = mkdtempSync(path.join(tmpdir(), "gw-seed-cli-"));
    try {
      const env = { DATABASE_URL: database.url, UPLOAD_DIR: uploads, SEED_PASSWORD: "from-the-environment" };
      const once = run([], env);
      expect(once.status, once.stderr).toBe(0);
      expect(once.stdout).toMatch(/added \d+ users, 8 badges, 40 restaurants/);
      expect(once.stdout).toMatch(
        /demo user: demo\n\s+admin:\s+admin\n\s+password:\s+from-the-environment \(from SEED_PASSWORD\)/,
      );
      const twice = run(["--size", "small"], env);
      expect(twice.status, twice.stderr).toBe(0);
      expect(twice.stdout).toContain("nothing added");
    } finally {
      await database.drop();
      rmSync(uploads, { recursive: true, force: true });
    }
  });

  it("refuses an unknown size or argument with usage and exit code 2, touching nothing", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gw-seed-bad-"));
    try {
      const env = { DATABASE_URL: `file:${path.join(dir, "x.db")}`, UPLOAD_DIR: path.join(dir, "up") };
      const bad = run(["--size", "huge"], env);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain("--size must be one of small, medium, large");
      expect(run(["--sizes"], env).status).toBe(2);
      expect(readdirSync(dir)).toEqual([]);
      const help = run(["--help"], env);
      expect(help.status).toBe(0);
      expect(help.stdout).toContain("SEED_PASSWORD");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The density setting (issue 48): `--cities N` puts the restaurants around the first N of the
// seed's cities, each the denser, as a big-city deployment is; bench:search reads such a catalogue.
describe("npm run seed -- --cities N", () => {
  it("puts every restaurant in the first N cities, as many in each, and the server shows that catalogue", async () => {
    const database = await createTestDatabase();
    const uploads = mkdtempSync(path.join(tmpdir(), "gw-dense-seed-"));
    try {
      const seeded = run(["--size", "small", "--cities", "2"], { DATABASE_URL: database.url, UPLOAD_DIR: uploads });
      expect(seeded.status, seeded.stderr).toBe(0);
      expect(seeded.stdout).toContain("restaurants in Lisbon, Berlin");
      const s = await startServer({}, { database });
      try {
        const user = await s.signUp("dense");
        const r = await s.graphql(
          `{ restaurants(first: 1) { totalCount facets { exact cities { value count } } } }`,
          {},
          user.token,
        );
        expect(r.errors).toBeUndefined();
        expect(r.data.restaurants.totalCount).toBe(SIZES.small.restaurants);
        expect(r.data.restaurants.facets.cities).toEqual([
          { value: "Berlin", count: SIZES.small.restaurants / 2 },
          { value: "Lisbon", count: SIZES.small.restaurants / 2 },
        ]);
        // Near Lisbon's centre: half the catalogue, where the spread seed has an eighth.
        const near = await s.graphql(
          `{ restaurants(filter: { near: { latitude: 38.7223, longitude: -9.1393, radiusKm: 50 } }) { totalCount } }`,
          {},
          user.token,
        );
        expect(near.data.restaurants.totalCount).toBe(SIZES.small.restaurants / 2);
      } finally {
        await s.close();
      }
    } finally {
      await database.drop();
      rmSync(uploads, { recursive: true, force: true });
    }
  }, 180_000); // a seed through the command line, then a server: minutes on a loaded machine

  it("the bulk sizes' rows follow the same setting (the generator both paths share)", () => {
    const size = { ...SIZES["200k"], cities: 1 };
    for (const n of [1, 2, 9, 199_999]) expect(restaurant(n, size).row.city).toBe("Lisbon");
    expect([1, 2, 3, 9].map((n) => restaurant(n, SIZES["200k"]).row.city)).toEqual([
      SEED_CITIES[0],
      SEED_CITIES[1],
      SEED_CITIES[2],
      SEED_CITIES[0],
    ]);
  });

  it.each([["0"], ["9"], ["two"], ["1.5"]])("refuses --cities %s with usage and exit code 2, touching nothing", (n) => {
    const dir = mkdtempSync(path.join(tmpdir(), "gw-dense-bad-"));
    try {
      const bad = run(["--cities", n], {
        DATABASE_URL: `file:${path.join(dir, "x.db")}`,
        UPLOAD_DIR: path.join(dir, "up"),
      });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain(`--cities must be a whole number from 1 to ${SEED_CITIES.length}`);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
