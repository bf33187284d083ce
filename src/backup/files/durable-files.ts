// File chores of the data commands: writing a small file durably (through a temporary name,
// synced before and after the rename), and making a whole folder durable with one filesystem
// sync instead of one fsync per file. Copying and hashing files: src/storage/file-copies.ts.
import { execFile } from "node:child_process";
import { open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

/** Writes `text` to `file` through a temporary name, synced before and after the rename. */
export async function writeFileDurably(file: string, text: string): Promise<void> {
  const temp = `${file}.tmp-${process.pid}`;
  try {
    const handle = await open(temp, "wx");
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncFolder(path.dirname(file));
}

async function syncFolder(dir: string) {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const run = promisify(execFile);

/**
 * Flushes everything written to the filesystem holding `dir` (coreutils `sync -f`, syncfs(2)):
 * one call instead of an fsync per copied cover. Where `-f` is unknown, a plain `sync`.
 */
export async function syncFilesystem(dir: string): Promise<void> {
  await run("sync", ["-f", dir]).catch(() => run("sync", []));
  await syncFolder(dir);
}
