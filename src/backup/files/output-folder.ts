// The folder a backup is written into: new or empty, never one holding anything else, on a
// filesystem that takes writes (a read-only one, or one such as /proc, is refused at once with
// the reason). If the backup fails or is interrupted (Ctrl-C, SIGTERM), whatever it wrote is
// removed, and the folders it created: no half backup is left to be mistaken for one. (After
// kill -9 nothing can clean up; such a folder has no manifest, so restore refuses it.)
import { accessSync, constants, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { createFolders, folderProblem, FolderRefused, removeFolders } from "../../storage/file-copies.ts";

/** Refused: the given folder cannot take a backup (exit code 1, nothing changed). */
export class FolderUnusable extends Error {}

export type OutputFolder = { dir: string; discard(): void };

export function claimEmptyFolder(given: string): OutputFolder {
  const dir = path.resolve(given);
  let created: string[] = [];
  try {
    const stat = statSync(dir);
    if (!stat.isDirectory())
      throw new FolderUnusable(`${given} exists and is not a folder: give a new or empty folder`);
    if (readdirSync(dir).length)
      throw new FolderUnusable(`${given} is not empty: a backup goes into a new or empty folder`);
    accessSync(dir, constants.W_OK);
  } catch (error) {
    if (error instanceof FolderUnusable) throw error;
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      throw new FolderUnusable(`cannot use ${given}: ${folderProblem(error, given)}`);
    try {
      // Readable by its owner only: the database holds password and token hashes.
      created = createFolders(dir, 0o700);
    } catch (refused) {
      if (refused instanceof FolderRefused) throw new FolderUnusable(refused.message);
      throw refused;
    }
  }
  return {
    dir,
    discard: () => {
      for (const entry of readdirSync(dir)) rmSync(path.join(dir, entry), { recursive: true, force: true });
      removeFolders(created);
    },
  };
}
