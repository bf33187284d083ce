// A file part of a multipart request, and the Upload value made from it: graphql-upload-minimal's
// Upload scalar accepts an `Upload` instance and hands resolvers its promise, which resolves to
// {filename, fieldName, mimetype, encoding, createReadStream}: the same thing /graphql gives.
import { createReadStream } from "node:fs";
import { Upload } from "graphql-upload-minimal";

const RECEIVED = Symbol("received file");

export type ReceivedFile = {
  [RECEIVED]: true;
  fieldName: string;
  filename: string;
  mimetype: string;
  encoding: string;
  /** Where its bytes wait (src/rest/requests/multipart.ts), until the route has run. */
  path: string;
};

export function receivedFile(parts: Omit<ReceivedFile, typeof RECEIVED>): ReceivedFile {
  return { [RECEIVED]: true, ...parts };
}

export const isReceivedFile = (value: unknown): value is ReceivedFile =>
  typeof value === "object" && value !== null && RECEIVED in value;

export function toUpload(file: ReceivedFile): Upload {
  const upload = new Upload() as Upload & { resolve(file: unknown): void };
  upload.resolve({
    fieldName: file.fieldName,
    filename: file.filename,
    mimetype: file.mimetype,
    encoding: file.encoding,
    // The file has fully arrived: each call gets a fresh stream of it.
    createReadStream: () => createReadStream(file.path),
  });
  return upload;
}
