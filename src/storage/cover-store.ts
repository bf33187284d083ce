// Where cover files are kept, behind one interface: a local upload folder (local-covers.ts) or an
// S3-compatible bucket (bucket-covers.ts), chosen in coverStoreAt, the one place the data commands
// make stores. The service removes covers through it, and the data commands
// (backup, restore, copy-data) list, read, copy and put covers through it (their copying in one
// place: src/backup/files/covers.ts).
//
// A removal keeps the file for a while: a backup taken at the same time may need it, since its
// database snapshot can name a cover the service replaced a moment later. A backup holds the
// removed covers (`hold`) from before its snapshot until it has copied what it needs; `purge`
// deletes removed covers no backup can still need. Why this way: docs/operations.md, backup.
import type { BucketLocation } from "../config.ts";
import type { CopiedFile } from "./file-copies.ts";
import { localCovers } from "./local-covers.ts";

export type StoredCover = CopiedFile;

export type CoverListing = {
  /** Covers served now. */
  live: Set<string>;
  /** Covers the service removed, kept while a backup may need them. */
  removed: Set<string>;
  /** A bucket: its keys (under the prefix) that are neither covers nor the store's own, the first few. */
  others?: string[];
};

export type CoverHold = {
  /**
   * Ends the hold. Refuses (throws) when the hold lapsed meanwhile: the process stalled for longer
   * than other instances wait for it, so a removed cover it needed may have been deleted.
   */
  release(): Promise<void>;
  /** The same, synchronously and without the check: for a process that is being stopped. */
  releaseNow(): void;
};

export interface CoverStore {
  readonly kind: "folder" | "bucket";
  /** Where it is, for messages. */
  readonly label: string;
  /** A folder's path: covers are copied straight into it. */
  readonly folder?: string;
  /** The live covers, then the removed ones: a cover removed in between is in one of the two. */
  list(): Promise<CoverListing>;
  /** Size and SHA-256 of a live cover (`orRemoved`: else of the removed one); undefined when there is none. */
  read(name: string, options?: { orRemoved?: boolean }): Promise<StoredCover | undefined>;
  /**
   * Copies a cover into the local folder `dir` under its name: the live one, else the removed one
   * kept for backups; undefined when there is neither.
   */
  copyTo(name: string, dir: string): Promise<StoredCover | undefined>;
  /** Makes the local `file` the live cover `name`; refused (ChecksumMismatch) unless its SHA-256 is `sha256`. */
  put(name: string, file: string, sha256: string): Promise<void>;
  /** The service's removal: no longer served; kept while a backup may need it. */
  remove(name: string): Promise<void>;
  /** Deletes a live cover at once (what a failed restore had put there). */
  delete(name: string): Promise<void>;
  /** Creates the store if it does not exist yet; `undo` removes what this created, while still empty. */
  prepare(): Promise<{ undo(): void }>;
  /** Keeps every removed cover until released (a backup's, from before its snapshot). */
  hold(): Promise<CoverHold>;
  /** Deletes the removed covers no backup can still need; returns how many. */
  purge(): Promise<number>;
}

/** A folder (UPLOAD_DIR, or one the data commands name) or a bucket. */
export type CoverLocation = string | BucketLocation;

/**
 * The store at `location`: the one place its kind is chosen. A bucket is checked first (it exists
 * and takes the keys), refused in one line (exit 2) when not; the AWS SDK is loaded only for one.
 */
export async function coverStoreAt(location: CoverLocation): Promise<CoverStore> {
  if (typeof location === "string") return localCovers(location);
  return (await import("./bucket-covers.ts")).checkedBucketCovers(location);
}
