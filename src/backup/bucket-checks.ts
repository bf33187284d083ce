// What the data commands check of a bucket that a folder does not need. A bucket is shared more
// easily than a folder (one set of keys, a prefix that is only a convention), and a wrong
// S3_BUCKET or S3_PREFIX looks like an empty store, so:
// - a backup that cannot find a cover its snapshot names in the bucket fails, unless told that
//   such covers may be missing (--allow-missing-covers): a folder's missing file is reported as
//   dangling, but in a bucket it is as likely the wrong bucket as the database's own loss;
// - restore and copy-data refuse a bucket holding, under the prefix, objects that are not covers
//   (another program's: exit 2, always) or covers that are not those being written (another
//   deployment's, or an older state: exit 1 unless --overwrite), as they refuse a database that
//   holds rows: the service's sweep would delete such covers once no row names them.
import { badInput } from "../contract/errors.ts";
import type { CoverStore } from "../storage/cover-store.ts";
import { CoverLost } from "./files/covers.ts";
import { TargetNotEmpty } from "./connection/tables.ts";

/** The flag that lets a backup of a bucket go on without covers its snapshot names. */
export const ALLOW_MISSING_COVERS = "--allow-missing-covers";

/** A bucket lacks covers the snapshot names: refused (exit 1) unless `allowed`. */
export function refuseMissingFromBucket(store: CoverStore, missing: string[], allowed: boolean) {
  if (store.kind !== "bucket" || !missing.length || allowed) return;
  throw new CoverLost(
    `${missing.length} covers the snapshot's rows name are not in ${store.label} (e.g. ${missing[0]}): the wrong S3_BUCKET or S3_PREFIX, or objects deleted by something other than the gateway; ${ALLOW_MISSING_COVERS} backs up without them (counted as dangling in the manifest)`,
  );
}

/**
 * Refuses a bucket that holds, under its prefix, anything but `belonging` (the covers the command
 * writes, or a resumed copy wrote): another program's objects always (exit 2), other covers unless
 * `overwrite` (exit 1). A folder is not looked at here.
 */
export async function refuseStrangers(target: CoverStore, belonging: Set<string>, overwrite: boolean) {
  if (target.kind !== "bucket") return;
  const there = await target.list();
  if (there.others?.length)
    throw badInput(
      `${target.label} holds objects that are not covers (e.g. ${there.others[0]}): give the service a bucket, or a prefix (S3_PREFIX, s3://bucket/prefix/), of its own`,
    );
  const strangers = [...there.live].filter((name) => !belonging.has(name)).sort();
  if (strangers.length && !overwrite)
    throw new TargetNotEmpty(
      `${target.label} holds ${strangers.length} covers that are not the ones written here (e.g. ${strangers[0]}): use an empty bucket or prefix, or add --overwrite to write beside them (the service's sweep then deletes those no row names)`,
    );
}
