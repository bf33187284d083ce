// Ctrl-C (SIGINT) or SIGTERM while backup, restore or copy-data works: the command says what
// happened in one line, exits as the signal would (130, 143), and leaves nothing half-written
// that looks complete: no backup folder, a restore target and upload folder as they were (or the
// whole restore, when the signal came after the database was written), a copy's committed
// batches, which the next run goes on from. Runs on SQLite and PostgreSQL.
import { existsSync, readdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConnection } from "../../src/backup/connection/open.ts";
import type { TestDatabase } from "../helpers/database.ts";
import { jsonResult, scratchSpace, serverWithBackup } from "../helpers/data-moves.ts";
import { startAdmin, type AdminRun } from "../helpers/process.ts";
import type { TestServer } from "../helpers/server.ts";

const PROCESSES = 300_000;
const space = scratchSpace();
const scratch = space.folder;
const fresh = space.database;
let source: TestServer;
let backupDir: string;
let settings: Record<string, string>;

/** Rows in the database's Restaurant table; undefined when there is no such table (or no database file). */
async function restaurantsIn(database: TestDatabase): Promise<number | undefined> {
  const conn = await openConnection(database.url, { mustExist: true }).catch(() => undefined);
  if (!conn) return undefined;
  try {
    return Number((await conn.rows(`SELECT count(*) FROM "Restaurant"`))[0]![0]);
  } catch {
    return undefined; // no such table
  } finally {
    await conn.close();
  }
}

/** Starts the command, sends `signal` once `ready()` holds (polled), and waits for the end. */
async function interrupt(
  env: Record<string, string>,
  args: string[],
  signal: NodeJS.Signals,
  ready: () => boolean | Promise<boolean>,
): Promise<AdminRun & { sent: boolean }> {
  const started = startAdmin(env, ...args);
  let ended = false;
  const finished = started.finished.then((run) => {
    ended = true;
    return run;
  });
  let sent = false;
  while (!ended) {
    if (await ready()) {
      sent = started.child.kill(signal);
      break;
    }
    await sleep(2);
  }
  return { ...(await finished), sent };
}

beforeAll(async () => {
  // Enough rows and covers that each command is still at work when the signal comes.
  ({ server: source, backupDir } = await serverWithBackup(space, "interrupted", {
    restaurants: 60,
    covers: 60,
    coverTag: (i) => `${i}`.repeat(20_000),
  }));
  settings = { DATABASE_URL: source.database.url, UPLOAD_DIR: source.config.uploadDir };
}, PROCESSES);

afterAll(async () => {
  await source?.close();
  await space.cleanUp();
});

describe("interrupted", () => {
  it(
    "backup: one line, exit 143, the partial folder removed",
    async () => {
      // The signal must land while the backup works: it is sent as soon as the folder appears,
      // and tried again if the backup was quicker.
      let interrupted = 0;
      for (let attempt = 0; attempt < 5 && interrupted < 1; attempt++) {
        const parent = scratch("gw-interrupt-");
        const dir = path.join(parent, "backup");
        const run = await interrupt(settings, ["backup", dir], "SIGTERM", () => existsSync(dir));
        if (run.code === 0) continue; // finished first
        interrupted++;
        expect(run.code, run.stderr).toBe(143);
        expect(run.stderr).toBe("error: interrupted by SIGTERM; the partial backup was removed\n");
        expect(readdirSync(parent)).toEqual([]);
      }
      expect(interrupted).toBe(1);
    },
    PROCESSES,
  );

  it(
    "restore: one line, exit 143, the database and the upload folder as they were (or all restored, when it came after)",
    async () => {
      let interrupted = 0;
      for (let attempt = 0; attempt < 5 && interrupted < 1; attempt++) {
        const target = await fresh();
        const uploads = path.join(scratch("gw-interrupt-uploads-"), "uploads");
        const run = await interrupt(
          { DATABASE_URL: target.url, UPLOAD_DIR: uploads },
          ["restore", backupDir],
          "SIGTERM",
          () => existsSync(uploads),
        );
        if (run.code === 0) continue;
        interrupted++;
        expect(run.code, run.stderr).toBe(143);
        const lines = run.stderr.trimEnd().split("\n");
        expect(lines, run.stderr).toHaveLength(1);
        if (/nothing was restored/.test(lines[0]!)) {
          expect(lines[0]).toBe(
            "error: interrupted by SIGTERM; nothing was restored: the database and the upload folder are as they were",
          );
          expect(existsSync(uploads)).toBe(false);
          expect(await restaurantsIn(target)).toBeUndefined();
        } else {
          expect(lines[0]).toBe(
            "error: interrupted by SIGTERM; the data was restored but not checked: run restore again with --overwrite",
          );
          expect(await restaurantsIn(target)).toBe(await source.db.prisma.restaurant.count());
          expect(readdirSync(uploads).filter((f) => !f.startsWith(".")).length).toBe(60);
        }
      }
      expect(interrupted).toBe(1);
    },
    PROCESSES,
  );

  it(
    "copy-data: one line, exit 130, the committed batches kept; the same command again finishes the copy",
    async () => {
      const target = await fresh();
      const uploads = path.join(scratch("gw-interrupt-copy-"), "uploads");
      const args = [
        "copy-data",
        "--to",
        target.url,
        "--uploads-to",
        uploads,
        "--batch-rows",
        "10",
        "--pause-ms",
        "200",
      ];
      const run = await interrupt(settings, args, "SIGINT", async () => ((await restaurantsIn(target)) ?? 0) > 0);
      expect(run.sent).toBe(true);
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr.trimEnd()).toBe(
        "error: interrupted by SIGINT; the target keeps the batches copied so far: run copy-data again to go on from there",
      );
      const again = await startAdmin(settings, ...args.slice(0, 5)).finished;
      expect(again.code, again.stderr).toBe(0);
      expect(jsonResult(again)).toMatchObject({ ok: true, resumed: true, verification: { ok: true } });
      expect(await restaurantsIn(target)).toBe(await source.db.prisma.restaurant.count());
    },
    PROCESSES,
  );
});
