// Covers the service removes are kept a while for a backup that may need them
// (src/storage/folder/local-covers.ts): a replaced or deleted cover moves to UPLOAD_DIR/.removed, where
// nothing serves it; the sweep deletes it once it is old enough and no backup holds removed
// covers; a hold a dead backup left behind lapses. Through the real server and real files.
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOLD_LAPSES_MS, KEEP_REMOVED_MS, localCovers } from "../../src/storage/folder/local-covers.ts";
import {
  createGroceryWithCover,
  DELETE_GROCERY,
  graphql,
  pngWith,
  replaceCover,
  tempDir,
} from "../helpers/data-moves.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: { token: string; id: string };
const cleanup: string[] = [];

beforeAll(async () => {
  server = await startServer();
  owner = await server.signUp("keeper");
});

afterAll(async () => {
  await server?.close();
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

/** Sets a file's times `ago` milliseconds back. */
function age(file: string, ago: number) {
  const then = new Date(Date.now() - ago);
  utimesSync(file, then, then);
}

describe("removed covers", () => {
  it("a replaced or deleted grocery's cover leaves the served folder for .removed, where nothing serves it", async () => {
    const grocery = await createGroceryWithCover(server, owner.token, "kept a while", pngWith("first"));
    const second = await replaceCover(server, owner.token, grocery!.id, pngWith("second"));
    const removed = path.join(server.config.uploadDir, ".removed");
    expect(existsSync(path.join(server.config.uploadDir, grocery!.cover))).toBe(false);
    expect(readdirSync(removed)).toContain(grocery!.cover);
    expect((await server.fetch(`/uploads/${grocery!.cover}`)).status).toBe(404);
    expect((await server.fetch(`/uploads/.removed/${grocery!.cover}`)).status).toBe(404);

    const deleted = await graphql(server, DELETE_GROCERY, { id: grocery!.id }, owner.token);
    expect(deleted.body.errors).toBeUndefined();
    expect(existsSync(path.join(server.config.uploadDir, second!))).toBe(false);
    expect(readdirSync(removed)).toContain(second!);
  });

  it("are deleted once old enough while no backup holds them; a dead backup's hold lapses", async () => {
    const dir = path.join(tempDir("gw-retention-"), "uploads");
    cleanup.push(path.dirname(dir));
    mkdirSync(path.join(dir, ".removed"), { recursive: true });
    const old = `${"a".repeat(32)}.png`;
    const recent = `${"b".repeat(32)}.png`;
    writeFileSync(path.join(dir, ".removed", old), "old");
    writeFileSync(path.join(dir, ".removed", recent), "recent");
    age(path.join(dir, ".removed", old), KEEP_REMOVED_MS + 60_000);
    const covers = localCovers(dir);

    const hold = await covers.hold(); // a backup running
    expect(await covers.purge()).toBe(0);
    expect(readdirSync(path.join(dir, ".removed")).sort()).toEqual([old, recent]);
    // The same hold, not refreshed for longer than a hold lasts: its backup died.
    const [holdFile] = readdirSync(path.join(dir, ".backup-holds"));
    age(path.join(dir, ".backup-holds", holdFile!), HOLD_LAPSES_MS + 60_000);
    expect(await covers.purge()).toBe(1);
    expect(readdirSync(path.join(dir, ".removed"))).toEqual([recent]);
    expect(readdirSync(path.join(dir, ".backup-holds"))).toEqual([]);
    await expect(hold.release()).rejects.toThrow(/hold on removed covers/);
  });

  it("a backup's copy finds a cover removed after its listing among the removed ones", async () => {
    const dir = path.join(tempDir("gw-retention-copy-"), "uploads");
    const out = path.join(path.dirname(dir), "out");
    cleanup.push(path.dirname(dir));
    mkdirSync(dir);
    mkdirSync(out);
    const name = `${"c".repeat(32)}.png`;
    writeFileSync(path.join(dir, name), "cover");
    const covers = localCovers(dir);
    const hold = await covers.hold();
    const listed = await covers.list();
    await covers.remove(name);
    expect(listed.live.has(name)).toBe(true);
    expect(await covers.copyTo(name, out)).toMatchObject({ bytes: 5 });
    expect(readdirSync(out)).toEqual([name]);
    await hold.release();
    expect(existsSync(path.join(dir, ".backup-holds"))).toBe(false);
  });
});
