// Helpers for the tests of backup, restore and copy-data: writes through the real HTTP API (a
// grocery with its own cover, a comment, an order), the checks every moved database must pass
// (ratings equal the sum of their comments, no row refers to a missing one), and reading the
// commands' one JSON line.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import type { Db } from "../../src/db/db.ts";
import { runAdminWith, type AdminRun } from "./process.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { startServer, type TestServer } from "./server.ts";

/** A PNG signature and header, then `tag`: recognised as a PNG, and each cover's bytes differ. */
export function pngWith(tag: string): Uint8Array<ArrayBuffer> {
  const head = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
    "base64",
  );
  return new Uint8Array(Buffer.concat([head, Buffer.from(tag)]));
}

type Api = { url: string };

export async function graphql(api: Api, query: string, variables: Record<string, unknown>, token?: string) {
  const res = await fetch(`${api.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** A GraphQL request whose `variables.input.cover` is `cover`, sent as a multipart upload; the response's data. */
async function withCover(
  api: Api,
  token: string,
  query: string,
  variables: Record<string, unknown>,
  cover: Uint8Array<ArrayBuffer>,
) {
  const form = new FormData();
  form.set("operations", JSON.stringify({ query, variables }));
  form.set("map", JSON.stringify({ 0: ["variables.input.cover"] }));
  form.set("0", new Blob([cover], { type: "image/png" }), "cover.png");
  const res = await fetch(`${api.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "apollo-require-preflight": "true" },
    body: form,
  });
  return ((await res.json()) as any).data;
}

/** `createGrocery` with a cover, as a multipart request; the grocery's id and cover file name. */
export async function createGroceryWithCover(api: Api, token: string, title: string, cover: Uint8Array<ArrayBuffer>) {
  const data = await withCover(
    api,
    token,
    `mutation($input: CreateGroceryInput!) { createGrocery(input: $input) { id cover } }`,
    { input: { title, cover: null } },
    cover,
  );
  return data?.createGrocery as { id: string; cover: string } | undefined;
}

/** `updateGrocery` with a new cover (the old file goes); the cover's new file name. */
export async function replaceCover(api: Api, token: string, id: string, cover: Uint8Array<ArrayBuffer>) {
  const data = await withCover(
    api,
    token,
    `mutation($id: ID!, $input: UpdateGroceryInput!) { updateGrocery(id: $id, input: $input) { cover } }`,
    { id, input: { cover: null } },
    cover,
  );
  return data?.updateGrocery?.cover as string | undefined;
}

export const DELETE_GROCERY = `mutation($id: ID!) { deleteGrocery(id: $id) }`;
export const CREATE_RESTAURANT = `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`;
export const ADD_COMMENT = `mutation($id: ID!, $input: CommentInput!) { addComment(restaurantId: $id, input: $input) { id } }`;
export const ORDER = `mutation($input: OrderRecipeInput!) { orderRecipe(input: $input) { id } }`;

/** Restaurants whose denormalised rating columns disagree with their comments. */
export async function ratingMismatches(db: Db): Promise<unknown[]> {
  return db.prisma.$queryRawUnsafe(`
    SELECT r."id", r."ratingSum", r."ratingCount", COALESCE(SUM(c."rating"), 0) AS "sum", COUNT(c."id") AS "count"
      FROM "Restaurant" r LEFT JOIN "Comment" c ON c."restaurantId" = r."id"
     GROUP BY r."id", r."ratingSum", r."ratingCount"
    HAVING r."ratingSum" <> COALESCE(SUM(c."rating"), 0) OR r."ratingCount" <> COUNT(c."id")`);
}

/** Rows whose foreign key names a missing row, over the relations backups must keep whole. */
export async function orphanRows(db: Db): Promise<number> {
  const checks = [
    `SELECT count(*) AS n FROM "Comment" c WHERE NOT EXISTS (SELECT 1 FROM "Restaurant" r WHERE r."id" = c."restaurantId") OR NOT EXISTS (SELECT 1 FROM "User" u WHERE u."id" = c."authorId")`,
    `SELECT count(*) AS n FROM "Order" o WHERE NOT EXISTS (SELECT 1 FROM "Restaurant" r WHERE r."id" = o."restaurantId") OR NOT EXISTS (SELECT 1 FROM "User" u WHERE u."id" = o."userId")`,
    `SELECT count(*) AS n FROM "Grocery" g WHERE NOT EXISTS (SELECT 1 FROM "User" u WHERE u."id" = g."ownerId")`,
    `SELECT count(*) AS n FROM "AccessToken" t WHERE NOT EXISTS (SELECT 1 FROM "User" u WHERE u."id" = t."userId")`,
  ];
  let total = 0;
  for (const sql of checks) total += Number(((await db.prisma.$queryRawUnsafe(sql)) as { n: bigint | number }[])[0]!.n);
  return total;
}

/** `npm run admin -- ...args` on a test server's database and upload folder. */
export const adminOn = (server: { database: { url: string }; config: { uploadDir: string } }, ...args: string[]) =>
  runAdminWith({ DATABASE_URL: server.database.url, UPLOAD_DIR: server.config.uploadDir }, ...args);

/** The one JSON line a data command prints when not on a terminal (and nothing on stderr). */
export function jsonResult(run: AdminRun): any {
  expect(run.stderr, run.stderr).toBe("");
  const lines = run.stdout.trimEnd().split("\n");
  expect(lines, run.stdout).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

/** A refusal: exit code, one `error:` line on stderr, no stack trace. */
export function expectRefusal(run: AdminRun, code: 1 | 2, message: RegExp) {
  expect(run.code, run.stderr).toBe(code);
  const lines = run.stderr.trimEnd().split("\n");
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toMatch(message);
  expect(run.stderr).not.toMatch(/\n\s+at |Error:/);
}

/** A SQLite database in a temp folder of its own (whatever database the suite runs on). */
export function sqliteDatabase(prefix = "gw-sqlite-"): TestDatabase & { dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, url: `file:${path.join(dir, "gateway.db")}`, provider: "sqlite", drop: async () => {} };
}

export const tempDir = (prefix: string) => mkdtempSync(path.join(tmpdir(), prefix));

/** The temp folders and databases a test file makes, all removed by `cleanUp` (in afterAll). */
export function scratchSpace() {
  const folders: string[] = [];
  const databases: TestDatabase[] = [];
  return {
    folder(prefix: string) {
      const dir = tempDir(prefix);
      folders.push(dir);
      return dir;
    },
    async database(): Promise<TestDatabase> {
      const database = await createTestDatabase();
      databases.push(database);
      return database;
    },
    async cleanUp() {
      for (const database of databases) await database.drop().catch(() => {});
      for (const dir of folders) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `work` over `items`, at most `concurrency` at a time (each a process: a loaded machine has few cores). */
export async function eachLimited<T, R>(
  items: T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!, i);
      }
    }),
  );
  return results;
}

/**
 * A running server holding `restaurants` restaurants and `covers` groceries with covers (cover i's
 * bytes carry `coverTag(i)`), and a backup of it taken through the real command into `space`.
 */
export async function serverWithBackup(
  space: ReturnType<typeof scratchSpace>,
  name: string,
  { restaurants = 1, covers = 1, coverTag = (i: number) => `cover ${i}` } = {},
): Promise<{ server: TestServer; backupDir: string }> {
  const server = await startServer();
  const owner = await server.signUp(name);
  for (let i = 0; i < restaurants; i++)
    await graphql(server, CREATE_RESTAURANT, { input: { title: `${name} ${i}`, categories: ["x"] } }, owner.token);
  for (let i = 0; i < covers; i++)
    expect(await createGroceryWithCover(server, owner.token, `cover ${i}`, pngWith(coverTag(i)))).toBeDefined();
  const backupDir = path.join(space.folder(`gw-${name}-backup-`), "backup");
  const run = await adminOn(server, "backup", backupDir);
  expect(run.code, run.stderr).toBe(0);
  return { server, backupDir };
}
