// File chores of the data commands: copying a file under a temporary name and renaming it (a
// crash never leaves half a file under a real name), SHA-256 on the way, and making a whole
// folder durable with one filesystem sync instead of one fsync per file.
import { createHash } from "node:crypto";
import { execFile } from "node:child_process";
import { createReadStream, createWriteStream } from "node:fs";
import { open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";

export type CopiedFile = { bytes: number; sha256: string };

/** A dot-name the upload sweep removes once old (a copy cut short by a crash). */
const tempName = (name: string) => `.incoming-copy-${process.pid}-${name}`;

/** A copied file's content is not the one expected (a damaged backup). */
export class ChecksumMismatch extends Error {}

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
  const hash = createHash("sha256");
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(createReadStream(from), measure, createWriteStream(to, { flags: "wx" }));
  return { bytes, sha256: hash.digest("hex") };
}

export async function sha256OfFile(file: string): Promise<CopiedFile> {
  if ((await stat(file)).size <= WHOLE_FILE_BYTES) {
    const bytes = await readFile(file);
    return { bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
  }
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, sha256: hash.digest("hex") };
}

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
