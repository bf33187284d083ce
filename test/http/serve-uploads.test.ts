// serve-uploads (src/http/pages/serve-uploads.ts) on a bare instance over a filesystem store: stored files
// served by their generated names with their type and a year's caching, nothing else (no path
// leaves the folder). The same over a bucket: test/storage/s3-store.test.ts.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { serveUploadsPlugin } from "../../src/http/pages/serve-uploads.ts";
import { filesystemStore } from "../../src/storage/folder/filesystem-store.ts";

const root = mkdtempSync(path.join(tmpdir(), "gw-uploads-plugin-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const name = `${"ab".repeat(16)}.png`;

async function app(dir: string) {
  const app = Fastify();
  await app.register(serveUploadsPlugin, { store: filesystemStore({ dir, diskReserveBytes: 0 }) });
  return app;
}

describe("uploads plugin", () => {
  it("serves a stored file with its type, validator and caching", async () => {
    const dir = path.join(root, "made");
    mkdirSync(dir);
    const server = await app(dir);
    writeFileSync(path.join(dir, name), "png bytes");
    const res = await server.inject({ url: `/uploads/${name}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe("png bytes");
    expect(res.headers["content-type"]).toBe("image/png");
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const again = await server.inject({
      url: `/uploads/${name}`,
      headers: { "if-none-match": String(res.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it("answers 404 in the API's shape for a missing file or a name it never generates", async () => {
    const server = await app(root);
    writeFileSync(path.join(root, "notes.txt"), "secret");
    for (const url of [`/uploads/${"cd".repeat(16)}.png`, "/uploads/notes.txt", "/uploads/..%2Fnotes.txt"]) {
      const res = await server.inject({ url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: { code: "NOT_FOUND", message: "No such upload." } });
    }
  });
});
