// GET /uploads/:name serves stored images. Only names the storage generates are looked up (so no
// path can leave the upload folder or the bucket's prefix); the content type comes from the
// extension chosen by sniffing the bytes at upload time. A name's content never changes, so
// answers may be cached for a year. With UPLOAD_SERVE=redirect (a bucket only) the answer is a
// 302 to a presigned URL of the object instead (docs/operations.md weighs the two).
import type { FastifyInstance, FastifyReply } from "fastify";
import fp from "fastify-plugin";
import { errorBody, RetryLaterError } from "../../contract/errors.ts";
import { answeredWithError } from "../observability/request-labels.ts";
import { contentTypeOf, storageUnavailable } from "../../storage/image-files.ts";
import type { UploadStore } from "../../storage/upload-store.ts";

function notFound(reply: FastifyReply) {
  answeredWithError(reply, "NOT_FOUND");
  return reply.code(404).send(errorBody({ code: "NOT_FOUND", message: "No such upload." }));
}

function unavailable(reply: FastifyReply, error: unknown) {
  const refusal = error instanceof RetryLaterError ? error : storageUnavailable(error);
  reply.log.warn({ err: (error as { cause?: unknown }).cause ?? error }, "upload storage failed");
  answeredWithError(reply, refusal.code);
  return reply
    .code(503)
    .header("retry-after", refusal.details.retryAfterSeconds)
    .header("cache-control", "no-store")
    .send(errorBody({ code: refusal.code, message: refusal.message }));
}

export type ServeUploadsOptions = {
  /** Where the files live (src/storage/upload-store.ts). */
  store: UploadStore;
  /** UPLOAD_SERVE=redirect: answer with a URL of the bucket valid this long (seconds); 0 serves the bytes. */
  redirectSeconds?: number;
};

async function serveUploads(app: FastifyInstance, { store, redirectSeconds = 0 }: ServeUploadsOptions) {
  app.get<{ Params: { name: string } }>("/uploads/:name", async (request, reply) => {
    const { name } = request.params;
    const contentType = contentTypeOf(name);
    if (!contentType) return notFound(reply);
    if (redirectSeconds > 0 && store.presignedUrl) {
      // Signing is local (no call to the store); a missing object is the bucket's 404.
      const location = await store.presignedUrl(name, redirectSeconds).catch(() => null);
      if (!location) return unavailable(reply, new Error("presigning failed"));
      // Kept by a browser for half the URL's life at most, so a cached redirect never points at an expired URL.
      return reply
        .code(302)
        .header("location", location)
        .header("cache-control", `private, max-age=${Math.floor(redirectSeconds / 2)}`)
        .send();
    }
    let file;
    try {
      file = await store.open(name);
    } catch (error) {
      return unavailable(reply, error);
    }
    if (!file) return notFound(reply);

    const etag = `"${file.bytes.toString(16)}-${Math.floor(file.modified.getTime()).toString(16)}"`;
    reply
      .header("content-type", contentType)
      .header("x-content-type-options", "nosniff")
      .header("cache-control", "public, max-age=31536000, immutable")
      .header("etag", etag)
      .header("last-modified", file.modified.toUTCString())
      // An image never runs as a page, even if a browser is tricked into opening it as one.
      .header("content-security-policy", "default-src 'none'; sandbox")
      // Covers are shown by web clients on other origins (helmet's default would be same-origin).
      .header("cross-origin-resource-policy", "cross-origin");
    if (request.headers["if-none-match"] === etag) {
      file.body.destroy();
      return reply.code(304).send();
    }
    reply.header("content-length", file.bytes);
    return reply.send(file.body);
  });
}

// Encapsulated: it only adds a route.
export const serveUploadsPlugin = fp(serveUploads, { name: "serve-uploads", fastify: "5.x", encapsulate: true });
