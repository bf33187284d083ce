// Uploads in a local folder (UPLOAD_DIR): each new file is written under a dot-name, synced, then
// renamed, so a crash never leaves half a file under a served name; no upload is stored while the
// filesystem has less free space than the reserve kept for the database.
import { constants } from "node:fs";
import { access, mkdir, open, readdir, rename, rm, stat, statfs, writeFile } from "node:fs/promises";
import path from "node:path";
import { storageFull } from "./image-files.ts";
import { localCovers } from "./local-covers.ts";
import { isUploadName } from "./upload-names.ts";
import type { NewFile, OpenedFile, StoredFile, UploadStore } from "./upload-store.ts";

export type FilesystemSettings = {
  /** Absolute folder the files live in (created when missing). */
  dir: string;
  /** Free space the filesystem keeps for the database: no upload is stored below it (0 = none). */
  diskReserveBytes: number;
};

/** Errors of a filesystem that ran out of space (or of the folder's own quota). */
const isOutOfSpace = (error: unknown) => ["ENOSPC", "EDQUOT"].includes((error as NodeJS.ErrnoException)?.code ?? "");

/** Refuses with STORAGE_FULL while the folder's filesystem has less free space than the reserve. */
export async function checkDiskReserve(settings: FilesystemSettings, field: string) {
  if (settings.diskReserveBytes <= 0) return;
  const fs = await statfs(settings.dir);
  if (fs.bavail * fs.bsize < settings.diskReserveBytes) throw storageFull(field);
}

/** The dot-name a file is written under before it gets its own: never served, swept after a crash. */
const tempNameOf = (name: string) => `.incoming-${name}`;
/** Such names (and the REST shim's spooled files, src/rest/requests/multipart.ts). */
const isTempName = (name: string) => /^\.incoming-[0-9a-z.-]+$/.test(name);

async function syncFolder(dir: string) {
  const handle = await open(dir, "r").catch(() => null);
  if (!handle) return;
  await handle.sync().catch(() => {}); // not every platform can sync a folder
  await handle.close();
}

export function filesystemStore(settings: FilesystemSettings): UploadStore {
  const { dir } = settings;
  // Removal and its keeping for backups are the data commands' folder store's (local-covers.ts).
  const covers = localCovers(dir);
  const pathOf = (name: string) => (isUploadName(name) ? path.join(dir, name) : null);

  async function statOf(name: string): Promise<StoredFile | null> {
    const file = pathOf(name);
    const info = file ? await stat(file).catch(() => null) : null;
    return info?.isFile() ? { bytes: info.size, modified: info.mtime } : null;
  }

  return {
    kind: "filesystem",

    async ensureRoom(field) {
      await mkdir(dir, { recursive: true });
      await checkDiskReserve(settings, field);
    },

    async create(name, _contentType, field): Promise<NewFile> {
      const temp = path.join(dir, tempNameOf(name));
      const file = await open(temp, "wx");
      let closed = false;
      const close = async () => {
        if (closed) return;
        closed = true;
        await file.close().catch(() => {});
      };
      const outOfSpace = (error: unknown) => (isOutOfSpace(error) ? storageFull(field) : error);
      return {
        // writeFile on a handle appends at the current position and loops until every byte is written.
        write: (chunk) => file.writeFile(chunk).catch((error) => Promise.reject(outOfSpace(error))),
        async commit() {
          try {
            await file.sync(); // durable before it gets its served name
            await close();
            // Uploads in flight together may have taken the disk below the reserve meanwhile.
            await checkDiskReserve(settings, field);
            await rename(temp, path.join(dir, name));
          } catch (error) {
            await close();
            await rm(temp, { force: true });
            throw outOfSpace(error);
          }
          await syncFolder(dir); // makes the new name itself durable
        },
        async abort() {
          await close();
          await rm(temp, { force: true });
        },
      };
    },

    async putIfAbsent(name, bytes) {
      const target = pathOf(name);
      if (!target || (await statOf(name))) return false;
      await mkdir(dir, { recursive: true });
      const temp = path.join(dir, tempNameOf(name));
      await writeFile(temp, bytes);
      await rename(temp, target);
      return true;
    },

    async open(name): Promise<OpenedFile | null> {
      const file = pathOf(name);
      // Opened first and read through the handle: a file deleted meanwhile is still sent whole or not at all.
      const handle = file ? await open(file, "r").catch(() => null) : null;
      if (!handle) return null;
      const info = await handle.stat().catch(() => null);
      if (!info?.isFile()) {
        await handle.close();
        return null;
      }
      return { bytes: info.size, modified: info.mtime, body: handle.createReadStream() };
    },

    stat: statOf,

    async remove(name) {
      if (isUploadName(name)) await covers.remove(name);
      else if (isTempName(name)) await rm(path.join(dir, name), { force: true }); // the sweep's leftovers
    },

    async discard(name) {
      if (isUploadName(name)) await rm(path.join(dir, name), { force: true });
    },

    purge: () => covers.purge(),

    async *list() {
      const names = await readdir(dir).catch(() => [] as string[]); // no folder yet: nothing stored
      for (const name of names) {
        if (!isUploadName(name) && !isTempName(name)) continue;
        const info = await stat(path.join(dir, name)).catch(() => null);
        if (info?.isFile()) yield { name, modified: info.mtime };
      }
    },

    /** Two system calls: the folder exists, is a folder, and this process may write in it. */
    async check() {
      if (!(await stat(dir)).isDirectory()) throw new Error(`${dir} is not a folder`);
      await access(dir, constants.W_OK);
    },

    close() {},
  };
}
