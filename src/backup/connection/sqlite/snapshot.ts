// A consistent copy of a live SQLite database, with SQLite's online backup API, while the
// service keeps reading and writing it (WAL mode: a reader never blocks the writer).
// The copy runs inside one read transaction held open on the source: every page then comes
// from the same snapshot, so a steady write load cannot make the backup API start over (figures:
// docs/performance.md, "Why the database layer reads as it does").
import { rmSync } from "node:fs";
import Database from "better-sqlite3";
import { checkpoint } from "../../interruption.ts";
import { quoteName } from "../data-connection.ts";

/** Pages copied per step: progress is reported between steps. */
const PAGES_PER_STEP = 4096;
/** better-sqlite3 runs the first step with 0 pages (it copies nothing but the header's size); then this many. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies `sourceFile` to `destFile` (which must not exist) and returns the instant just before
 * the snapshot was taken: every transaction committed before it is in the copy, none after it.
 * The copy is a plain rollback-journal database file, complete in itself.
 */
export async function copySqliteSnapshot(
  sourceFile: string,
  destFile: string,
  onPages: (done: number, total: number) => void,
): Promise<Date> {
  const source = new Database(sourceFile, { fileMustExist: true });
  try {
    source.pragma("busy_timeout = 10000");
    const snapshotAt = new Date();
    source.exec("BEGIN");
    source.prepare("SELECT count(*) FROM sqlite_master").get(); // the snapshot starts at the first read
    try {
      const { totalPages } = await source.backup(destFile, {
        progress: ({ totalPages, remainingPages }) => {
          checkpoint(); // thrown here, it ends the copy (better-sqlite3 closes the backup)
          onPages(totalPages - remainingPages, totalPages);
          return PAGES_PER_STEP;
        },
      });
      onPages(totalPages, totalPages); // the last step reports nothing by itself
    } finally {
      source.exec("COMMIT");
    }
    const copy = new Database(destFile);
    try {
      copy.pragma("journal_mode = DELETE"); // the source's header says WAL; a backup is one file
    } finally {
      copy.close();
    }
    for (const suffix of ["-wal", "-shm"]) rmSync(destFile + suffix, { force: true });
    return snapshotAt;
  } finally {
    source.close();
  }
}

/**
 * Writes the backup's database into `targetFile` in one transaction of SQLite's backup API: if
 * it fails halfway (a full disk), the target is as it was. The target ends in WAL mode, as the
 * service opens it.
 */
export async function restoreSqliteFile(
  backupFile: string,
  targetFile: string,
  onPages: (done: number, total: number) => void,
): Promise<void> {
  const backup = new Database(backupFile, { readonly: true, fileMustExist: true });
  try {
    const { totalPages } = await backup.backup(targetFile, {
      progress: ({ totalPages, remainingPages }) => {
        onPages(totalPages - remainingPages, totalPages);
        return ALL_PAGES; // the rest in one step: one transaction on the target
      },
    });
    onPages(totalPages, totalPages);
  } finally {
    backup.close();
  }
  const target = new Database(targetFile);
  try {
    target.pragma("journal_mode = WAL");
  } finally {
    target.close();
  }
}

/**
 * Copies another program's objects (`objects`: tables with their rows and rowids, indexes, views,
 * triggers) from `fromFile` into `intoFile`, in one transaction, as they were: restore --overwrite
 * builds the new database from the backup's file plus these, so only the gateway's are replaced.
 * Triggers come last, so copying the rows fires none.
 */
export function carryOver(fromFile: string, intoFile: string, objects: { kind: string; name: string }[]): void {
  const db = new Database(intoFile);
  try {
    db.prepare("ATTACH DATABASE ? AS kept").run(fromFile);
    const sqlOf = db.prepare("SELECT sql FROM kept.sqlite_master WHERE name = ?").pluck();
    const named = (kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.name);
    db.transaction(() => {
      for (const table of named("table")) {
        db.exec(String(sqlOf.get(table)));
        const columns = db
          .prepare("SELECT name FROM pragma_table_xinfo(?, 'kept') WHERE hidden = 0")
          .pluck()
          .all(table) as string[];
        const withoutRowid = db.prepare("SELECT wr FROM pragma_table_list WHERE schema = 'kept' AND name = ?").pluck();
        const list = [...(withoutRowid.get(table) ? [] : ["rowid"]), ...columns.map(quoteName)].join(", ");
        db.exec(`INSERT INTO main.${quoteName(table)} (${list}) SELECT ${list} FROM kept.${quoteName(table)}`);
      }
      // AUTOINCREMENT's counters: creating such a table made main's sqlite_sequence.
      const counters = (schema: string) =>
        db.prepare(`SELECT 1 FROM ${schema}.sqlite_master WHERE name = 'sqlite_sequence'`).get();
      if (counters("kept") && counters("main")) {
        const tables = JSON.stringify(named("table"));
        db.prepare("DELETE FROM main.sqlite_sequence WHERE name IN (SELECT value FROM json_each(?))").run(tables);
        db.prepare(
          "INSERT INTO main.sqlite_sequence (name, seq) SELECT name, seq FROM kept.sqlite_sequence WHERE name IN (SELECT value FROM json_each(?))",
        ).run(tables);
      }
      for (const kind of ["index", "view", "trigger"])
        for (const name of named(kind)) {
          const sql = sqlOf.get(name);
          if (sql) db.exec(String(sql));
        }
    })();
    db.exec("DETACH DATABASE kept");
  } finally {
    db.close();
  }
}

/**
 * Drops `objects` (another program's, in a backup's own copy of a database) and compacts the
 * file, so that none of their data is left in it.
 */
export function dropObjects(file: string, objects: { kind: string; name: string }[]): void {
  if (!objects.length) return;
  const db = new Database(file);
  try {
    const order = ["trigger", "view", "index", "table", "virtual table"];
    db.transaction(() => {
      for (const kind of order)
        for (const { name } of objects.filter((o) => o.kind === kind))
          db.exec(`DROP ${kind === "virtual table" ? "TABLE" : kind.toUpperCase()} IF EXISTS ${quoteName(name)}`);
    })();
    db.exec("VACUUM");
  } finally {
    db.close();
  }
}
