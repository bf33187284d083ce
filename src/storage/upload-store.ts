// Where uploaded images live: a folder (UPLOAD_DIR, the default) or an S3-compatible bucket
// (UPLOAD_STORE=s3). Everything above this seam (saving with its checks, serving, the sweep,
// readiness) speaks to an UploadStore and never to the disk or the bucket directly.
import type { Readable } from "node:stream";
import type { Config } from "../config.ts";
import { filesystemStore } from "./filesystem-store.ts";

/** A stored file's size and when it was written. */
export type StoredFile = { bytes: number; modified: Date };

/** A stored file opened for reading: its bytes must be read to the end or destroyed. */
export type OpenedFile = StoredFile & { body: Readable };

/** A file being written: nothing is visible under its name until `commit`; `abort` leaves nothing. */
export type NewFile = {
  write(chunk: Buffer): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
};

export interface UploadStore {
  readonly kind: "filesystem" | "s3";
  /** Refuses (STORAGE_FULL) while the store has no room for uploads, before a byte is read. */
  ensureRoom(field: string): Promise<void>;
  /** Starts writing a new file under `name` (a name from image-files.ts). */
  create(name: string, contentType: string, field: string): Promise<NewFile>;
  /** Stores `bytes` under `name` unless a file is there already (the seeder); true when written. */
  putIfAbsent(name: string, bytes: Buffer, contentType: string): Promise<boolean>;
  /** The file, or null when there is none. */
  open(name: string): Promise<OpenedFile | null>;
  stat(name: string): Promise<StoredFile | null>;
  /**
   * The service's removal of a file a committed row named; one already gone is no error. It is
   * kept a while for a backup whose snapshot may name it (local-covers.ts, bucket-covers.ts).
   */
  remove(name: string): Promise<void>;
  /** Deletes at once a file no committed row ever named (a write that failed). */
  discard(name: string): Promise<void>;
  /** Deletes the removed files no backup can still need (the sweep's last step); returns how many. */
  purge(): Promise<number>;
  /** Every file the store holds, with leftovers of interrupted writes (for the sweep). */
  list(): AsyncIterable<{ name: string; modified: Date }>;
  /** Throws when the store cannot take uploads now (for /readyz). */
  check(): Promise<void>;
  /** A URL that serves the file for `seconds` without this service (S3 only). */
  presignedUrl?(name: string, seconds: number): Promise<string>;
  /** Releases connections (S3); the filesystem store holds none. */
  close(): void;
}

/** The store the settings name. The AWS SDK (seconds of start-up under load) is loaded only for a bucket. */
export async function createUploadStore(
  config: Pick<Config, "uploadStore" | "uploadDir" | "uploadDiskReserveBytes">,
): Promise<UploadStore> {
  const settings = config.uploadStore;
  if (settings.kind === "s3") return (await import("./s3-store.ts")).s3Store(settings);
  return filesystemStore({ dir: config.uploadDir, diskReserveBytes: config.uploadDiskReserveBytes });
}
