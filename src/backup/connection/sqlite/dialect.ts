// SQLite for the data commands: a database is one file. Backup copies it in one read snapshot with
// SQLite's online backup API and reads the copy; restore builds the new file beside the target and
// writes it over the target in one transaction of the same API (snapshot.ts).
import { copyFileSync, existsSync, rmSync } from "node:fs";
import path from "node:path";
import { sqliteFilePath } from "../../../db/sqlite/file.ts";
import { createFolders, FolderRefused, removeFolders } from "../../../storage/file-copies.ts";
import { NotRestorable } from "../../files/manifest.ts";
import { checkpoint } from "../../interruption.ts";
import type { Progress } from "../../progress.ts";
import type { DataDialect, DbObject } from "../data-connection.ts";
import { ownership } from "../ownership.ts";
import { openSqlite } from "./connection.ts";
import { carryOver, copySqliteSnapshot, dropObjects, restoreSqliteFile } from "./snapshot.ts";

const resolvedFile = (url: string) => path.resolve(sqliteFilePath(url));

export const sqliteData: DataDialect = {
  name: "sqlite",
  open: async (url, options) => openSqlite(sqliteFilePath(url), options),
  isNew: (url) => !existsSync(resolvedFile(url)),
  sameDatabase: (a, b) => resolvedFile(a) === resolvedFile(b),
  redact: (url) => url,
  parses: () => true,
  restoreElsewhere: (dir) =>
    `${dir} is a SQLite backup: restore it into SQLite (DATABASE_URL=file:...), then move it with copy-data --to postgresql://...`,

  prepareBackup: async () => ({
    async write({ url, file, progress }, read) {
      progress.phase("database", 0, "pages");
      let copied = 0;
      const snapshotAt = await copySqliteSnapshot(sqliteFilePath(url), file, (done, total) => {
        if (copied === 0) progress.phase("database", total, "pages");
        progress.advance(done - copied);
        copied = done;
      });
      // Read from the copy: what was written is what is checked.
      const leftOut = await othersInFile(file);
      dropObjects(file, leftOut);
      const copy = openSqlite(file, { mustExist: true, readonly: true });
      try {
        const found = await read(copy);
        return { snapshotAt, leftOut, format: "sqlite", tool: "SQLite online backup API", read: found };
      } finally {
        await copy.close();
      }
    },
  }),

  prepareRestore: async (url, target) => {
    const targetFile = resolvedFile(url);
    const isNew = !target.conn;
    let created: string[] = [];
    return {
      async write(backupFile, _schema, progress) {
        created = makeFolders(path.dirname(targetFile));
        progress.phase("database", 0, "pages");
        await restoreSqlite(backupFile, targetFile, target.foreign, progress);
        return [];
      },
      undo() {
        if (isNew) for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(targetFile + suffix, { force: true });
        removeFolders(created);
      },
    };
  },
};

/** Another program's objects in a SQLite file (a backup's copy of a database). */
async function othersInFile(file: string): Promise<DbObject[]> {
  const conn = openSqlite(file, { mustExist: true, readonly: true });
  try {
    return (await ownership(conn)).foreign;
  } finally {
    await conn.close();
  }
}

function makeFolders(dir: string): string[] {
  try {
    return createFolders(dir);
  } catch (error) {
    if (error instanceof FolderRefused) throw new NotRestorable(error.message);
    throw error;
  }
}

/**
 * Writes the backup's database onto the target in one transaction. The new database is built
 * first in a file beside the target: the backup's file without anything of another program's (a
 * backup made before backups left such objects out may hold some), plus the target's own objects
 * of other programs, as they are. That file is what is written.
 */
async function restoreSqlite(backupFile: string, targetFile: string, keep: DbObject[], progress: Progress) {
  const built = `${targetFile}.restoring-${process.pid}`;
  try {
    copyFileSync(backupFile, built);
    dropObjects(built, await othersInFile(built));
    if (keep.length) carryOver(targetFile, built, keep);
    checkpoint();
    await restoreSqliteFile(built, targetFile, (done, total) => {
      progress.phase("database", total, "pages");
      progress.advance(done);
    });
  } finally {
    for (const suffix of ["", "-journal", "-wal", "-shm"]) rmSync(built + suffix, { force: true });
  }
}
