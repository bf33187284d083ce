// Removes upload files nothing refers to: temp files left by a crash mid-upload, and covers whose
// grocery row never committed (a crash between saving the file and the database write) or was
// removed while the file could not be deleted. Only files older than `minAgeMs` go, so uploads in
// progress on another instance sharing the directory are left alone.
import { readdir, stat, unlink } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../db/client.ts";
import { isUploadName } from "./image-files.ts";

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

/**
 * Records the file size of covers stored before sizes were kept (and by the seeder), so that they
 * count against their owner's upload quota. A row whose file is gone keeps 0.
 */
export async function recordCoverSizes(db: Db, dir: string): Promise<number> {
  let recorded = 0;
  let after: string | undefined;
  for (;;) {
    const rows = await db.grocery.findMany({
      where: { cover: { not: null }, coverBytes: 0, ...(after ? { id: { gt: after } } : {}) },
      select: { id: true, cover: true },
      orderBy: { id: "asc" },
      take: 500,
    });
    if (!rows.length) return recorded;
    after = rows[rows.length - 1].id;
    for (const row of rows) {
      if (!row.cover || !isUploadName(row.cover)) continue;
      const size = await stat(path.join(dir, row.cover)).then((s) => s.size, () => 0);
      if (size === 0) continue;
      // Only while the row still has that cover and no size: an upload meanwhile wrote its own.
      const { count } = await db.grocery.updateMany({ where: { id: row.id, cover: row.cover, coverBytes: 0 }, data: { coverBytes: size } });
      recorded += count;
    }
  }
}
