// SQLite's reader threads (src/db/sqlite/readers.ts): a failed read, and closing with reads in
// flight and waiting. Real threads and a real database file; the slow read is a recursive count
// that takes a few hundred milliseconds whatever the data. Their share between clients:
// search-share.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqliteReaders, SqliteReadError, type SqliteReaders } from "../../src/db/sqlite/readers.ts";

const SLOW = `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000000) SELECT COUNT(*) AS n FROM c`;

describe("SQLite reader threads", () => {
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

  it("a read that fails rejects with the database's error and leaves the readers serving", async () => {
    await expect(readers.read(`SELECT * FROM missing_table`, [])).rejects.toBeInstanceOf(SqliteReadError);
    await expect(readers.read(`SELECT * FROM missing_table`, [])).rejects.toThrow(/no such table/);
    expect((await readers.read(`SELECT COUNT(*) FROM t WHERE x > ?`, [1])).rows).toEqual([[2]]);
  });

  it("closes while its threads still load their connection: each is stopped once loaded", async () => {
    // Stopped while better-sqlite3 loaded, a thread aborted the whole process (CI's "Worker exited
    // unexpectedly"): here the test file's process would die.
    for (let i = 0; i < 20; i++) {
      const starting = createSqliteReaders(path.join(dir, "r.db"), 4);
      const read = starting.read(`SELECT 1`, []).then(
        (answer) => answer.rows,
        (error: Error) => error.message,
      );
      await new Promise((resolve) => setTimeout(resolve, i % 4));
      await starting.close();
      expect([[[1]], "the database is closed"]).toContainEqual(await read);
    }
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
