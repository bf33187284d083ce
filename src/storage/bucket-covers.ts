// The cover store in an S3-compatible bucket (UPLOAD_STORE=s3, or a bucket a data command names),
// keys under the prefix (S3_PREFIX):
//   <name>                         the covers served
//   .removed/<name>                covers the service removed while a backup held (see below)
//   .backup-holds/<id>.hold        one per backup running, refreshed every 30 s
// The same guarantee as a folder's (local-covers.ts): every cover a backup's snapshot names can
// still be copied after it. A backup writes its hold before its snapshot; the service's removal
// lists the holds after the commit that stopped naming the cover, so a snapshot that still names
// it was taken after a hold the removal sees (S3 lists what was written before, strongly
// consistent: AWS, R2, MinIO, Ceph). With a hold there, the removal copies the object to
// .removed/ before deleting it (always in one place or the other); with none, it deletes at once.
// The sweep's purge deletes removed objects once no hold is alive, only those removed
// KEEP_REMOVED_MS before it looked at the holds (room for the store's clock against ours).
import type { Readable } from "node:stream";
import { createReadStream } from "node:fs";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
  paginateListObjectsV2,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { BucketLocation } from "../config.ts";
import { badInput } from "../contract/errors.ts";
import { HOLD_LAPSES_MS, holdName, keepHold, KEEP_REMOVED_MS } from "./cover-holds.ts";
import type { CoverListing, CoverStore, StoredCover } from "./cover-store.ts";
import { ChecksumMismatch, saveStream, sha256OfFile, sha256OfStream } from "./file-copies.ts";
import { contentTypeOf } from "./image-files.ts";
import { bucketLabel, bucketProblem, isMissing, s3Client } from "./s3-client.ts";
import { isUploadName } from "./upload-names.ts";

const REMOVED = ".removed/";
const HOLDS = ".backup-holds/";
/** Keys named in a refusal, at most. */
const OTHERS_LISTED = 5;

type Listed = { key: string; modified: Date };

export function bucketCovers(client: S3Client, location: BucketLocation): CoverStore {
  const Bucket = location.bucket;
  const live = (name: string) => location.prefix + name;
  const removed = (name: string) => location.prefix + REMOVED + name;
  const held = (id: string) => location.prefix + HOLDS + id;

  async function* listed(prefix: string): AsyncIterable<Listed> {
    for await (const page of paginateListObjectsV2({ client }, { Bucket, Prefix: prefix }))
      for (const object of page.Contents ?? [])
        if (object.Key) yield { key: object.Key, modified: object.LastModified ?? new Date(0) };
  }

  async function namesUnder(prefix: string): Promise<Set<string>> {
    const names = new Set<string>();
    for await (const { key } of listed(prefix)) {
      const name = key.slice(prefix.length);
      if (isUploadName(name)) names.add(name);
    }
    return names;
  }

  /** The object's body, or undefined when there is none. */
  async function body(key: string): Promise<Readable | undefined> {
    try {
      const got = await client.send(new GetObjectCommand({ Bucket, Key: key }));
      return got.Body as Readable | undefined;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  const deleteKey = (key: string) => client.send(new DeleteObjectCommand({ Bucket, Key: key }));
  const keysOf = (name: string, orRemoved: boolean) => (orRemoved ? [live(name), removed(name)] : [live(name)]);

  return {
    kind: "bucket",
    label: bucketLabel(location),

    async list(): Promise<CoverListing> {
      const covers = new Set<string>();
      const others: string[] = [];
      for await (const { key } of listed(location.prefix)) {
        const rest = key.slice(location.prefix.length);
        if (isUploadName(rest)) covers.add(rest);
        else if (!rest.startsWith(REMOVED) && !rest.startsWith(HOLDS) && others.length < OTHERS_LISTED)
          others.push(rest);
      }
      // After the live covers: a cover removed in between is in one of the two.
      return { live: covers, removed: await namesUnder(location.prefix + REMOVED), others };
    },

    async read(name, { orRemoved = false } = {}): Promise<StoredCover | undefined> {
      for (const key of keysOf(name, orRemoved)) {
        const found = await body(key);
        if (found) return sha256OfStream(found);
      }
      return undefined;
    },

    async copyTo(name, dir): Promise<StoredCover | undefined> {
      for (const key of keysOf(name, true)) {
        const found = await body(key);
        if (found) return saveStream(found, dir, name);
      }
      return undefined;
    },

    async put(name, file, sha256) {
      const checked = await sha256OfFile(file);
      if (checked.sha256 !== sha256) throw new ChecksumMismatch(`${file} does not match its checksum`);
      // Streamed, one 5 MiB part in memory at a time (as the service's uploads, s3-store.ts).
      const upload = new Upload({
        client,
        params: { Bucket, Key: live(name), Body: createReadStream(file), ContentType: contentTypeOf(name) },
        queueSize: 1,
        leavePartsOnError: false,
      });
      await upload.done();
    },

    async remove(name) {
      if (!isUploadName(name)) return;
      let holds = false;
      for await (const _ of listed(location.prefix + HOLDS)) {
        holds = true;
        break;
      }
      if (holds) {
        try {
          await client.send(
            new CopyObjectCommand({ Bucket, Key: removed(name), CopySource: `${Bucket}/${live(name)}` }),
          );
        } catch (error) {
          if (isMissing(error)) return; // removed already
          throw error;
        }
      }
      await deleteKey(live(name));
    },

    async delete(name) {
      if (isUploadName(name)) await deleteKey(live(name));
    },

    async prepare() {
      await client.send(new HeadBucketCommand({ Bucket }));
      return { undo() {} }; // a bucket is never created here
    },

    async hold() {
      const key = held(holdName());
      const write = async () => {
        await client.send(
          new PutObjectCommand({
            Bucket,
            Key: key,
            Body: `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() })}\n`,
            ContentType: "application/json",
          }),
        );
      };
      await write();
      return keepHold({
        refresh: write, // a new LastModified
        exists: () =>
          client.send(new HeadObjectCommand({ Bucket, Key: key })).then(
            () => true,
            (error) => (isMissing(error) ? false : Promise.reject(error)),
          ),
        remove: async () => void (await deleteKey(key)),
        removeNow: () => void deleteKey(key).catch(() => {}), // not waited for: at worst it lapses
      });
    },

    async purge(): Promise<number> {
      const lookedAt = Date.now();
      let alive = false;
      for await (const hold of listed(location.prefix + HOLDS)) {
        if (lookedAt - hold.modified.getTime() < HOLD_LAPSES_MS) alive = true;
        else await deleteKey(hold.key).catch(() => {}); // a backup that died
      }
      if (alive) return 0;
      let purged = 0;
      for await (const object of listed(location.prefix + REMOVED)) {
        if (lookedAt - object.modified.getTime() < KEEP_REMOVED_MS) continue;
        await deleteKey(object.key).then(
          () => purged++,
          () => {}, // the next sweep tries again
        );
      }
      return purged;
    },
  };
}

/**
 * The data commands' bucket: its own client, and checked first (it exists and takes the keys);
 * a bucket that cannot be used is refused in one line (exit 2), before anything is written.
 */
export async function checkedBucketCovers(location: BucketLocation): Promise<CoverStore> {
  const client = s3Client(location);
  try {
    await client.send(new HeadBucketCommand({ Bucket: location.bucket }));
  } catch (error) {
    client.destroy();
    const problem = bucketProblem(error, location);
    throw badInput(`${bucketLabel(location)}: ${problem ?? `the store answered ${(error as Error)?.name ?? error}`}`);
  }
  return bucketCovers(client, location);
}
