// One S3 client per store, made the same way for the service's uploads (s3-store.ts) and for the
// data commands' covers in a bucket (bucket-covers.ts), and what an S3 error means.
import { S3Client } from "@aws-sdk/client-s3";
import type { BucketLocation, S3Connection } from "../config.ts";

export function s3Client(settings: S3Connection) {
  return new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    // One retry: a store that fails twice is down for this request; the client is told to retry.
    maxAttempts: 2,
    // A call whose answer has not begun within S3_TIMEOUT fails (without throwOnRequestTimeout the
    // SDK only logs a warning); streaming the answer's body is not bounded by it.
    requestHandler: {
      connectionTimeout: Math.min(settings.timeoutMs, 5000),
      requestTimeout: settings.timeoutMs,
      throwOnRequestTimeout: true,
    },
  });
}

type S3Error = { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };

/** An S3 error meaning "no such object" (GetObject says NoSuchKey, HeadObject a bare 404). */
export const isMissing = (error: unknown) => {
  const e = error as S3Error;
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404;
};

/** `s3://bucket/prefix/`, for messages. */
export const bucketLabel = (location: Pick<BucketLocation, "bucket" | "prefix">) =>
  `s3://${location.bucket}/${location.prefix}`;

/**
 * Why a bucket cannot be used, in one line: it does not exist, the store refused the keys, or the
 * store cannot be reached; undefined for any other error.
 */
export function bucketProblem(error: unknown, location: BucketLocation): string | undefined {
  const e = error as S3Error;
  const status = e?.$metadata?.httpStatusCode;
  const at = location.endpoint ?? `AWS (${location.region})`;
  if (e?.name === "NoSuchBucket" || (status === 404 && /NotFound|NoSuchBucket/.test(e?.name ?? "")))
    return `the bucket ${location.bucket} does not exist at ${at} (S3_ENDPOINT, or the bucket's name)`;
  if (status === 403 || /InvalidAccessKeyId|SignatureDoesNotMatch|AccessDenied|Forbidden/.test(e?.name ?? ""))
    return `the store at ${at} refused these keys for the bucket ${location.bucket} (${e?.name ?? status}: S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY)`;
  if (status === 301 || e?.name === "PermanentRedirect")
    return `the bucket ${location.bucket} is in another region than ${location.region} (S3_REGION)`;
  if (
    status === undefined &&
    (e?.code || /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|Timeout|socket/i.test(`${e?.name} ${e?.message}`))
  )
    return `cannot reach the store at ${at} (${e?.code ?? e?.name}: S3_ENDPOINT)`;
  return undefined;
}
