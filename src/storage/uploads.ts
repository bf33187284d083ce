// Uploaded images on local disk: saved under a random name with the extension of the format their
// bytes show (never their name or declared type), size-capped while streaming, written to a temp
// name and renamed so a crash never leaves half a file under a served name.
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import type { Config } from "../config.ts";
import { badInput, DomainError } from "../domain/errors.ts";

export type UploadSettings = {
  /** Absolute folder the files live in (created when missing). */
  dir: string;
  /** Largest accepted file, in bytes. */
  maxBytes: number;
};

export const uploadSettings = (config: Config): UploadSettings => ({ dir: config.uploadDir, maxBytes: config.uploadMaxBytes });

/** A file sent by a client; `open` gives its bytes once (GraphQL's Upload and the REST shim both make these). */
export type IncomingFile = { filename: string; open(): Readable };

type ImageFormat = { extension: string; contentType: string; matches(head: Buffer): boolean };

/** Whether `head` holds exactly these bytes (or ASCII characters) at offset `at`. */
function startsWith(head: Buffer, bytes: number[] | string, at = 0) {
  const expected = typeof bytes === "string" ? Buffer.from(bytes, "latin1") : Buffer.from(bytes);
  return expected.equals(head.subarray(at, at + expected.length));
}

const FORMATS: ImageFormat[] = [
  { extension: "png", contentType: "image/png", matches: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { extension: "jpg", contentType: "image/jpeg", matches: (h) => startsWith(h, [0xff, 0xd8, 0xff]) },
  { extension: "gif", contentType: "image/gif", matches: (h) => startsWith(h, "GIF87a") || startsWith(h, "GIF89a") },
  { extension: "webp", contentType: "image/webp", matches: (h) => startsWith(h, "RIFF") && startsWith(h, "WEBP", 8) },
];

/** Bytes needed to tell the formats apart (WebP's tag ends at byte 12). */
const SNIFF_BYTES = 12;

/** The names this module gives files; anything else is never read or deleted. */
const UPLOAD_NAME = /^[0-9a-f]{32}\.(png|jpg|gif|webp)$/;

export const isUploadName = (name: string) => UPLOAD_NAME.test(name);

/** The image format of the first bytes of a file, if it is one we accept. */
export const sniffImage = (head: Buffer) => FORMATS.find((f) => f.matches(head));

/** Content type of a stored file, from the extension given at save time. */
export function contentTypeOf(name: string): string | undefined {
  const extension = UPLOAD_NAME.exec(name)?.[1];
  return FORMATS.find((f) => f.extension === extension)?.contentType;
}

/** Path of a stored file, or null for any name this module did not generate (path traversal etc.). */
export function uploadPath(settings: UploadSettings, name: string): string | null {
  return isUploadName(name) ? path.join(settings.dir, name) : null;
}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 100) / 100} MB`;

export const tooLarge = (field: string, maxBytes: number) =>
  new DomainError("PAYLOAD_TOO_LARGE", `${field}: the file is larger than ${megabytes(maxBytes)} (${maxBytes} bytes).`, {
    field,
    maxBytes,
  });

const notAnImage = (field: string) =>
  badInput(`${field}: the file is not a PNG, JPEG, WebP or GIF image (recognised by its content, not its name).`, { field });

/** A stream that a busboy-style parser truncated at its own size limit. */
const wasTruncated = (source: Readable) => (source as Readable & { truncated?: boolean }).truncated === true;

/**
 * Streams `source` to a new file and returns its name. Refuses (deleting what was written) a file
 * that is not an accepted image or is larger than the limit. The source is read to its end even
 * when refused, without being destroyed, so a multipart parser feeding it can move on.
 */
export async function saveImage(settings: UploadSettings, source: Readable, field = "cover"): Promise<string> {
  await mkdir(settings.dir, { recursive: true });
  const id = randomBytes(16).toString("hex");
  // A dot-name never matches UPLOAD_NAME, so a temp file is never served.
  const tempPath = path.join(settings.dir, `.incoming-${id}`);
  const file = await open(tempPath, "wx");
  let format: ImageFormat | undefined;
  try {
    // writeFile on a handle appends at the current position and loops until every byte is written.
    format = await copyChecked(source, (chunk) => file.writeFile(chunk), settings.maxBytes, field);
    await file.sync(); // durable before it gets its served name
  } catch (error) {
    await file.close().catch(() => {});
    await rm(tempPath, { force: true });
    throw error;
  }
  await file.close();
  const name = `${id}.${format.extension}`;
  try {
    await rename(tempPath, path.join(settings.dir, name));
  } catch (error) {
    await rm(tempPath, { force: true });
    throw error;
  }
  await syncFolder(settings.dir); // makes the new name itself durable
  return name;
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
): Promise<ImageFormat> {
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
    const cutShort = () => badInput(`${field}: the file was cut short (the request ended before the whole file arrived).`, { field });
    if (source.destroyed && !source.readableEnded) return fail(cutShort());
    source.on("close", () => {
      if (!source.readableEnded) fail(cutShort());
    });
    source.on("limit", () => fail(tooLarge(field, maxBytes))); // busboy's own cap was hit
    // A parser reports a client that went away mid-file as 499 (graphql-upload-minimal): the client's doing, not ours.
    source.on("error", (error) => fail((error as { status?: unknown }).status === 499 ? cutShort() : error));
    source.on("data", (chunk: Buffer | string) => {
      if (failed) return;
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBytes) return fail(tooLarge(field, maxBytes));
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
      if (wasTruncated(source)) return fail(tooLarge(field, maxBytes));
      format ??= sniffImage(head); // a file shorter than SNIFF_BYTES
      if (!format) return fail(notAnImage(field));
      const found = format;
      writing.then(() => (failed ? undefined : resolve(found)));
    });
  });
}

/** Deletes a stored file; a name this module did not generate, or a file already gone, is ignored. */
export async function deleteUpload(settings: UploadSettings, name: string | null | undefined): Promise<void> {
  const target = name ? uploadPath(settings, name) : null;
  if (target) await rm(target, { force: true });
}
