// The upload store under test. By default a server stores covers in its UPLOAD_DIR; with
// UPLOAD_STORE=s3 in the test run's environment (`.ci/run` runs the upload test group so) every
// server started by startServer stores them in a bucket of its own on a real S3 API server,
// s3rver, started here on 127.0.0.1 once per test file. Tests look at what is stored through the
// same UploadStore the server uses, so one test checks either store.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import type { UploadStore } from "../../src/storage/upload-store.ts";

/** Whether this run stores uploads in a bucket (UPLOAD_STORE=s3 npx vitest run …). */
export const testingS3 = process.env.UPLOAD_STORE === "s3";

/** s3rver's one account (it checks the access key id, not SigV4 signatures). */
export const S3RVER_KEYS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export type S3Server = { endpoint: string; port: number; close(): Promise<void> };

/** Starts s3rver on a free port of 127.0.0.1, keeping its objects in a temp folder. */
export async function startS3Server(): Promise<S3Server> {
  const directory = mkdtempSync(path.join(tmpdir(), "gw-s3rver-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory });
  const { port } = (await server.run()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    async close() {
      await server.close().catch(() => {});
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

let shared: Promise<S3Server> | undefined;
let buckets = 0;

/** This test file's s3rver (started on first use, stopped when the file's process exits). */
function sharedS3Server(): Promise<S3Server> {
  shared ??= startS3Server().then((server) => {
    process.once("beforeExit", () => void server.close());
    return server;
  });
  return shared;
}

/** An admin client of an S3 server (the tests' own, beside the service's). */
export const adminClient = (endpoint: string) =>
  new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials: S3RVER_KEYS });

/** Creates a fresh bucket and returns the settings that point a server at it. */
export async function bucketSettings(server: S3Server, extra: Record<string, string> = {}) {
  const bucket = `test-${process.pid}-${++buckets}-${Math.random().toString(36).slice(2, 8)}`;
  const admin = adminClient(server.endpoint);
  await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  admin.destroy();
  return {
    UPLOAD_STORE: "s3",
    S3_ENDPOINT: server.endpoint,
    S3_BUCKET: bucket,
    S3_REGION: "us-east-1",
    S3_FORCE_PATH_STYLE: "true",
    S3_ACCESS_KEY_ID: S3RVER_KEYS.accessKeyId,
    S3_SECRET_ACCESS_KEY: S3RVER_KEYS.secretAccessKey,
    ...extra,
  };
}

/** The settings of the store this run tests: none (UPLOAD_DIR) or a fresh bucket on this file's s3rver. */
export async function testStoreSettings(): Promise<Record<string, string>> {
  return testingS3 ? bucketSettings(await sharedS3Server()) : {};
}

/** The names a store holds (uploads and leftovers of interrupted writes), sorted. */
export async function storedNames(store: UploadStore): Promise<string[]> {
  const names: string[] = [];
  for await (const { name } of store.list()) names.push(name);
  return names.sort();
}

/** A stored file's bytes, or null. */
export async function readStored(store: UploadStore, name: string): Promise<Buffer | null> {
  const opened = await store.open(name);
  if (!opened) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of opened.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export const isStored = async (store: UploadStore, name: string) => (await store.stat(name)) !== null;

/**
 * What a server holds of uploads: the store's files and leftovers, and with a bucket the files
 * in UPLOAD_DIR too (the REST shim spools there first), so "nothing left behind" covers both.
 */
export async function uploadFilesOf(server: { store: UploadStore; config: { uploadDir: string } }) {
  const local = server.store.kind === "s3" ? readdirSync(server.config.uploadDir).map((f) => `local:${f}`) : [];
  return [...(await storedNames(server.store)), ...local].sort();
}
