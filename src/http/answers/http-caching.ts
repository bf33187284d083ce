// What HTTP caches see of the answers of a scope's routes (/graphql, the REST shim): the route
// sets Cache-Control on an answer that may be kept (src/graphql/policy/cache-control.ts decides);
// here every other answer becomes no-store, and a kept GET answer gets a strong ETag (a hash of
// its bytes) and Vary, and is a bodiless 304 when the client already holds those bytes
// (If-None-Match). The 304 saves the transfer, not the work: the operation ran to know its bytes.
// An HTTP cache in front (nginx, a CDN) is what saves the work: docs/http-caching.md.
import type { FastifyInstance, FastifyReply } from "fastify";
import { contentHash, notModified } from "./prepared-response.ts";

export type HttpCachingOptions = {
  /** The request headers an answer depends on besides its URL (e.g. authorization, accept). */
  vary: string[];
};

/** Whether a route marked this answer as one a cache may keep. */
function keepable(reply: FastifyReply): boolean {
  const value = reply.getHeader("cache-control");
  return typeof value === "string" && /^(public|private), max-age=\d+$/.test(value);
}

/** Adds names to the answer's Vary (CORS may have set Origin already). */
export function addVary(reply: FastifyReply, names: string[]) {
  const vary = reply.getHeader("vary");
  reply.header("vary", vary ? `${vary}, ${names.join(", ")}` : names.join(", "));
}

/** Registers the hook on `app`'s scope: call it inside the (encapsulated) plugin of the routes it covers. */
export function httpCaching(app: FastifyInstance, { vary }: HttpCachingOptions) {
  app.addHook("onSend", async (request, reply, payload) => {
    const read = request.method === "GET" || request.method === "HEAD";
    if (read) addVary(reply, vary);
    if (!read || reply.statusCode !== 200 || !keepable(reply)) {
      reply.header("cache-control", "no-store").removeHeader("etag");
      return payload;
    }
    if (typeof payload !== "string" && !Buffer.isBuffer(payload)) return payload;
    const etag = `"${contentHash(payload)}"`;
    reply.header("etag", etag);
    if (!notModified(request.headers["if-none-match"], etag)) return payload;
    reply.code(304);
    // HEAD: Fastify's own hook drops the bytes and keeps their length, as a 304 may say (RFC 9110 8.6).
    return request.method === "HEAD" ? payload : null;
  });
}
