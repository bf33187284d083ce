// The cover files that go with a database snapshot: exactly those its rows name, no more, no
// fewer. They are copied from the cover store (src/storage/cover-store.ts) after the snapshot,
// under a hold the backup made before it: a cover the running service replaces or deletes
// meanwhile is removed from the store's live covers but kept until the hold ends, so every cover
// there at the snapshot can still be copied. Each file's SHA-256 goes into a `sha256sum`-style list.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CoverListing, CoverStore } from "../../storage/cover-store.ts";
import type { CopiedFile } from "../../storage/file-copies.ts";
import { isUploadName } from "../../storage/upload-names.ts";
import { checkpoint } from "../interruption.ts";
import type { Progress } from "../progress.ts";

export type CoverFiles = Map<string, CopiedFile>;

/** A cover the snapshot names was in the store at the snapshot, and could not be copied (exit code 1). */
export class CoverLost extends Error {}

/**
 * Sorts the covers the snapshot names by `present`, the store's listing taken after the snapshot,
 * under the hold: every cover there at the snapshot is in it, live or removed since. A name it
 * lacks was already dangling at the snapshot (the database's own reference to a file that was
 * gone): reported, never invented.
 */
export function sortReferenced(referenced: Iterable<string>, present: CoverListing) {
  const there: string[] = [];
  const dangling: string[] = [];
  for (const name of [...referenced].sort())
    (present.live.has(name) || present.removed.has(name) ? there : dangling).push(name);
  return { there, dangling };
}

/**
 * Copies into `dest` each cover `referenced` names that was there at the snapshot (sortReferenced);
 * one that cannot be copied fails the command (CoverLost). The one place the data commands copy
 * covers out of a store. `dest`: a backup's folder, or a store (copy-data --uploads-to) that may
 * hold covers already (a resumed copy), where one with the same content is not copied again.
 */
export async function copySnapshotCovers(
  store: CoverStore,
  dest: string | CoverStore,
  referenced: Set<string> | string[],
  present: CoverListing,
  progress: Progress,
): Promise<{ files: CoverFiles; dangling: string[]; copied: number }> {
  const { there, dangling } = sortReferenced(referenced, present);
  progress.phase("covers", there.length + dangling.length, "files");
  progress.advance(dangling.length);
  const files: CoverFiles = new Map();
  let copied = 0;
  const into = typeof dest === "string" ? undefined : dest;
  const copier = coverCopier(store, dest);
  try {
    for (const name of there) {
      checkpoint();
      const already = into && (await into.read(name));
      const original = already && (await store.read(name, { orRemoved: true }));
      if (already && original && already.sha256 === original.sha256) files.set(name, original);
      else {
        const copy = await copier.copy(name);
        if (!copy)
          throw new CoverLost(
            `cover ${name} was in ${store.kind === "folder" ? "the upload folder" : store.label} at the snapshot but could not be copied (gone, or a link to nothing; removed by something other than the gateway?)`,
          );
        files.set(name, copy);
        copied++;
      }
      progress.advance(1);
    }
  } finally {
    await copier.done();
  }
  return { files, dangling, copied };
}

/**
 * Copies covers of `store` into a folder, or into another store: straight into its folder, or
 * through a scratch folder (one cover at a time) into a bucket, checked against the original's SHA-256.
 */
function coverCopier(store: CoverStore, dest: string | CoverStore) {
  const folder = typeof dest === "string" ? dest : dest.folder;
  let scratch: string | undefined;
  return {
    async copy(name: string): Promise<CopiedFile | undefined> {
      if (folder !== undefined) return store.copyTo(name, folder);
      const bucket = dest as CoverStore;
      scratch ??= await mkdtemp(path.join(tmpdir(), "gw-covers-"));
      const copy = await store.copyTo(name, scratch);
      if (!copy) return undefined;
      try {
        await bucket.put(name, path.join(scratch, name), copy.sha256);
      } finally {
        await rm(path.join(scratch, name), { force: true });
      }
      return copy;
    },
    async done() {
      if (scratch) await rm(scratch, { recursive: true, force: true });
    },
  };
}

export const totalBytes = (files: CoverFiles) => [...files.values()].reduce((sum, f) => sum + f.bytes, 0);

/** `<sha256>  <name>` lines, sorted by name: `sha256sum -c` reads them. */
export const checksumLines = (files: CoverFiles) =>
  [...files.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, f]) => `${f.sha256}  ${name}\n`)
    .join("");

/** Reads `checksumLines`' output back: name -> sha256. */
export function parseChecksumLines(text: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (!line) continue;
    const match = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (!match || !isUploadName(match[2]!)) throw new Error(`not a checksum line: ${line.slice(0, 80)}`);
    files.set(match[2]!, match[1]!);
  }
  return files;
}

/** Which of the `expected` covers `store` holds with their content, and which not. */
export async function checkCovers(
  store: CoverStore,
  expected: Map<string, string>,
): Promise<{ present: number; missing: string[]; differing: string[] }> {
  const missing: string[] = [];
  const differing: string[] = [];
  for (const [name, sha256] of expected) {
    checkpoint();
    const found = await store.read(name);
    if (!found) missing.push(name);
    else if (found.sha256 !== sha256) differing.push(name);
  }
  return { present: expected.size - missing.length - differing.length, missing, differing };
}
