// SQLite's reader threads are shared between clients (src/db/sqlite-readers.ts): one client holds
// at most half of them, so another client's read starts at once even while the first floods them
// with slow reads. Real threads and a real database file; the slow read is a recursive count that
// takes a few hundred milliseconds whatever the data.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRequester } from "../../src/db/requester.ts";
import { createSqliteReaders, SqliteReadError, type SqliteReaders } from "../../src/db/sqlite-readers.ts";

const SLOW = `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000000) SELECT COUNT(*) AS n FROM c`;

describe("SQLite reader threads shared between clients", () => {
  let dir: string;
  let readers: SqliteReaders;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "gw-readers-"));
    const db = new Database(path.join(dir, "r.db"));
    db.pragma("journal_mode = WAL");
    db.exec(`CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3)`);
    db.close();
    readers = createSqliteReaders(path.join(dir, "r.db"), 2);
  });
  afterAll(async () => {
    await readers?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers another client's read at once while one client floods every reader with slow reads", async () => {
    const finished: string[] = [];
    const flood = Array.from({ length: 4 }, (_, i) =>
      asRequester("address:flooder", () => readers.read(SLOW, [])).then((rows) => {
        finished.push(`slow ${i}`);
        return rows;
      }),
    );
    const other = await asRequester("user:other", () => readers.read(`SELECT SUM(x) AS n FROM t`, []));
    finished.push("other");
    expect(other.rows).toEqual([[6]]);
    const slow = await Promise.all(flood);
    expect(slow.map((r) => r.rows)).toEqual(Array(4).fill([[2000000]]));
    // The flooder held one reader of two: the other client's read did not wait behind any slow one.
    expect(finished[0]).toBe("other");
  });

  it("a read that fails rejects with the database's error and leaves the readers serving", async () => {
    await expect(readers.read(`SELECT * FROM missing_table`, [])).rejects.toBeInstanceOf(SqliteReadError);
    await expect(readers.read(`SELECT * FROM missing_table`, [])).rejects.toThrow(/no such table/);
    expect((await readers.read(`SELECT COUNT(*) FROM t WHERE x > ?`, [1])).rows).toEqual([[2]]);
  });

  it("refuses reads once closed, and rejects those still waiting", async () => {
    const closing = createSqliteReaders(path.join(dir, "r.db"), 1);
    const running = expect(closing.read(SLOW, [])).rejects.toThrow(/closed/);
    const waiting = expect(closing.read(`SELECT 1`, [])).rejects.toThrow(/closed/);
    await closing.close();
    await waiting;
    await running;
    await expect(closing.read(`SELECT 1`, [])).rejects.toThrow(/closed/);
  });
});
