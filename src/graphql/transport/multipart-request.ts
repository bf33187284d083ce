// File uploads on /graphql (the GraphQL multipart request spec) with graphql-upload-minimal:
// a multipart body is parsed by processRequest in a hook and its result (the operation, with an
// Upload wherever a file goes) becomes the body Apollo executes. Files are streamed, never
// buffered: each resolver reads its file straight to disk (src/storage/image-files.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { processRequest, Upload, type FileUpload } from "graphql-upload-minimal";
import { badInput, DomainError } from "../../contract/errors.ts";
import { PREFLIGHTED_HEADERS } from "./headers/csrf-headers.ts";
import { tokenBeforeBody, type Authenticate } from "../../http/token-before-body.ts";
import { tooLarge, type IncomingFile } from "../../storage/image-files.ts";

export type UploadLimits = { maxFileBytes: number; maxFiles: number };

const isMultipart = (request: FastifyRequest) => /^multipart\/form-data\b/i.test(request.headers["content-type"] ?? "");
/** Apollo's CSRF prevention refuses a multipart request without one: it is left unparsed, no file read. */
const hasPreflightHeader = (request: FastifyRequest) => PREFLIGHTED_HEADERS.some((h) => !!request.headers[h]);

/** An error from processRequest / busboy, as the HTTP error handler answers it (413 or 400, never 500). */
function multipartError(error: unknown, limits: UploadLimits): Error & { statusCode: number } {
  const status = (error as { status?: unknown }).status;
  const message = error instanceof Error ? error.message : String(error);
  if (status === 413) {
    const friendly = /max file uploads/.test(message)
      ? `Too many files: a request may carry at most ${limits.maxFiles}.`
      : /byte size limit/.test(message) && /File/.test(message)
        ? `A file is larger than ${limits.maxFileBytes} bytes.`
        : message;
    return Object.assign(new Error(friendly), { statusCode: 413 });
  }
  return Object.assign(new Error(`Invalid multipart request: ${message}`), { statusCode: 400 });
}

/** Every Upload placed in the parsed operation(s). */
function uploadsIn(value: unknown, found: Upload[] = []): Upload[] {
  if (value instanceof Upload) found.push(value);
  else if (value && typeof value === "object") for (const v of Object.values(value)) uploadsIn(v, found);
  return found;
}

/** Reads and drops a file nobody read (e.g. the operation failed validation), so the request can end. */
function discardIfUnread(file: FileUpload) {
  try {
    const stream = file.createReadStream();
    stream.on("error", () => {});
    stream.resume();
  } catch {
    // Already handed to a resolver (which reads it to the end) or already failed: nothing to do.
  }
}

/** Waits until the client has sent the whole body, so the answer never cuts an upload short. */
function requestEnded(request: FastifyRequest): Promise<void> {
  const raw = request.raw;
  if (raw.readableEnded || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 30_000); // a stalled client must not hold the answer forever
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    raw.once("end", done);
    raw.once("close", done);
  });
}

/** Registers multipart handling in the scope of the /graphql route (call before registering it). */
export function registerGraphqlUploads(app: FastifyInstance, limits: UploadLimits, authenticate: Authenticate) {
  const pending = new WeakMap<FastifyRequest, Upload[]>();

  // Every field taking an Upload needs a signed-in user, and /graphql reads tokens from the header
  // or query string only: a multipart request without a valid one is refused before its body is read.
  const checkToken = tokenBeforeBody(authenticate, { required: true });
  app.addHook("onRequest", async (request, reply) => {
    if (request.method === "POST" && isMultipart(request)) return checkToken(request, reply);
  });

  // Leave the body stream unread: processRequest reads it in the hook below.
  if (app.hasContentTypeParser("multipart/form-data")) app.removeContentTypeParser("multipart/form-data");
  app.addContentTypeParser("multipart/form-data", (_request, _payload, done) => done(null, undefined));

  app.addHook("preValidation", async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== "POST" || !isMultipart(request) || !hasPreflightHeader(request)) return;
    let operations: unknown;
    try {
      // busboy flags a file that reaches its limit as truncated, even at exactly that size: one
      // byte more lets a file of exactly maxFileBytes through (the storage enforces the real cap).
      operations = await processRequest(request.raw, reply.raw, {
        maxFileSize: limits.maxFileBytes + 1,
        maxFiles: limits.maxFiles,
      });
    } catch (error) {
      throw multipartError(error, limits);
    }
    pending.set(request, uploadsIn(operations));
    request.body = operations;
  });

  app.addHook("onSend", async (request: FastifyRequest) => {
    const uploads = pending.get(request);
    if (!uploads) return;
    for (const upload of uploads) upload.promise.then(discardIfUnread, () => {});
    await requestEnded(request);
  });
}

/** A problem reported by graphql-upload-minimal while a file arrives, as a domain error. */
function uploadError(error: unknown, field: string, maxBytes: number): unknown {
  if (error instanceof DomainError) return error;
  const status = (error as { status?: unknown }).status;
  if (status === 413) return tooLarge(field, maxBytes);
  if (typeof status === "number" && status < 500) return badInput(`${field}: ${(error as Error).message}`, { field });
  // The multipart parser's own errors carry no status: the body was malformed or cut short.
  if (status === undefined && error instanceof Error)
    return badInput(`${field}: the multipart body could not be read (${error.message}).`, { field });
  return error;
}

/**
 * The value of an Upload argument (a promise of a FileUpload) as the domain's IncomingFile;
 * null when no file was given. Waits for the file's part to arrive, but reads nothing yet.
 */
export async function incomingFile(value: unknown, field: string, maxBytes: number): Promise<IncomingFile | null> {
  if (value == null) return null;
  let file: FileUpload;
  try {
    file = await (value as Promise<FileUpload>);
  } catch (error) {
    throw uploadError(error, field, maxBytes);
  }
  return {
    filename: file.filename,
    open() {
      try {
        return file.createReadStream();
      } catch (error) {
        throw uploadError(error, field, maxBytes);
      }
    },
  };
}
