// Uploads in an S3-compatible bucket (AWS S3, R2, MinIO, Ceph RGW, Garage), through the AWS SDK v3.
// A new file streams through @aws-sdk/lib-storage's Upload: bytes are held until a part is full
// (5 MiB, S3's smallest part), so a file up to 5 MiB is sent with one PUT once it has arrived whole
// and passed every check, and a larger one as a multipart upload. An upload refused or cut off
// before its end sends nothing (or aborts its multipart upload), so no object is left behind; an
// object whose PUT answer was lost is deleted at once, and the sweep removes any object no row
// names (src/storage/sweep.ts). A store that fails or does not answer within S3_TIMEOUT is
// STORAGE_UNAVAILABLE (503 with Retry-After) for that request only.
import { PassThrough, type Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { S3Settings } from "../config.ts";
import { RetryLaterError } from "../contract/errors.ts";
import { storageUnavailable } from "./image-files.ts";
import { bucketCovers } from "./bucket-covers.ts";
import { isMissing, s3Client } from "./s3-client.ts";
import { isUploadName } from "./upload-names.ts";
import type { NewFile, UploadStore } from "./upload-store.ts";

/** S3's smallest part: what an upload holds in memory at most (one part at a time). */
const PART_BYTES = 5 * 1024 * 1024;

const tooManyUploads = () =>
  new RetryLaterError("SERVER_BUSY", "The server is storing as many uploads as it can; try again shortly.", 2);

export function s3Store(settings: S3Settings): UploadStore {
  const client = s3Client(settings);
  const Bucket = settings.bucket;
  const keyOf = (name: string) => settings.prefix + name;
  /** Any failure of the store becomes STORAGE_UNAVAILABLE; "no such object" becomes null. */
  const orNull = <T>(call: Promise<T>): Promise<T | null> =>
    call.catch((error) => {
      if (isMissing(error)) return null;
      throw storageUnavailable(error);
    });
  // Removal and its keeping for backups are the data commands' bucket store's (bucket-covers.ts).
  const covers = bucketCovers(client, settings);
  const removeQuietly = (name: string) =>
    client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(name) })).catch(() => {});
  let uploading = 0;

  return {
    kind: "s3",

    // A bucket has no disk to fill; a store refusing writes answers STORAGE_UNAVAILABLE on the write.
    async ensureRoom() {},

    async create(name, contentType): Promise<NewFile> {
      if (uploading >= settings.maxUploads) throw tooManyUploads();
      uploading++;
      let released = false;
      const release = () => {
        if (!released) uploading--;
        released = true;
      };
      const body = new PassThrough({ highWaterMark: 64 * 1024 });
      const upload = new Upload({
        client,
        params: { Bucket, Key: keyOf(name), Body: body, ContentType: contentType },
        queueSize: 1,
        partSize: PART_BYTES,
        leavePartsOnError: false,
      });
      const done = upload.done();
      done.catch(() => {}); // awaited by commit or abort; a failure meanwhile must not go unhandled
      return {
        async write(chunk) {
          try {
            // The part buffer fills; past it, wait while a part is sent (or fails).
            if (!body.write(chunk)) await Promise.race([new Promise((ok) => body.once("drain", ok)), done]);
          } catch (error) {
            throw storageUnavailable(error);
          }
        },
        async commit() {
          body.end();
          try {
            await done;
          } catch (error) {
            await removeQuietly(name); // a PUT whose answer was lost may have stored it
            throw storageUnavailable(error);
          } finally {
            release();
          }
        },
        async abort() {
          // The SDK stops reading, sends nothing more and aborts a multipart upload it began.
          body.destroy(new Error("upload refused"));
          await done.catch(() => {});
          release();
        },
      };
    },

    async putIfAbsent(name, bytes, contentType) {
      if (await this.stat(name)) return false;
      await client
        .send(new PutObjectCommand({ Bucket, Key: keyOf(name), Body: bytes, ContentType: contentType }))
        .catch((error) => Promise.reject(storageUnavailable(error)));
      return true;
    },

    async open(name) {
      if (!isUploadName(name)) return null;
      const got = await orNull(client.send(new GetObjectCommand({ Bucket, Key: keyOf(name) })));
      if (!got?.Body) return null;
      return { bytes: got.ContentLength ?? 0, modified: got.LastModified ?? new Date(0), body: got.Body as Readable };
    },

    async stat(name) {
      if (!isUploadName(name)) return null;
      const head = await orNull(client.send(new HeadObjectCommand({ Bucket, Key: keyOf(name) })));
      return head ? { bytes: head.ContentLength ?? 0, modified: head.LastModified ?? new Date(0) } : null;
    },

    async remove(name) {
      await covers.remove(name).catch((error) => Promise.reject(storageUnavailable(error)));
    },

    async discard(name) {
      if (!isUploadName(name)) return;
      await client
        .send(new DeleteObjectCommand({ Bucket, Key: keyOf(name) }))
        .catch((error) => Promise.reject(storageUnavailable(error)));
    },

    purge: () => covers.purge(),

    async *list() {
      for await (const page of paginateListObjectsV2({ client }, { Bucket, Prefix: settings.prefix })) {
        for (const object of page.Contents ?? []) {
          const name = object.Key?.slice(settings.prefix.length) ?? "";
          if (isUploadName(name)) yield { name, modified: object.LastModified ?? new Date() };
        }
      }
    },

    async check() {
      await client.send(new HeadBucketCommand({ Bucket }));
    },

    presignedUrl(name, seconds) {
      return getSignedUrl(client, new GetObjectCommand({ Bucket, Key: keyOf(name) }), { expiresIn: seconds });
    },

    close() {
      client.destroy();
    },
  };
}
