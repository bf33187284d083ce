// Covers in an S3-compatible bucket (UPLOAD_STORE=s3, src/storage/s3-store.ts) against a real S3
// API server (s3rver) on 127.0.0.1: the settings, serving through the service with the headers of
// the filesystem store or by presigned redirect, /readyz, the sweep, and the faults: wrong
// credentials, a bucket gone mid-upload, a store too slow to answer, an upload cut off. Each
// fault answers 503 STORAGE_UNAVAILABLE with Retry-After, leaves no row pointing at a missing
// object and no object behind, and other requests are served meanwhile. The whole upload test
// group also runs against a bucket (UPLOAD_STORE=s3, .ci/run).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { DeleteBucketCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { sweepUploads } from "../../src/storage/sweep.ts";
import { expectError, sendMultipart, PNG } from "../rest/legacy.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { runAdminWith } from "../helpers/process.ts";
import { startSlowProxy } from "../helpers/slow-proxy.ts";
import { adminClient, bucketSettings, startS3Server, type S3Server } from "../helpers/s3-server.ts";
import { readStored, storedNames } from "../helpers/upload-store.ts";

const coverPart = (content: Uint8Array = PNG) => ({ name: "cover", filename: "c.png", type: "image/png", content });

/** A PNG header and filler: an "image" of `size` bytes. */
function pngOfSize(size: number) {
  const out = new Uint8Array(size);
  out.set(PNG.subarray(0, 16));
  return out;
}

const CREATE = `mutation($input: CreateGroceryInput!) { createGrocery(input: $input) { id cover } }`;

/** The bytes and content type of a GraphQL multipart request creating a grocery with `file` as its cover. */
async function graphqlUploadBody(title: string, file: Uint8Array) {
  const form = new FormData();
  form.append("operations", JSON.stringify({ query: CREATE, variables: { input: { title, cover: null } } }));
  form.append("map", JSON.stringify({ "0": ["variables.input.cover"] }));
  form.append("0", new Blob([file as Uint8Array<ArrayBuffer>]), "c.png");
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), type: encoded.headers.get("content-type")! };
}

type Sent = { status: number; headers: Record<string, string | string[] | undefined>; body: any };

/**
 * Sends a GraphQL upload in two pieces: the first `splitAt` bytes, then (after `between` ran) the
 * rest, or nothing more when `cut` (the connection is dropped instead).
 */
function sendInTwo(
  s: TestServer,
  token: string,
  upload: { body: Buffer; type: string },
  splitAt: number,
  between: () => Promise<void>,
  cut = false,
): Promise<Sent | "cut"> {
  return new Promise((resolve, reject) => {
    const req = request(`${s.url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": upload.type,
        "content-length": upload.body.length,
        "apollo-require-preflight": "true",
        authorization: `Bearer ${token}`,
      },
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString()) }),
      );
    });
    req.on("error", (error) => (cut ? resolve("cut") : reject(error)));
    req.write(upload.body.subarray(0, splitAt));
    between().then(() => {
      if (cut) {
        req.destroy();
        resolve("cut");
      } else req.end(upload.body.subarray(splitAt));
    }, reject);
  });
}

const groceriesOf = (s: TestServer, ownerId: string) => s.db.prisma.grocery.count({ where: { ownerId } });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Other requests are answered while the store fails: a read through GraphQL, and liveness. */
async function expectOthersServed(s: TestServer, token: string) {
  const read = await s.graphql(`{ me { id } }`, undefined, token);
  expect(read.status).toBe(200);
  expect(read.data.me.id).toBeTruthy();
  expect((await s.fetch("/healthz")).status).toBe(200);
}

let store: S3Server;
beforeAll(async () => {
  store = await startS3Server();
});
afterAll(async () => store?.close());

describe("settings", () => {
  it("needs a bucket for UPLOAD_STORE=s3, both keys or neither, and a bucket store for redirects", () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ NODE_ENV: "test", ...env });
        return "";
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).problems.join("\n");
      }
    };
    expect(problems({ UPLOAD_STORE: "s3" })).toContain("S3_BUCKET");
    expect(problems({ UPLOAD_STORE: "s3", S3_BUCKET: "covers", S3_ACCESS_KEY_ID: "id" })).toContain(
      "S3_SECRET_ACCESS_KEY",
    );
    expect(problems({ UPLOAD_SERVE: "redirect" })).toContain("UPLOAD_SERVE");
    expect(problems({ UPLOAD_STORE: "bucket" })).toContain("UPLOAD_STORE");
    expect(problems({ UPLOAD_STORE: "s3", S3_BUCKET: "No_Such Name" })).toContain("S3_BUCKET");
    expect(problems({ UPLOAD_STORE: "s3", S3_BUCKET: "covers", S3_ENDPOINT: "ftp://x" })).toContain("S3_ENDPOINT");
    expect(problems({ UPLOAD_STORE: "s3", S3_BUCKET: "covers", S3_PREFIX: "../x" })).toContain("S3_PREFIX");
    const c = loadConfig({
      UPLOAD_STORE: "s3",
      S3_BUCKET: "covers",
      S3_ENDPOINT: "http://127.0.0.1:9000",
      S3_FORCE_PATH_STYLE: "true",
      S3_PREFIX: "covers/",
      UPLOAD_SERVE: "redirect",
    });
    expect(c.uploadStore).toMatchObject({
      kind: "s3",
      bucket: "covers",
      region: "us-east-1",
      forcePathStyle: true,
      prefix: "covers/",
      serve: "redirect",
      presignSeconds: 300,
      credentials: undefined, // the AWS SDK's own chain (AWS_ACCESS_KEY_ID, …)
    });
  });
});

describe("serving from a bucket", () => {
  let fs: TestServer;
  let s3: TestServer;
  let redirect: TestServer;
  beforeAll(async () => {
    [fs, s3, redirect] = await Promise.all([
      startServer({ UPLOAD_STORE: "filesystem" }),
      startServer(await bucketSettings(store, { S3_PREFIX: "covers/" })),
      startServer(await bucketSettings(store, { UPLOAD_SERVE: "redirect", S3_PRESIGN_TTL: "2m" })),
    ]);
  });
  afterAll(async () => {
    await Promise.all([fs?.close(), s3?.close(), redirect?.close()]);
  });

  async function upload(s: TestServer) {
    const user = await s.signUp("serve");
    const added = await sendMultipart(s, "POST", "/groceries", { title: "Pears" }, [coverPart()], user.token);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    return added.body.cover as string;
  }

  it("stores the object under the prefix, and serves it with the filesystem store's headers, ETag and 304", async () => {
    expect(s3.store.kind).toBe("s3");
    const [onDisk, inBucket] = [await upload(fs), await upload(s3)];
    expect(await readStored(s3.store, inBucket)).toEqual(Buffer.from(PNG));
    const admin = adminClient(store.endpoint);
    const listed = await admin.send(
      new ListObjectsV2Command({ Bucket: s3.config.uploadStore.kind === "s3" ? s3.config.uploadStore.bucket : "" }),
    );
    admin.destroy();
    expect(listed.Contents?.map((o) => o.Key)).toEqual([`covers/${inBucket}`]);

    const [a, b] = [await fs.fetch(`/uploads/${onDisk}`), await s3.fetch(`/uploads/${inBucket}`)];
    expect(b.status).toBe(200);
    expect(Buffer.from(await b.arrayBuffer())).toEqual(Buffer.from(PNG));
    await a.arrayBuffer();
    const headers = (r: Response) =>
      Object.fromEntries(
        [
          "content-type",
          "content-length",
          "x-content-type-options",
          "cache-control",
          "content-security-policy",
          "cross-origin-resource-policy",
        ].map((h) => [h, r.headers.get(h)]),
      );
    expect(headers(b)).toEqual(headers(a));
    expect(b.headers.get("etag")).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(new Date(b.headers.get("last-modified")!).getTime()).toBeGreaterThan(Date.now() - 3_600_000);
    const again = await s3.fetch(`/uploads/${inBucket}`, { headers: { "if-none-match": b.headers.get("etag")! } });
    expect(again.status).toBe(304);
    // A Range request gets the whole file from either store, as before (no partial answers).
    const ranged = await Promise.all([
      fs.fetch(`/uploads/${onDisk}`, { headers: { range: "bytes=0-3" } }),
      s3.fetch(`/uploads/${inBucket}`, { headers: { range: "bytes=0-3" } }),
    ]);
    expect(ranged.map((r) => r.status)).toEqual([200, 200]);
    expect((await ranged[1].arrayBuffer()).byteLength).toBe(PNG.length);
    await ranged[0].arrayBuffer();
    expect((await s3.fetch(`/uploads/${"0".repeat(32)}.png`)).status).toBe(404);
    expect((await s3.fetch(`/uploads/..%2F${inBucket}`)).status).toBe(404);
  });

  it("with UPLOAD_SERVE=redirect answers 302 to a presigned URL that serves the image", async () => {
    const name = await upload(redirect);
    const res = await redirect.fetch(`/uploads/${name}`, { redirect: "manual" });
    expect(res.status).toBe(302);
    const location = res.headers.get("location")!;
    expect(location).toContain(store.endpoint);
    expect(location).toContain("X-Amz-Signature=");
    expect(location).toContain("X-Amz-Expires=120");
    expect(res.headers.get("cache-control")).toBe("private, max-age=60");
    const image = await fetch(location);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await image.arrayBuffer())).toEqual(Buffer.from(PNG));
    // Names the service never generates are refused before any URL is signed.
    expect((await redirect.fetch(`/uploads/notes.txt`, { redirect: "manual" })).status).toBe(404);
  });

  it("the sweep removes an object no row names once old enough, and keeps referenced ones", async () => {
    const kept = await upload(s3);
    const stray = `${"e".repeat(32)}.png`;
    await s3.store.putIfAbsent(stray, Buffer.from(PNG), "image/png");
    expect(await sweepUploads(s3.db, s3.store, 3_600_000)).toEqual([]); // too young
    expect(await sweepUploads(s3.db, s3.store, 0)).toEqual([stray]);
    const left = await storedNames(s3.store);
    expect(left).toContain(kept);
    expect(left).not.toContain(stray);
  });
});

describe("faults of the store", () => {
  it("/readyz reports a bucket it cannot reach (and recovers)", async () => {
    const proxy = await startSlowProxy(store.port);
    const s = await startServer(await bucketSettings(store, { S3_ENDPOINT: proxy.endpoint, S3_TIMEOUT: "1s" }));
    try {
      const ready = await s.fetch("/readyz");
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as any).uploads).toBe("ok");
      proxy.delayMs = 5000;
      const slow = await s.fetch("/readyz");
      expect(slow.status).toBe(503);
      expect(await slow.json()).toMatchObject({ status: "unavailable", database: "ok", uploads: "unreachable" });
      proxy.delayMs = 0;
      // A bucket that does not exist is unreachable too.
      const missing = await startServer({ ...s.storeSettings, S3_BUCKET: "no-such-bucket" });
      try {
        expect(((await (await missing.fetch("/readyz")).json()) as any).uploads).toBe("unreachable");
      } finally {
        await missing.close();
      }
      expect((await s.fetch("/readyz")).status).toBe(200);
    } finally {
      await s.close();
      await proxy.close();
    }
  });

  it("wrong credentials: 503 STORAGE_UNAVAILABLE with Retry-After on both faces, no row, others served", async () => {
    const s = await startServer(await bucketSettings(store, { S3_ACCESS_KEY_ID: "NOT-A-KEY" }));
    try {
      const user = await s.signUp("creds");
      const rest = await sendMultipart(s, "POST", "/groceries", { title: "Figs" }, [coverPart()], user.token);
      expectError(rest, 503, "STORAGE_UNAVAILABLE");
      expect(Number(rest.headers.get("retry-after"))).toBeGreaterThan(0);
      const graphql = await graphqlUploadBody("Figs", PNG);
      const res = await s.fetch("/graphql", {
        method: "POST",
        body: graphql.body,
        headers: { "content-type": graphql.type, "apollo-require-preflight": "true" },
        token: user.token,
      });
      expect(res.status).toBe(503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await res.json()) as any).errors[0].extensions.code).toBe("STORAGE_UNAVAILABLE");
      expect(await groceriesOf(s, user.id)).toBe(0);
      // Serving answers the same way, not a 404 or a 500.
      const served = await s.fetch(`/uploads/${"a".repeat(32)}.png`);
      expect(served.status).toBe(503);
      expect(served.headers.get("retry-after")).toBeTruthy();
      expect(((await served.json()) as any).error.code).toBe("STORAGE_UNAVAILABLE");
      await expectOthersServed(s, user.token);
    } finally {
      await s.close();
    }
  });

  it("the bucket disappears mid-upload: 503 STORAGE_UNAVAILABLE, no row, no object", async () => {
    const settings = await bucketSettings(store);
    const s = await startServer(settings);
    try {
      const user = await s.signUp("gone");
      const upload = await graphqlUploadBody("Kiwis", pngOfSize(200_000));
      const admin = adminClient(store.endpoint);
      const sent = await sendInTwo(s, user.token, upload, 100_000, async () => {
        await pause(300);
        await admin.send(new DeleteBucketCommand({ Bucket: settings.S3_BUCKET }));
      });
      admin.destroy();
      expect(sent).not.toBe("cut");
      const answer = sent as Sent;
      expect(answer.status).toBe(503);
      expect(answer.headers["retry-after"]).toBeTruthy();
      expect(answer.body.errors[0].extensions.code).toBe("STORAGE_UNAVAILABLE");
      expect(await groceriesOf(s, user.id)).toBe(0);
      await expectOthersServed(s, user.token);
    } finally {
      await s.close();
    }
  });

  it("a store too slow to answer: 503 within S3_TIMEOUT's retries, no row, other requests served meanwhile", async () => {
    const proxy = await startSlowProxy(store.port);
    const s = await startServer(await bucketSettings(store, { S3_ENDPOINT: proxy.endpoint, S3_TIMEOUT: "1s" }));
    try {
      const user = await s.signUp("slow");
      proxy.delayMs = 4000;
      const pending = sendMultipart(s, "POST", "/groceries", { title: "Slow" }, [coverPart()], user.token);
      await pause(200);
      await expectOthersServed(s, user.token); // while the upload waits on the store
      const answer = await pending;
      expectError(answer, 503, "STORAGE_UNAVAILABLE");
      expect(answer.headers.get("retry-after")).toBeTruthy();
      expect(await groceriesOf(s, user.id)).toBe(0);
      proxy.delayMs = 0;
      await pause(4500); // what the slow store was still holding arrives, late
      // Nothing stored (a PUT the store finished after the service gave up is deleted) and nothing points at it.
      expect(await storedNames(s.store)).toEqual([]);
      const ok = await sendMultipart(s, "POST", "/groceries", { title: "Fast" }, [coverPart()], user.token);
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    } finally {
      await s.close();
      await proxy.close();
    }
  });

  it("S3_MAX_UPLOADS bounds the uploads held in memory at once: one more is SERVER_BUSY with Retry-After", async () => {
    const proxy = await startSlowProxy(store.port);
    const s = await startServer(
      await bucketSettings(store, { S3_ENDPOINT: proxy.endpoint, S3_TIMEOUT: "30s", S3_MAX_UPLOADS: "1" }),
    );
    try {
      const user = await s.signUp("busy");
      proxy.delayMs = 2000;
      const before = proxy.received;
      const first = sendMultipart(s, "POST", "/groceries", { title: "One" }, [coverPart()], user.token);
      while (proxy.received === before) await pause(50); // the first upload's PUT is on its way to the store
      const second = await sendMultipart(s, "POST", "/groceries", { title: "Two" }, [coverPart()], user.token);
      expectError(second, 503, "SERVER_BUSY");
      expect(second.headers.get("retry-after")).toBeTruthy();
      proxy.delayMs = 0;
      expect((await first).status).toBe(201);
      expect(await groceriesOf(s, user.id)).toBe(1);
    } finally {
      await s.close();
      await proxy.close();
    }
  });

  it("an upload cut off mid-file, past the first 5 MiB part, leaves no object and no row", async () => {
    const s = await startServer(await bucketSettings(store, { UPLOAD_MAX_BYTES: String(12 * 1024 * 1024) }));
    try {
      const user = await s.signUp("cut");
      const upload = await graphqlUploadBody("Big", pngOfSize(8 * 1024 * 1024));
      const sent = await sendInTwo(s, user.token, upload, 6 * 1024 * 1024, () => pause(1500).then(() => {}), true);
      expect(sent).toBe("cut");
      await pause(1000);
      expect(await storedNames(s.store)).toEqual([]);
      expect(await groceriesOf(s, user.id)).toBe(0);
      // The same file sent whole is stored as one object (a multipart upload) and served whole.
      const whole = await sendInTwo(s, user.token, upload, 1024, async () => {});
      expect((whole as Sent).status, JSON.stringify((whole as Sent).body)).toBe(200);
      const name = (whole as Sent).body.data.createGrocery.cover;
      expect((await s.store.stat(name))?.bytes).toBe(8 * 1024 * 1024);
      expect(await storedNames(s.store)).toEqual([name]);
    } finally {
      await s.close();
    }
  });
});
