// A response made once and kept in memory (the explorer, the front door, the REST reference and
// its assets): its bytes, a gzip and a brotli copy made on first use or ahead (once per process,
// on zlib's thread pool, however many requests wait for them), and an ETag per encoding so a browser that
// has it gets a 304. Requests then cost a lookup and a write of bytes that already exist: a flood
// of them is no memory or CPU lever beyond the rate limits every route has.
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";
import type { FastifyReply, FastifyRequest } from "fastify";

type Encoding = "br" | "gzip" | "identity";

export type PreparedResponse = {
  body: Buffer;
  /** Content hash: ETags (and hashed asset names) derive from it, so a release invalidates cached copies. */
  hash: string;
  /** Sent with every answer: content-type, cache-control, content-security-policy, ... */
  headers: Readonly<Record<string, string>>;
  compressed: Partial<Record<Exclude<Encoding, "identity">, Promise<Buffer>>>;
};

/** "Cached, but checked with the server each time": a release brings the new page at once. */
export const REVALIDATE = "no-cache";
/** For assets whose name carries their content hash: a new release has new names. */
export const IMMUTABLE = "public, max-age=31536000, immutable";

export function prepareResponse(body: string | Buffer, headers: Record<string, string>): PreparedResponse {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  return { body: bytes, hash: contentHash(bytes), headers, compressed: {} };
}

/** sha256 of the bytes, base64url, 22 characters (132 bits). */
export function contentHash(bytes: string | Buffer): string {
  return createHash("sha256").update(bytes).digest("base64url").slice(0, 22);
}

/** The CSP source that allows one inline `<script>` or `<style>` with this exact body. */
export function cspHash(body: string): string {
  return `'sha256-${createHash("sha256").update(body).digest("base64")}'`;
}

function compressed(prepared: PreparedResponse, encoding: Exclude<Encoding, "identity">): Promise<Buffer> {
  prepared.compressed[encoding] ??=
    encoding === "br"
      ? promisify(brotliCompress)(prepared.body, {
          // Quality 9: within 10% of 11's size at a tenth of its time (the 9 MB IDE page: ~1 s against ~13 s).
          params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: prepared.body.length },
        })
      : promisify(gzip)(prepared.body, { level: 9 });
  // A failure is not remembered: the next request tries again.
  prepared.compressed[encoding].catch(() => delete prepared.compressed[encoding]);
  return prepared.compressed[encoding];
}

/**
 * Makes both compressed copies now rather than for the first client that asks: one after the
 * other, so they hold one of the thread pool's 4 threads (scrypt and file I/O share the pool).
 */
export async function precompress(prepared: PreparedResponse): Promise<void> {
  await compressed(prepared, "br");
  await compressed(prepared, "gzip");
}

/** The best encoding the client accepts (RFC 9110 Accept-Encoding with q-values); brotli wins ties. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding {
  const weights = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").toLowerCase().split(",")) {
    const [name, ...params] = part.split(";").map((s) => s.trim());
    if (!name) continue;
    const q = params.find((p) => p.startsWith("q="));
    const weight = q ? Number(q.slice(2)) : 1;
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weight = (name: string) => weights.get(name) ?? weights.get("*") ?? 0;
  const br = weight("br");
  const gz = weight("gzip");
  if (br > 0 && br >= gz) return "br";
  return gz > 0 ? "gzip" : "identity";
}

/** True when If-None-Match names this ETag (weak comparison, as RFC 9110 asks for GET). */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || bare(tag) === etag);
}

/** Sends the prepared bytes in the best encoding the client takes, or 304 when it has them. */
export async function sendPrepared(request: FastifyRequest, reply: FastifyReply, prepared: PreparedResponse) {
  const encoding = chooseEncoding(request.headers["accept-encoding"]);
  const etag = `"${prepared.hash}${encoding === "identity" ? "" : `-${encoding}`}"`;
  reply.headers(prepared.headers).header("etag", etag);
  // Adds to a Vary set before (the front door's Accept); the encoding chosen depends on Accept-Encoding.
  const vary = reply.getHeader("vary");
  reply.header("vary", vary ? `${vary}, accept-encoding` : "accept-encoding");
  if (notModified(request.headers["if-none-match"], etag)) return reply.code(304).send();
  if (encoding === "identity") return reply.send(prepared.body);
  return reply.header("content-encoding", encoding).send(await compressed(prepared, encoding));
}
