// Uploaded images on local disk: saved under a random name with the extension of the format their
// bytes show (never their name or declared type), size-capped while streaming, written to a temp
// name and renamed so a crash never leaves half a file under a served name.
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, statfs } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import type { Config } from "../config.ts";
import { badInput, DomainError } from "../contract/errors.ts";
import { coverStoreAt } from "./cover-store.ts";
import { isUploadName, UPLOAD_NAME } from "./upload-names.ts";

export type UploadSettings = {
  /** Absolute folder the files live in (created when missing). */
  dir: string;
  /** Largest accepted file, in bytes. */
  maxBytes: number;
  /** Bytes of stored files one user's rows may reference in total (0 = no quota). */
  quotaBytes: number;
  /** Free space the filesystem keeps for the database: no upload is stored below it (0 = none). */
  diskReserveBytes: number;
};

export const uploadSettings = (config: Config): UploadSettings => ({
  dir: config.uploadDir,
  maxBytes: config.uploadMaxBytes,
  quotaBytes: config.uploadQuotaBytes,
  diskReserveBytes: config.uploadDiskReserveBytes,
});

/** A file saved by saveImage: its name under the folder and its size. */
export type SavedFile = { name: string; bytes: number };

/** A file sent by a client; `open` gives its bytes once (GraphQL's Upload and the REST shim both make these). */
export type IncomingFile = { filename: string; open(): Readable };

type ImageFormat = { extension: string; contentType: string; matches(head: Buffer): boolean };

/** Whether `head` holds exactly these bytes (or ASCII characters) at offset `at`. */
function startsWith(head: Buffer, bytes: number[] | string, at = 0) {
  const expected = typeof bytes === "string" ? Buffer.from(bytes, "latin1") : Buffer.from(bytes);
  return expected.equals(head.subarray(at, at + expected.length));
}

const FORMATS: ImageFormat[] = [
  {
    extension: "png",
    contentType: "image/png",
    matches: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  { extension: "jpg", contentType: "image/jpeg", matches: (h) => startsWith(h, [0xff, 0xd8, 0xff]) },
  { extension: "gif", contentType: "image/gif", matches: (h) => startsWith(h, "GIF87a") || startsWith(h, "GIF89a") },
  { extension: "webp", contentType: "image/webp", matches: (h) => startsWith(h, "RIFF") && startsWith(h, "WEBP", 8) },
];

/** Bytes needed to tell the formats apart (WebP's tag ends at byte 12). */
const SNIFF_BYTES = 12;

export { isUploadName };

/** The image format of the first bytes of a file, if it is one we accept. */
export const sniffImage = (head: Buffer) => FORMATS.find((f) => f.matches(head));

/** Content type of a stored file, from the extension given at save time. */
export function contentTypeOf(name: string): string | undefined {
  const extension = UPLOAD_NAME.exec(name)?.[1];
  return FORMATS.find((f) => f.extension === extension)?.contentType;
}

/** Path of a stored file, or null for any name this module did not generate (path traversal etc.). */
export function uploadPath(settings: Pick<UploadSettings, "dir">, name: string): string | null {
  return isUploadName(name) ? path.join(settings.dir, name) : null;
}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 100) / 100} MB`;

export const tooLarge = (field: string, maxBytes: number) =>
  new DomainError(
    "PAYLOAD_TOO_LARGE",
    `${field}: the file is larger than ${megabytes(maxBytes)} (${maxBytes} bytes).`,
    {
      field,
      maxBytes,
    },
  );

export const quotaExceeded = (field: string, quotaBytes: number, usedBytes: number) =>
  new DomainError(
    "UPLOAD_QUOTA_EXCEEDED",
    `${field}: this file would take the owner's uploads past their quota of ${megabytes(quotaBytes)} (${megabytes(usedBytes)} stored); remove or replace covers to make room.`,
    { field, quotaBytes, usedBytes },
  );

export const storageFull = (field: string) =>
  new DomainError(
    "STORAGE_FULL",
    `${field}: the server is short of disk space and stores no uploads for now; try again later.`,
    { field },
  );

/** Errors of a filesystem that ran out of space (or of the folder's own quota). */
const isOutOfSpace = (error: unknown) => ["ENOSPC", "EDQUOT"].includes((error as NodeJS.ErrnoException)?.code ?? "");

/** Refuses with STORAGE_FULL while the upload folder's filesystem has less free space than the reserve. */
export async function checkDiskReserve(settings: Pick<UploadSettings, "dir" | "diskReserveBytes">, field: string) {
  if (settings.diskReserveBytes <= 0) return;
  const fs = await statfs(settings.dir);
  if (fs.bavail * fs.bsize < settings.diskReserveBytes) throw storageFull(field);
}

const notAnImage = (field: string) =>
  badInput(`${field}: the file is not a PNG, JPEG, WebP or GIF image (recognised by its content, not its name).`, {
    field,
  });

/** A stream that a busboy-style parser truncated at its own size limit. */
const wasTruncated = (source: Readable) => (source as Readable & { truncated?: boolean }).truncated === true;

/**
 * Streams `source` to a new file and returns its name and size. Refuses (deleting what was
 * written) a file that is not an accepted image, is larger than the limit, or larger than what
 * is left of the owner's quota (`quota.leftBytes`: UPLOAD_QUOTA_EXCEEDED), and any file while the
 * disk is below its reserve, before or after writing (STORAGE_FULL). The source is read to its
 * end even when refused, without being destroyed, so a multipart parser feeding it can move on.
 */
export async function saveImage(
  settings: UploadSettings,
  source: Readable,
  field = "cover",
  quota?: { leftBytes: number; usedBytes: number },
): Promise<SavedFile> {
  await mkdir(settings.dir, { recursive: true });
  try {
    await checkDiskReserve(settings, field);
  } catch (error) {
    drain(source);
    throw error;
  }
  const id = randomBytes(16).toString("hex");
  // A dot-name never matches UPLOAD_NAME, so a temp file is never served.
  const tempPath = path.join(settings.dir, `.incoming-${id}`);
  let found: { format: ImageFormat; bytes: number };
  try {
    const file = await open(tempPath, "wx");
    try {
      const tooMuch =
        quota && quota.leftBytes < settings.maxBytes
          ? () => quotaExceeded(field, settings.quotaBytes, quota.usedBytes)
          : null;
      const limit = tooMuch ? Math.max(0, quota!.leftBytes) : settings.maxBytes;
      // writeFile on a handle appends at the current position and loops until every byte is written.
      found = await copyChecked(
        source,
        (chunk) => file.writeFile(chunk),
        limit,
        field,
        tooMuch ?? (() => tooLarge(field, settings.maxBytes)),
      );
      await file.sync(); // durable before it gets its served name
    } finally {
      await file.close().catch(() => {});
    }
    // Uploads in flight together may have taken the disk below the reserve meanwhile.
    await checkDiskReserve(settings, field);
  } catch (error) {
    drain(source);
    await rm(tempPath, { force: true });
    throw isOutOfSpace(error) ? storageFull(field) : error;
  }
  const name = `${id}.${found.format.extension}`;
  try {
    await rename(tempPath, path.join(settings.dir, name));
  } catch (error) {
    await rm(tempPath, { force: true });
    throw error;
  }
  await syncFolder(settings.dir); // makes the new name itself durable
  return { name, bytes: found.bytes };
}

/** Reads and drops what is left of a refused file, so the request behind it can finish. */
function drain(source: Readable) {
  if (source.readableEnded || source.destroyed) return;
  source.on("error", () => {});
  source.resume();
}

async function syncFolder(dir: string) {
  const handle = await open(dir, "r").catch(() => null);
  if (!handle) return;
  await handle.sync().catch(() => {}); // not every platform can sync a folder
  await handle.close();
}

/** Copies chunks to `write` one at a time, checking the size and the first bytes as they come. */
function copyChecked(
  source: Readable,
  write: (chunk: Buffer) => Promise<unknown>,
  maxBytes: number,
  field: string,
  overLimit: () => DomainError,
): Promise<{ format: ImageFormat; bytes: number }> {
  return new Promise((resolve, reject) => {
    let size = 0;
    let head = Buffer.alloc(0);
    let format: ImageFormat | undefined;
    let failed = false;
    let writing: Promise<unknown> = Promise.resolve();

    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      // Keep reading (and dropping) the rest so the request behind it can finish.
      source.on("error", () => {});
      source.resume();
      writing.finally(() => reject(error));
    };

    // A request cut short mid-file: the parser destroys the file stream without an error, so it
    // neither ends nor fails; without this the save (and the request) would wait forever.
    const cutShort = () =>
      badInput(`${field}: the file was cut short (the request ended before the whole file arrived).`, { field });
    if (source.destroyed && !source.readableEnded) return fail(cutShort());
    source.on("close", () => {
      if (!source.readableEnded) fail(cutShort());
    });
    source.on("limit", () => fail(overLimit())); // busboy's own cap was hit
    // A parser reports a client that went away mid-file as 499 (graphql-upload-minimal): the client's doing, not ours.
    source.on("error", (error) => fail((error as { status?: unknown }).status === 499 ? cutShort() : error));
    source.on("data", (chunk: Buffer | string) => {
      if (failed) return;
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBytes) return fail(overLimit());
      if (!format) {
        head = Buffer.concat([head, bytes.subarray(0, SNIFF_BYTES)]).subarray(0, SNIFF_BYTES);
        if (head.length >= SNIFF_BYTES) {
          format = sniffImage(head);
          if (!format) return fail(notAnImage(field));
        }
      }
      source.pause();
      writing = writing
        .then(() => write(bytes))
        .then(
          () => failed || source.resume(),
          (error) => fail(error),
        );
    });
    source.on("end", () => {
      if (failed) return;
      if (wasTruncated(source)) return fail(overLimit());
      format ??= sniffImage(head); // a file shorter than SNIFF_BYTES
      if (!format) return fail(notAnImage(field));
      const found = { format, bytes: size };
      writing.then(() => (failed ? undefined : resolve(found)));
    });
  });
}

/**
 * Removes a stored file a committed row named: no longer served, kept a while for a backup whose
 * snapshot may name it (src/storage/local-covers.ts). A name this module did not generate, or a
 * file already gone, is ignored.
 */
export async function deleteUpload(settings: UploadSettings, name: string | null | undefined): Promise<void> {
  if (name) await coverStoreAt(settings.dir).remove(name);
}

/** Deletes at once a file saved for a write that failed: no committed row, so no snapshot, ever named it. */
export async function discardUpload(settings: UploadSettings, name: string | null | undefined): Promise<void> {
  const target = name ? uploadPath(settings, name) : null;
  if (target) await rm(target, { force: true });
}
