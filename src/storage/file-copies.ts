// File chores of the cover store and the data commands: copying a file under a temporary name
// and renaming it (a crash never leaves half a file under a real name), SHA-256 on the way, and
// creating folders one level at a time with a plain reason when the filesystem refuses.
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, mkdirSync, rmdirSync, statSync } from "node:fs";
import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

export type CopiedFile = { bytes: number; sha256: string };

/** A dot-name the upload sweep removes once old (a copy cut short by a crash). */
const tempName = (name: string) => `.incoming-copy-${process.pid}-${name}`;

/** A copied file's content is not the one expected (a damaged backup). */
export class ChecksumMismatch extends Error {}

/** Whether `error` says that `file` itself does not exist (not the folder a copy goes to). */
export const isMissing = (error: unknown, file: string) => {
  const e = error as NodeJS.ErrnoException;
  return e?.code === "ENOENT" && (e.path === undefined || e.path === file);
};

/**
 * Copies `from` to `dir/name` (through a temporary name) and returns its size and SHA-256.
 * With `expectedSha256`, a copy with other content is removed and refused (ChecksumMismatch).
 */
export async function copyFile(from: string, dir: string, name: string, expectedSha256?: string): Promise<CopiedFile> {
  const temp = path.join(dir, tempName(name));
  try {
    const copied =
      (await stat(from)).size <= WHOLE_FILE_BYTES ? await copyWhole(from, temp) : await copyStreamed(from, temp);
    if (expectedSha256 && copied.sha256 !== expectedSha256)
      throw new ChecksumMismatch(`${from} does not match its checksum`);
    await rename(temp, path.join(dir, name));
    return copied;
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Files up to this size are read and written whole: for thousands of small covers that took
 * 0.6 ms a file here, against 4 ms through a stream pipeline.
 */
const WHOLE_FILE_BYTES = 32 * 1024 * 1024;

async function copyWhole(from: string, to: string): Promise<CopiedFile> {
  const bytes = await readFile(from);
  await writeFile(to, bytes, { flag: "wx" });
  return { bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
}

async function copyStreamed(from: string, to: string): Promise<CopiedFile> {
  return writeMeasured(createReadStream(from), to);
}

/** Writes `source` to the new file `to`, measuring its size and SHA-256 on the way. */
async function writeMeasured(source: Readable, to: string): Promise<CopiedFile> {
  const hash = createHash("sha256");
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(source, measure, createWriteStream(to, { flags: "wx" }));
  return { bytes, sha256: hash.digest("hex") };
}

/** Streams `source` (e.g. an object's body) into `dir/name` through a temporary name; its size and SHA-256. */
export async function saveStream(source: Readable, dir: string, name: string): Promise<CopiedFile> {
  const temp = path.join(dir, tempName(name));
  try {
    const saved = await writeMeasured(source, temp);
    await rename(temp, path.join(dir, name));
    return saved;
  } catch (error) {
    source.destroy();
    await rm(temp, { force: true });
    throw error;
  }
}

/** Size and SHA-256 of a stream read to its end. */
export async function sha256OfStream(source: AsyncIterable<Buffer>): Promise<CopiedFile> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of source) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest("hex") };
}

export async function sha256OfFile(file: string): Promise<CopiedFile> {
  if ((await stat(file)).size <= WHOLE_FILE_BYTES) {
    const bytes = await readFile(file);
    return { bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
  }
  return sha256OfStream(createReadStream(file));
}

/** A folder that cannot be created (or used), with the filesystem's reason in words. */
export class FolderRefused extends Error {}

/** The filesystem's refusal in words: a read-only filesystem, a full disk, a permission. */
export function folderProblem(error: unknown, folder: string): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  switch (code) {
    case "EROFS":
      return `${folder} is on a read-only filesystem`;
    case "EACCES":
    case "EPERM":
      return `permission denied in ${folder}`;
    case "ENOSPC":
    case "EDQUOT":
      return `the disk holding ${folder} is full`;
    case "ENOTDIR":
      return `${folder} is not a folder`;
    case "ENOENT":
      return `${folder} does not take new folders (a virtual filesystem such as /proc?)`;
    default:
      return `${folder}: ${code ?? (error as Error)?.message ?? error}`;
  }
}

/**
 * Creates `dir` and whichever of its parents are missing, one level at a time (Node's recursive
 * mkdir retries forever on a filesystem such as /proc that answers ENOENT to everything), and
 * returns the folders it created, outermost first. Refused with the filesystem's reason.
 */
export function createFolders(dir: string, mode = 0o777): string[] {
  const missing: string[] = [];
  let existing = path.resolve(dir);
  for (;;) {
    try {
      if (!statSync(existing).isDirectory()) throw new FolderRefused(`${existing} is not a folder`);
      break;
    } catch (error) {
      if (error instanceof FolderRefused) throw error;
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new FolderRefused(folderProblem(error, existing));
      missing.unshift(existing);
      const parent = path.dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  const created: string[] = [];
  for (const folder of missing) {
    try {
      mkdirSync(folder, { mode });
    } catch (error) {
      removeFolders(created);
      throw new FolderRefused(`cannot create ${folder}: ${folderProblem(error, path.dirname(folder))}`);
    }
    created.push(folder);
  }
  return created;
}

/** Removes folders `createFolders` made, innermost first, each only while empty. */
export function removeFolders(created: string[]): void {
  for (const folder of [...created].reverse()) {
    try {
      rmdirSync(folder);
    } catch {
      return; // something else is in it now: it stays, and so do its parents
    }
  }
}
