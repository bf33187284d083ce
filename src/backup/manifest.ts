// A backup folder's manifest.json: what the backup holds (which schema migration, each table's
// row count and checksum, the database file's and the covers' checksums) and when its snapshot
// was taken. It is written last, so a folder without one is not a backup (an interrupted one,
// or something else), and read back by restore before anything is changed.
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { readMigrations } from "../db/migrations.ts";
import type { Dialect } from "../db/dialect.ts";

export const MANIFEST_FILE = "manifest.json";
export const UPLOADS_FOLDER = "uploads";
/** One line per cover, `sha256sum` format: `cd uploads && sha256sum -c ../uploads.sha256` checks them. */
export const UPLOADS_CHECKSUMS = "uploads.sha256";
export const DATABASE_FILES: Record<Dialect, string> = { sqlite: "database.sqlite", postgres: "database.pgdump" };

const FORMAT = "restaurants-groceries-gateway backup";
const FORMAT_VERSION = 1;
/** Absent covers named in a manifest, at most (the count is exact). */
export const ABSENT_LISTED = 100;

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
  database: z.object({ file: z.string(), format: z.string(), bytes: z.number(), sha256: z.string(), tool: z.string() }),
  tables: z.array(tableSchema),
  uploads: z.object({
    files: z.number().int().min(0),
    bytes: z.number().min(0),
    /** How many names the snapshot's rows refer to that the upload folder did not hold, and the first of them. */
    absentCount: z.number().int().min(0),
    absent: z.array(z.string()).max(ABSENT_LISTED),
    checksumsSha256: z.string(),
  }),
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

/** Reads and checks `dir`'s manifest: a backup, of a format and schema this version knows. */
export function readManifest(dir: string): Manifest {
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
