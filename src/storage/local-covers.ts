// The cover store on a local (or shared network) folder, UPLOAD_DIR:
//   <name>                   the covers served (a 32-hex-digit name, src/storage/image-files.ts)
//   .removed/<name>          covers the service removed, each with the time of its removal
//   .backup-holds/<id>.hold  one per backup running, on any machine sharing the folder
// A removal is a rename into .removed (atomic: the cover is always in one place or the other).
// The sweep of every instance deletes a removed cover once it is KEEP_REMOVED_MS old and no
// hold is alive. A backup refreshes its hold every HOLD_REFRESH_MS; one that has not been
// refreshed for HOLD_LAPSES_MS belongs to a backup that died (kill -9) and is deleted.
import { existsSync, rmSync } from "node:fs";
import { mkdir, readdir, rename, rm, rmdir, stat, unlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { HOLD_LAPSES_MS, holdName, keepHold, KEEP_REMOVED_MS } from "./cover-holds.ts";
import type { CoverHold, CoverListing, CoverStore, StoredCover } from "./cover-store.ts";
import { copyFile, createFolders, isMissing, removeFolders, sha256OfFile } from "./file-copies.ts";
import { isUploadName } from "./upload-names.ts";

const REMOVED = ".removed";
const HOLDS = ".backup-holds";
export { HOLD_LAPSES_MS, KEEP_REMOVED_MS };

async function namesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter(isUploadName);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** Creates `dir` unless it exists; false when its parent does not exist (nothing was ever stored). */
async function ensureFolder(dir: string): Promise<boolean> {
  try {
    await mkdir(dir);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return true;
    if (code === "ENOENT") return false;
    throw error;
  }
}

export function localCovers(dir: string): CoverStore {
  const removedDir = path.join(dir, REMOVED);
  const holdsDir = path.join(dir, HOLDS);
  const live = (name: string) => path.join(dir, name);

  return {
    kind: "folder",
    label: dir,
    folder: dir,

    async list(): Promise<CoverListing> {
      const names = new Set(await namesIn(dir));
      return { live: names, removed: new Set(await namesIn(removedDir)) };
    },

    async read(name, { orRemoved = false } = {}): Promise<StoredCover | undefined> {
      for (const file of orRemoved ? [live(name), path.join(removedDir, name)] : [live(name)]) {
        try {
          return await sha256OfFile(file);
        } catch (error) {
          if (!isMissing(error, file)) throw error;
        }
      }
      return undefined;
    },

    async copyTo(name, to): Promise<StoredCover | undefined> {
      for (const from of [live(name), path.join(removedDir, name)]) {
        try {
          return await copyFile(from, to, name);
        } catch (error) {
          if (!isMissing(error, from)) throw error;
        }
      }
      return undefined;
    },

    async put(name, file, sha256) {
      await copyFile(file, dir, name, sha256);
    },

    async remove(name) {
      if (!isUploadName(name)) return;
      if (!(await ensureFolder(removedDir))) return; // no upload folder: no such cover
      const now = new Date();
      try {
        await utimes(live(name), now, now); // the time of removal, which the purge counts from
        await rename(live(name), path.join(removedDir, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    },

    async delete(name) {
      if (isUploadName(name)) await rm(live(name), { force: true });
    },

    async prepare() {
      const created = createFolders(dir);
      return { undo: () => removeFolders(created) };
    },

    async hold(): Promise<CoverHold> {
      const file = path.join(holdsDir, holdName());
      // Another backup ending may remove the empty holds folder between our mkdir and our write.
      for (let attempt = 1; ; attempt++) {
        if (!(await ensureFolder(holdsDir))) return { release: async () => {}, releaseNow: () => {} };
        try {
          await writeFile(file, `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() })}\n`, {
            flag: "wx",
          });
          break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt === 5) throw error;
        }
      }
      return keepHold({
        async refresh() {
          const now = new Date();
          await utimes(file, now, now);
        },
        exists: async () => existsSync(file),
        async remove() {
          rmSync(file, { force: true });
          await rmdir(holdsDir).catch(() => {}); // the last backup leaves no folder behind
        },
        removeNow: () => rmSync(file, { force: true }),
      });
    },

    async purge(): Promise<number> {
      const now = Date.now();
      let held = false;
      for (const entry of await readdir(holdsDir).catch(() => [] as string[])) {
        const file = path.join(holdsDir, entry);
        const refreshed = await stat(file).then(
          (s) => s.mtimeMs,
          () => 0,
        );
        if (now - refreshed < HOLD_LAPSES_MS) held = true;
        else await unlink(file).catch(() => {}); // a backup that died
      }
      if (held) return 0;
      let purged = 0;
      for (const name of await namesIn(removedDir)) {
        const file = path.join(removedDir, name);
        try {
          if (now - (await stat(file)).mtimeMs < KEEP_REMOVED_MS) continue;
          await unlink(file);
          purged++;
        } catch {
          // gone already (another instance's purge)
        }
      }
      return purged;
    },
  };
}
