// The columns whose values may name a file stored under UPLOAD_DIR: a grocery's uploaded cover,
// and the pictures the seeder stores there (restaurant covers, badge covers). Logos, avatars and
// photos are URLs or file names given by clients, which may name such a file too. Whatever keeps
// or removes upload files (the sweep, backups, copy-data) reads references from this one list.
import { isUploadName } from "./upload-names.ts";

export const UPLOAD_REFERENCES: readonly { table: string; column: string }[] = [
  { table: "Grocery", column: "cover" },
  { table: "Restaurant", column: "cover" },
  { table: "Restaurant", column: "logo" },
  { table: "RestaurantPhoto", column: "url" },
  { table: "Badge", column: "cover" },
  { table: "User", column: "avatar" },
];

/** The columns of `table` that may name an upload. */
export const uploadColumnsOf = (table: string) =>
  UPLOAD_REFERENCES.filter((r) => r.table === table).map((r) => r.column);

/** Whether a stored value names an upload file (a 32-hex-digit name this service gave). */
export const namesUpload = (value: unknown): value is string => typeof value === "string" && isUploadName(value);
