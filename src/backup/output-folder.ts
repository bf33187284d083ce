// The folder a backup is written into: new or empty, never one holding anything else. If the
// backup fails (a full disk, a database error) or is interrupted (Ctrl-C, SIGTERM), whatever it
// wrote is removed: no half backup is left to be mistaken for one. (After kill -9 nothing can
// clean up; such a folder has no manifest.json, so restore refuses it.)
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";

/** Refused: the given folder cannot take a backup (exit code 1, nothing changed). */
export class FolderUnusable extends Error {}

export type OutputFolder = { dir: string; discard(): void; keep(): void };

export function claimEmptyFolder(given: string): OutputFolder {
  const dir = path.resolve(given);
  let existed = false;
  try {
    const stat = statSync(dir);
    if (!stat.isDirectory())
      throw new FolderUnusable(`${given} exists and is not a folder: give a new or empty folder`);
    if (readdirSync(dir).length)
      throw new FolderUnusable(`${given} is not empty: a backup goes into a new or empty folder`);
    existed = true;
  } catch (error) {
    if (error instanceof FolderUnusable) throw error;
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      throw new FolderUnusable(`cannot use ${given}: ${(error as NodeJS.ErrnoException).code}`);
  }
  if (!existed) {
    try {
      // Readable by its owner only: the database holds password and token hashes.
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new FolderUnusable(`cannot create ${given}: ${(error as NodeJS.ErrnoException).code}`);
    }
  }
  const discard = () => {
    if (existed) for (const entry of readdirSync(dir)) rmSync(path.join(dir, entry), { recursive: true, force: true });
    else rmSync(dir, { recursive: true, force: true });
  };
  const stopHandling = removeOnSignal(discard);
  return {
    dir,
    discard: () => {
      stopHandling();
      discard();
    },
    keep: stopHandling,
  };
}

/** On SIGINT or SIGTERM: runs `cleanup`, then exits as the signal would have (130, 143). */
export function removeOnSignal(cleanup: () => void): () => void {
  const handlers = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const handler = () => {
      try {
        cleanup();
      } finally {
        process.exit(signal === "SIGINT" ? 130 : 143);
      }
    };
    process.once(signal, handler);
    return () => process.off(signal, handler);
  });
  return () => handlers.forEach((off) => off());
}
