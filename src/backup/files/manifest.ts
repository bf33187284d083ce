// A backup folder's manifest.json: what the backup holds (which schema migration, each table's
// row count and checksum, the database file's and the covers' checksums) and when its snapshot
// was taken; manifest.sha256, written after it, is its own checksum. A folder without both is not
// a backup (an interrupted one, or something else). Restore reads and checks them before
// anything is changed.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { readMigrations } from "../../db/migrations.ts";
import type { Dialect } from "../../db/dialect.ts";

export const MANIFEST_FILE = "manifest.json";
/** `sha256sum` format: `sha256sum -c manifest.sha256` checks the manifest by hand. */
export const MANIFEST_CHECKSUM = "manifest.sha256";
export const UPLOADS_FOLDER = "uploads";
/** One line per cover, `sha256sum` format: `cd uploads && sha256sum -c ../uploads.sha256` checks them. */
export const UPLOADS_CHECKSUMS = "uploads.sha256";
export const DATABASE_FILES: Record<Dialect, string> = { sqlite: "database.sqlite", postgres: "database.pgdump" };

const FORMAT = "restaurants-groceries-gateway backup";
/** 2: manifest.sha256; the covers a snapshot named that were missing already are "dangling". */
const FORMAT_VERSION = 2;
/** Dangling references named in a manifest, at most (the count is exact). */
export const DANGLING_LISTED = 100;

const tableSchema = z.object({
  name: z.string(),
  columns: z.array(
    z.object({
      name: z.string(),
      type: z.enum(["text", "int", "bigint", "float", "bool", "datetime", "bytes", "json"]),
    }),
  ),
  primaryKey: z.array(z.string()).min(1),
  rows: z.number().int().min(0),
  checksum: z.string(),
});

const manifestSchema = z.object({
  format: z.literal(FORMAT),
  formatVersion: z.number().int(),
  provider: z.enum(["sqlite", "postgres"]),
  /** Every write acknowledged before this instant is in the backup. */
  snapshotAt: z.string(),
  finishedAt: z.string(),
  source: z.string(),
  /** Applied migrations, oldest first: the last one is the schema's version. */
  migrations: z.array(z.string()),
  database: z.object({
    file: z.string(),
    format: z.string(),
    bytes: z.number(),
    sha256: z.string(),
    tool: z.string(),
    /** The schema the gateway's tables were in (PostgreSQL). */
    schema: z.string().optional(),
  }),
  tables: z.array(tableSchema),
  uploads: z.preprocess(
    // Format 1 called the dangling references "absent".
    (u: any) => (u && u.absentCount !== undefined ? { ...u, danglingCount: u.absentCount, dangling: u.absent } : u),
    z.object({
      files: z.number().int().min(0),
      bytes: z.number().min(0),
      /** How many names the snapshot's rows refer to that no cover answered at the snapshot, and the first of them. */
      danglingCount: z.number().int().min(0),
      dangling: z.array(z.string()).max(DANGLING_LISTED),
      checksumsSha256: z.string(),
    }),
  ),
  /** Another program's objects the source database held, left out of the backup. */
  leftOut: z.array(z.string()).optional(),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestTable = z.infer<typeof tableSchema>;

export const newManifest = (fields: Omit<Manifest, "format" | "formatVersion">): Manifest => ({
  format: FORMAT,
  formatVersion: FORMAT_VERSION,
  ...fields,
});

/** Refused: the folder is not a backup this version can restore (exit code 1, nothing changed). */
export class NotRestorable extends Error {}

/** The manifest's checksum file: `<sha256>  manifest.json`. */
export const manifestChecksum = (text: string) =>
  `${createHash("sha256").update(text).digest("hex")}  ${MANIFEST_FILE}\n`;

/** Reads and checks `dir`'s manifest: a backup, undamaged, of a format and schema this version knows. */
export function readManifest(dir: string): Manifest {
  try {
    if (!statSync(dir).isDirectory()) throw new NotRestorable(`${dir} is not a folder: give a backup's folder`);
  } catch (error) {
    if (error instanceof NotRestorable) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new NotRestorable(`${dir} does not exist`);
    throw new NotRestorable(`cannot read ${dir}: ${code ?? (error as Error).message}`);
  }
  const file = path.join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      throw new NotRestorable(`${dir} is not a backup: it has no ${MANIFEST_FILE} (an unfinished backup has none)`);
    throw new NotRestorable(`cannot read ${file}: ${code ?? (error as Error).message}`);
  }
  let checksum: string | undefined;
  try {
    checksum = readFileSync(path.join(dir, MANIFEST_CHECKSUM), "utf8");
  } catch {
    checksum = undefined; // format 1 had none; a format 2 manifest without one is refused below
  }
  if (checksum !== undefined && checksum !== manifestChecksum(text))
    throw new NotRestorable(`${dir} is damaged: ${MANIFEST_FILE} does not match its checksum (${MANIFEST_CHECKSUM})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new NotRestorable(`${dir} is not a backup: ${MANIFEST_FILE} is not JSON`);
  }
  const format = (parsed as { format?: unknown; formatVersion?: unknown } | null) ?? {};
  if (format.format !== FORMAT)
    throw new NotRestorable(`${dir} is not a backup: ${MANIFEST_FILE} is not a gateway backup manifest`);
  if (typeof format.formatVersion === "number" && format.formatVersion > FORMAT_VERSION) {
    throw new NotRestorable(
      `${dir} was written in backup format ${format.formatVersion} by a newer gateway; this one reads format ${FORMAT_VERSION}: restore it with that version`,
    );
  }
  if (checksum === undefined && format.formatVersion !== 1)
    throw new NotRestorable(
      `${dir} is not a complete backup: it has no ${MANIFEST_CHECKSUM} (an unfinished backup has none)`,
    );
  const result = manifestSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new NotRestorable(`${dir} is not a valid backup: ${MANIFEST_FILE} ${issue.path.join(".")}: ${issue.message}`);
  }
  const manifest = result.data;
  if (manifest.database.file !== DATABASE_FILES[manifest.provider]) {
    throw new NotRestorable(
      `${dir} is not a valid backup: its database file must be ${DATABASE_FILES[manifest.provider]}`,
    );
  }
  const known = new Set(readMigrations(manifest.provider).map((m) => m.name));
  const unknown = manifest.migrations.filter((name) => !known.has(name));
  if (unknown.length) {
    const latest = [...known].sort().at(-1);
    throw new NotRestorable(
      `${dir} holds a newer schema (migration ${unknown.at(-1)}) than this version knows (latest ${latest}): restore it with the gateway version that made it, or a later one`,
    );
  }
  return manifest;
}
