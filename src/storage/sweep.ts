// Removes upload files nothing refers to: temp files left by a crash mid-upload, and covers whose
// grocery row never committed (a crash between saving the file and the database write) or was
// removed while the file could not be deleted. Only files older than `minAgeMs` go, so uploads in
// progress on another instance sharing the directory are left alone.
import { readdir, stat, unlink } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../db/client.ts";
import { isUploadName } from "./uploads.ts";

export async function sweepUploads(db: Db, dir: string, minAgeMs: number): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return []; // no upload directory yet: nothing to sweep
  }
  const candidates = names.filter((n) => n.startsWith(".incoming-") || isUploadName(n));
  if (!candidates.length) return [];
  const referenced = new Set(
    (await db.grocery.findMany({ where: { cover: { in: candidates.filter(isUploadName) } }, select: { cover: true } })).map((g) => g.cover),
  );
  const cutoff = Date.now() - minAgeMs;
  const removed: string[] = [];
  for (const name of candidates) {
    if (referenced.has(name)) continue;
    const file = path.join(dir, name);
    try {
      if ((await stat(file)).mtimeMs > cutoff) continue;
      await unlink(file);
      removed.push(name);
    } catch {
      // gone already, or not ours to remove: leave it
    }
  }
  return removed;
}
