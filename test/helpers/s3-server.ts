// A real S3 API server for tests: s3rver on a free port of 127.0.0.1, its objects in a temp
// folder, and buckets made for servers to use (test/helpers/upload-store.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";

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
export function sharedS3Server(): Promise<S3Server> {
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
