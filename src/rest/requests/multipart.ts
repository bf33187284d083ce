// multipart/form-data for the REST routes (a grocery's cover): registered in the REST plugin's
// scope only (/graphql has its own upload handling), with limits; fields become body fields and
// the file a ReceivedFile that the `file` field kind turns into an Upload.
// The route needs every field before it runs (they pick the operation and its variables) and the
// file may come first, so the file waits on disk, not in memory: a slow or stalled upload holds a
// few kilobytes of buffers, whatever the file's size.
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import multipart from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { DomainError } from "../../contract/errors.ts";
import { storageFull } from "../../storage/image-files.ts";
import { checkDiskReserve } from "../../storage/filesystem-store.ts";
import { receivedFile } from "./received-file.ts";

/** docs/rest-contract.md ("Resources"): 5 MB by default. */
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;
/** A text field (description, JSON-array strings) is far below this. */
export const MAX_FIELD_BYTES = 100 * 1024;
/** The largest route reads a few dozen fields; more is a flood, refused before it is parsed. */
const MAX_FIELDS = 200;

export type MultipartLimits = { maxFileBytes: number };

export async function registerMultipart(app: FastifyInstance, { maxFileBytes }: MultipartLimits) {
  await app.register(multipart, {
    // busboy flags a file that reaches its limit as truncated even at exactly that size: one byte
    // more lets a file of exactly maxFileBytes through (the storage behind the resolver enforces it too).
    limits: {
      fileSize: maxFileBytes + 1,
      files: 1,
      fieldSize: MAX_FIELD_BYTES,
      fields: MAX_FIELDS,
      parts: MAX_FIELDS + 1,
    },
  });
}

// busboy decodes a text part in its declared charset (UTF-8 when none is) and turns bytes that do
// not decode into U+FFFD before we see them: a Latin-1 "café" would be stored as "caf\uFFFD". Its
// output cannot tell such bytes from a U+FFFD the client really sent, so a text part holding one
// is refused (the rare client that means it can send JSON or a form, which are checked exactly).
const REPLACEMENT_CHARACTER = "\uFFFD";

const notUtf8Field = (name: string) =>
  new DomainError(
    "BAD_USER_INPUT",
    `The multipart field ${name} is not valid UTF-8 text (it decodes with U+FFFD replacement characters); send its text as UTF-8.`,
    { field: name },
  );

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

function multipartError(error: unknown, maxFileBytes: number): DomainError {
  if (error instanceof DomainError) return error;
  const code = (error as { code?: string }).code;
  switch (code) {
    case "FST_REQ_FILE_TOO_LARGE":
      return new DomainError("PAYLOAD_TOO_LARGE", `The file is larger than ${megabytes(maxFileBytes)}.`);
    case "FST_FILES_LIMIT":
      return new DomainError("PAYLOAD_TOO_LARGE", "Send at most one file per request.");
    case "FST_FIELDS_LIMIT":
    case "FST_PARTS_LIMIT":
      return new DomainError("PAYLOAD_TOO_LARGE", `Send at most ${MAX_FIELDS} fields per request.`);
    case "FST_INVALID_JSON_FIELD_ERROR":
      return new DomainError("BAD_USER_INPUT", "A multipart field declared as application/json is not valid JSON.");
    default:
      return new DomainError(
        "BAD_USER_INPUT",
        "The multipart/form-data body could not be read; check its boundary and parts.",
      );
  }
}

/**
 * The files of one request, each in a dot-file of the upload folder: never served, and swept like
 * any crash leftover (their names start with ".incoming-"). The route removes them once it has run,
 * or when its connection is lost.
 */
export class SpooledFiles {
  private readonly paths: string[] = [];
  private removed = false;

  /** `diskReserveBytes`: UPLOAD_DISK_RESERVE_BYTES, the free space no upload may take. */
  constructor(
    private readonly dir: string,
    private readonly diskReserveBytes = 0,
  ) {}

  /**
   * Streams `source` to a new file and returns its path and size; a file cut short is removed.
   * While the disk is below its reserve nothing is written (STORAGE_FULL): the cover would be
   * refused anyway, and uploads in flight must not be what fills the disk.
   */
  async spool(source: Readable, field: string): Promise<{ path: string; size: number }> {
    await mkdir(this.dir, { recursive: true });
    await checkDiskReserve({ dir: this.dir, diskReserveBytes: this.diskReserveBytes }, field);
    const file = path.join(this.dir, `.incoming-multipart-${randomBytes(16).toString("hex")}`);
    this.paths.push(file);
    const sink = createWriteStream(file, { flags: "wx" });
    try {
      await pipeline(source, sink);
    } catch (error) {
      await rm(file, { force: true });
      throw (error as NodeJS.ErrnoException).code === "ENOSPC" ? storageFull(field) : error;
    }
    if (this.removed) await rm(file, { force: true }); // the request ended while it was written
    return { path: file, size: sink.bytesWritten };
  }

  async removeAll(): Promise<void> {
    this.removed = true;
    await Promise.all(this.paths.splice(0).map((file) => rm(file, { force: true })));
  }
}

/** Reads every part: text fields (repeated names -> arrays) and at most one file, spooled to disk. */
export async function readMultipart(
  request: FastifyRequest,
  { maxFileBytes }: MultipartLimits,
  spooled: SpooledFiles,
): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = {};
  const add = (name: string, value: unknown) => {
    if (!Object.hasOwn(fields, name)) fields[name] = value;
    else if (Array.isArray(fields[name])) (fields[name] as unknown[]).push(value);
    else fields[name] = [fields[name], value];
  };
  try {
    for await (const part of request.parts()) {
      if (part.type === "file") {
        const { path: file, size } = await spooled.spool(part.file, part.fieldname);
        if ((part.file as Readable & { truncated?: boolean }).truncated)
          throw multipartError({ code: "FST_REQ_FILE_TOO_LARGE" }, maxFileBytes);
        // A browser form with no file chosen sends an empty part without a name: no file.
        if (!part.filename && size === 0) continue;
        add(
          part.fieldname,
          receivedFile({
            fieldName: part.fieldname,
            filename: part.filename,
            mimetype: part.mimetype,
            encoding: part.encoding,
            path: file,
          }),
        );
      } else {
        if (part.valueTruncated)
          throw new DomainError("PAYLOAD_TOO_LARGE", `${part.fieldname} is larger than ${MAX_FIELD_BYTES / 1024} KB.`);
        if (typeof part.value === "string" && part.value.includes(REPLACEMENT_CHARACTER))
          throw notUtf8Field(part.fieldname);
        add(part.fieldname, part.value);
      }
    }
  } catch (error) {
    throw multipartError(error, maxFileBytes);
  }
  return fields;
}
