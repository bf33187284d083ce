// Uploaded images: saved under a random name with the extension of the format their bytes show
// (never their name or declared type), size- and quota-capped while streaming, into the upload
// store (src/storage/upload-store.ts: UPLOAD_DIR or a bucket), which makes a file visible under
// its name only once every check passed.
import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import type { Config } from "../config.ts";
import { badInput, DomainError, RetryLaterError } from "../contract/errors.ts";
import { isUploadName, UPLOAD_NAME } from "./upload-names.ts";
import type { NewFile, UploadStore } from "./upload-store.ts";

export type UploadSettings = {
  /** Where the files live. */
  store: UploadStore;
  /** Largest accepted file, in bytes. */
  maxBytes: number;
  /** Bytes of stored files one user's rows may reference in total (0 = no quota). */
  quotaBytes: number;
};

export const uploadSettings = (config: Config, store: UploadStore): UploadSettings => ({
  store,
  maxBytes: config.uploadMaxBytes,
  quotaBytes: config.uploadQuotaBytes,
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

/** The answer to a request the store could not serve; the store's own error stays in `cause` for the log. */
export function storageUnavailable(cause?: unknown) {
  const error = new RetryLaterError(
    "STORAGE_UNAVAILABLE",
    "The file storage cannot be reached now; nothing was changed. Try again shortly.",
    5,
  );
  if (cause !== undefined) Object.assign(error, { cause });
  return error;
}

const notAnImage = (field: string) =>
  badInput(`${field}: the file is not a PNG, JPEG, WebP or GIF image (recognised by its content, not its name).`, {
    field,
  });

/** A stream that a busboy-style parser truncated at its own size limit. */
const wasTruncated = (source: Readable) => (source as Readable & { truncated?: boolean }).truncated === true;

/**
 * Streams `source` into the store as a new file and returns its name and size. Refuses (leaving
 * nothing stored) a file that is not an accepted image, is larger than the limit, or larger than
 * what is left of the owner's quota (`quota.leftBytes`: UPLOAD_QUOTA_EXCEEDED), and any file while
 * the store has no room (STORAGE_FULL) or cannot be reached (STORAGE_UNAVAILABLE). The source is
 * read to its end even when refused, without being destroyed, so a multipart parser feeding it
 * can move on.
 */
export async function saveImage(
  settings: UploadSettings,
  source: Readable,
  field = "cover",
  quota?: { leftBytes: number; usedBytes: number },
): Promise<SavedFile> {
  const { store } = settings;
  try {
    await store.ensureRoom(field);
  } catch (error) {
    drain(source);
    throw error;
  }
  const id = randomBytes(16).toString("hex");
  // The store's file is created once the first bytes tell the format (its name's extension).
  let file: NewFile | undefined;
  let name = "";
  const tooMuch =
    quota && quota.leftBytes < settings.maxBytes
      ? () => quotaExceeded(field, settings.quotaBytes, quota.usedBytes)
      : null;
  const limit = tooMuch ? Math.max(0, quota!.leftBytes) : settings.maxBytes;
  try {
    const found = await copyChecked(
      source,
      async (chunk, format) => {
        if (!file) {
          name = `${id}.${format.extension}`;
          file = await store.create(name, format.contentType, field);
        }
        await file.write(chunk);
      },
      limit,
      field,
      tooMuch ?? (() => tooLarge(field, settings.maxBytes)),
    );
    await file!.commit(); // created by the first write: an accepted image has at least one byte
    return { name, bytes: found.bytes };
  } catch (error) {
    drain(source);
    await file?.abort().catch(() => {});
    throw error;
  }
}

/** Reads and drops what is left of a refused file, so the request behind it can finish. */
function drain(source: Readable) {
  if (source.readableEnded || source.destroyed) return;
  source.on("error", () => {});
  source.resume();
}

/**
 * Copies chunks to `write` one at a time, checking the size and the first bytes as they come;
 * nothing is written before the first bytes show an accepted format.
 */
function copyChecked(
  source: Readable,
  write: (chunk: Buffer, format: ImageFormat) => Promise<unknown>,
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
    /** Chunks that came before the format was known (fewer than SNIFF_BYTES bytes in all). */
    let early: Buffer[] = [];
    const send = (bytes: Buffer, known: ImageFormat) => {
      source.pause();
      writing = writing
        .then(() => write(bytes, known))
        .then(
          () => failed || source.resume(),
          (error) => fail(error),
        );
    };
    source.on("data", (chunk: Buffer | string) => {
      if (failed) return;
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBytes) return fail(overLimit());
      if (format) return send(bytes, format);
      head = Buffer.concat([head, bytes.subarray(0, SNIFF_BYTES)]).subarray(0, SNIFF_BYTES);
      early.push(bytes);
      if (head.length < SNIFF_BYTES) return;
      format = sniffImage(head);
      if (!format) return fail(notAnImage(field));
      send(Buffer.concat(early), format);
      early = [];
    });
    source.on("end", () => {
      if (failed) return;
      if (wasTruncated(source)) return fail(overLimit());
      if (!format) {
        format = sniffImage(head); // a file shorter than SNIFF_BYTES
        if (!format) return fail(notAnImage(field));
        send(Buffer.concat(early), format);
      }
      const found = { format, bytes: size };
      writing.then(() => (failed ? undefined : resolve(found)));
    });
  });
}

/**
 * Removes a stored file a committed row named: no longer served; in a folder, kept a while for a
 * backup whose snapshot may name it (src/storage/folder/local-covers.ts). A name this module did not
 * generate, or a file already gone, is ignored.
 */
export async function deleteUpload(settings: UploadSettings, name: string | null | undefined): Promise<void> {
  if (name && isUploadName(name)) await settings.store.remove(name);
}

/** Deletes at once a file saved for a write that failed: no committed row, so no snapshot, ever named it. */
export async function discardUpload(settings: UploadSettings, name: string | null | undefined): Promise<void> {
  if (name && isUploadName(name)) await settings.store.discard(name);
}
