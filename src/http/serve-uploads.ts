// GET /uploads/:name serves stored images. Only names the storage generates are looked up (so no
// path can leave the upload folder); the content type comes from the extension chosen by sniffing
// the bytes at upload time. A name's content never changes, so answers may be cached for a year.
import { mkdir, open } from "node:fs/promises";
import type { FastifyInstance, FastifyReply } from "fastify";
import fp from "fastify-plugin";
import { errorBody } from "../contract/errors.ts";
import { answeredWithError } from "./request-labels.ts";
import { contentTypeOf, uploadPath } from "../storage/image-files.ts";

function notFound(reply: FastifyReply) {
  answeredWithError(reply, "NOT_FOUND");
  return reply.code(404).send(errorBody({ code: "NOT_FOUND", message: "No such upload." }));
}

export type ServeUploadsOptions = {
  /** UPLOAD_DIR (absolute): the folder stored files are served from; created when missing. */
  dir: string;
};

async function serveUploads(app: FastifyInstance, { dir }: ServeUploadsOptions) {
  await mkdir(dir, { recursive: true });

  app.get<{ Params: { name: string } }>("/uploads/:name", async (request, reply) => {
    const file = uploadPath({ dir }, request.params.name);
    const contentType = contentTypeOf(request.params.name);
    if (!file || !contentType) return notFound(reply);
    // Opened first and read through the handle: a file deleted meanwhile is still sent whole or not at all.
    const handle = await open(file, "r").catch(() => null);
    if (!handle) return notFound(reply);
    const info = await handle.stat().catch(() => null);
    if (!info?.isFile()) {
      await handle.close();
      return notFound(reply);
    }

    const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    reply
      .header("content-type", contentType)
      .header("x-content-type-options", "nosniff")
      .header("cache-control", "public, max-age=31536000, immutable")
      .header("etag", etag)
      .header("last-modified", info.mtime.toUTCString())
      // An image never runs as a page, even if a browser is tricked into opening it as one.
      .header("content-security-policy", "default-src 'none'; sandbox")
      // Covers are shown by web clients on other origins (helmet's default would be same-origin).
      .header("cross-origin-resource-policy", "cross-origin");
    if (request.headers["if-none-match"] === etag) {
      await handle.close();
      return reply.code(304).send();
    }
    reply.header("content-length", info.size);
    return reply.send(handle.createReadStream());
  });
}

// Encapsulated: it only adds a route.
export const serveUploadsPlugin = fp(serveUploads, { name: "serve-uploads", fastify: "5.x", encapsulate: true });
