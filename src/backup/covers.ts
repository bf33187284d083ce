// The cover files that go with a database snapshot: exactly those its rows name (none missing,
// no orphan). Files are copied twice over: every upload present *before* the snapshot is copied
// first (so a cover replaced or removed by the service while the snapshot is taken is still
// there), then those the snapshot names that arrived meanwhile, and the copies no row names are
// dropped. Each file's SHA-256 goes into a `sha256sum`-style list.
import { mkdir, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { isUploadName } from "../storage/image-files.ts";
import { copyFile, sha256OfFile, type CopiedFile } from "./files.ts";
import type { Progress } from "./progress.ts";

export type CoverFiles = Map<string, CopiedFile>;

async function uploadNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter(isUploadName).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return []; // no upload yet
    throw error;
  }
}

/** Copies every upload file now in `uploadDir` into `dest`. */
export async function stageCovers(uploadDir: string, dest: string, progress: Progress): Promise<CoverFiles> {
  const names = await uploadNames(uploadDir);
  progress.phase("covers", names.length, "files");
  const staged: CoverFiles = new Map();
  for (const name of names) {
    try {
      staged.set(name, await copyFile(path.join(uploadDir, name), dest, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error; // removed since the listing: not needed
    }
    progress.advance(1);
  }
  return staged;
}

/**
 * Keeps the staged copies `referenced` names, adds those that arrived after staging, removes the
 * rest. `absent`: names the snapshot refers to that `uploadDir` does not hold (the source's own
 * dangling references; reported, never invented).
 */
export async function settleCovers(
  uploadDir: string,
  dest: string,
  staged: CoverFiles,
  referenced: Set<string>,
): Promise<{ files: CoverFiles; absent: string[] }> {
  const files: CoverFiles = new Map();
  const absent: string[] = [];
  for (const name of [...referenced].sort()) {
    const copy = staged.get(name);
    if (copy) {
      files.set(name, copy);
      continue;
    }
    try {
      files.set(name, await copyFile(path.join(uploadDir, name), dest, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      absent.push(name);
    }
  }
  for (const name of staged.keys()) if (!referenced.has(name)) await rm(path.join(dest, name), { force: true });
  return { files, absent };
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

/**
 * Puts covers into `uploadDir`, each checked against its expected SHA-256; one already there
 * with that content is kept. On any failure (a damaged file, a full disk) the files this call
 * added are removed again. Returns the names it added.
 */
export async function placeCovers(
  from: string,
  uploadDir: string,
  expected: Map<string, string>,
  progress: Progress,
): Promise<string[]> {
  await mkdir(uploadDir, { recursive: true });
  progress.phase("covers", expected.size, "files");
  const added: string[] = [];
  try {
    for (const [name, sha256] of expected) {
      const target = path.join(uploadDir, name);
      const present = await sha256OfFile(target).catch(() => null);
      if (present?.sha256 !== sha256) {
        await copyFile(path.join(from, name), uploadDir, name, sha256);
        if (!present) added.push(name);
      }
      progress.advance(1);
    }
    return added;
  } catch (error) {
    for (const name of added) await rm(path.join(uploadDir, name), { force: true });
    throw error;
  }
}

/** Which of the `expected` covers `uploadDir` holds with their content, and which not. */
export async function checkCovers(
  uploadDir: string,
  expected: Map<string, string>,
): Promise<{ present: number; missing: string[]; differing: string[] }> {
  const missing: string[] = [];
  const differing: string[] = [];
  for (const [name, sha256] of expected) {
    const found = await sha256OfFile(path.join(uploadDir, name)).catch(() => null);
    if (!found) missing.push(name);
    else if (found.sha256 !== sha256) differing.push(name);
  }
  return { present: expected.size - missing.length - differing.length, missing, differing };
}
