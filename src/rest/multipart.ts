// multipart/form-data for the REST routes (a grocery's cover): registered in the REST plugin's
// scope only (/graphql has its own upload handling), with limits; fields become body fields and
// the file a ReceivedFile that the `file` field kind turns into an Upload.
import multipart from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { DomainError } from "../domain/errors.ts";
import { receivedFile } from "./upload.ts";

/** DESIGN.md "Covers": 5 MB by default. */
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;
/** A text field (description, JSON-array strings) is far below this. */
export const MAX_FIELD_BYTES = 100 * 1024;
const MAX_FIELDS = 200;

export type MultipartLimits = { maxFileBytes: number };

export async function registerMultipart(app: FastifyInstance, { maxFileBytes }: MultipartLimits) {
  await app.register(multipart, {
    // busboy flags a file that reaches its limit as truncated even at exactly that size: one byte
    // more lets a file of exactly maxFileBytes through (the storage behind the resolver enforces it too).
    limits: { fileSize: maxFileBytes + 1, files: 1, fieldSize: MAX_FIELD_BYTES, fields: MAX_FIELDS, parts: MAX_FIELDS + 1 },
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
      return new DomainError("BAD_USER_INPUT", "The multipart/form-data body could not be read; check its boundary and parts.");
  }
}

/** Reads every part: text fields (repeated names -> arrays) and at most one file, kept in memory. */
export async function readMultipart(request: FastifyRequest, { maxFileBytes }: MultipartLimits): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = {};
  const add = (name: string, value: unknown) => {
    if (!Object.hasOwn(fields, name)) fields[name] = value;
    else if (Array.isArray(fields[name])) (fields[name] as unknown[]).push(value);
    else fields[name] = [fields[name], value];
  };
  try {
    for await (const part of request.parts()) {
      if (part.type === "file") {
        const content = await part.toBuffer();
        // A browser form with no file chosen sends an empty part without a name: no file.
        if (!part.filename && content.length === 0) continue;
        add(part.fieldname, receivedFile({ fieldName: part.fieldname, filename: part.filename, mimetype: part.mimetype, encoding: part.encoding, content }));
      } else {
        if (part.valueTruncated) throw new DomainError("PAYLOAD_TOO_LARGE", `${part.fieldname} is larger than ${MAX_FIELD_BYTES / 1024} KB.`);
        if (typeof part.value === "string" && part.value.includes(REPLACEMENT_CHARACTER)) throw notUtf8Field(part.fieldname);
        add(part.fieldname, part.value);
      }
    }
  } catch (error) {
    throw multipartError(error, maxFileBytes);
  }
  return fields;
}
