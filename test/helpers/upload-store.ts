// The upload store under test. By default a server stores covers in its UPLOAD_DIR; with
// UPLOAD_STORE=s3 in the test run's environment (`.ci/run` runs the upload test group so) every
// server started by startServer stores them in a bucket of its own on a real S3 API server,
// s3rver, started on 127.0.0.1 once per test file (test/helpers/s3-server.ts). Tests look at what is stored through the
// same UploadStore the server uses, so one test checks either store.
import { readdirSync } from "node:fs";
import type { UploadStore } from "../../src/storage/upload-store.ts";

/** Whether this run stores uploads in a bucket (UPLOAD_STORE=s3 npx vitest run …). */
export const testingS3 = process.env.UPLOAD_STORE === "s3";

/** The settings of the store this run tests: none (UPLOAD_DIR) or a fresh bucket on this file's s3rver. */
export async function testStoreSettings(): Promise<Record<string, string>> {
  if (!testingS3) return {};
  // Loaded only then: the AWS SDK and s3rver take seconds to import on a busy machine.
  const { bucketSettings, sharedS3Server } = await import("./s3-server.ts");
  return bucketSettings(await sharedS3Server());
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
