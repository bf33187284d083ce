// An SQLite database's file, from its URL (`file:path?options`).
import { mkdirSync } from "node:fs";
import path from "node:path";

export function sqliteFilePath(url: string): string {
  const file = url.replace(/^file:/, "");
  const query = file.indexOf("?");
  return query < 0 ? file : file.slice(0, query);
}

/** The file of `url`, its folder created if needed (an in-memory database has none). */
export function prepareSqliteFile(url: string): string {
  const file = sqliteFilePath(url);
  if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return file;
}
