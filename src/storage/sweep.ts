// Removes upload files nothing refers to: temp files left by a crash mid-upload, and covers whose
// grocery row never committed (a crash between saving the file and the database write) or was
// removed while the file could not be deleted. Only files older than `minAgeMs` go, so uploads in
// progress on another instance sharing the directory are left alone. "Refers to" means any column
// of UPLOAD_REFERENCES (seeded restaurant and badge covers live in the same folder). Covers go the
// way every removal goes (kept a while for a running backup: local-covers.ts), and removed covers
// no backup can need any more are deleted.
import { readdir, stat, unlink } from "node:fs/promises";
import path from "node:path";
import type { Db } from "../db/db.ts";
import { coverStoreAt } from "./cover-store.ts";
import { isUploadName } from "./upload-names.ts";
import { UPLOAD_REFERENCES } from "./upload-references.ts";

/** Rows read per `IN (...)` list. */
const NAMES_PER_QUERY = 500;

/** The names among `names` that some row refers to. */
async function referencedAmong(db: Db, names: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const delegates = db.prisma as unknown as Record<
    string,
    { findMany(args: object): Promise<Record<string, string | null>[]> }
  >;
  for (let from = 0; from < names.length; from += NAMES_PER_QUERY) {
    const chunk = names.slice(from, from + NAMES_PER_QUERY);
    for (const { table, column } of UPLOAD_REFERENCES) {
      const model = delegates[table[0]!.toLowerCase() + table.slice(1)]!;
      const rows = await model.findMany({ where: { [column]: { in: chunk } }, select: { [column]: true } });
      for (const row of rows) if (row[column]) found.add(row[column]);
    }
  }
  return found;
}

/** The names of the files it removed. */
export async function sweepUploads(db: Db, dir: string, minAgeMs: number): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return []; // no upload directory yet: nothing to sweep
  }
  const covers = coverStoreAt(dir);
  const candidates = names.filter((n) => n.startsWith(".incoming-") || isUploadName(n));
  const referenced = await referencedAmong(db, candidates.filter(isUploadName));
  const cutoff = Date.now() - minAgeMs;
  const removed: string[] = [];
  for (const name of candidates) {
    if (referenced.has(name)) continue;
    const file = path.join(dir, name);
    try {
      if ((await stat(file)).mtimeMs > cutoff) continue;
      if (isUploadName(name)) await covers.remove(name);
      else await unlink(file);
      removed.push(name);
    } catch {
      // gone already, or not ours to remove: leave it
    }
  }
  await covers.purge();
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
    const rows = await db.prisma.grocery.findMany({
      where: { cover: { not: null }, coverBytes: 0, ...(after ? { id: { gt: after } } : {}) },
      select: { id: true, cover: true },
      orderBy: { id: "asc" },
      take: 500,
    });
    if (!rows.length) return recorded;
    after = rows[rows.length - 1].id;
    for (const row of rows) {
      if (!row.cover || !isUploadName(row.cover)) continue;
      const size = await stat(path.join(dir, row.cover)).then(
        (s) => s.size,
        () => 0,
      );
      if (size === 0) continue;
      // Only while the row still has that cover and no size: an upload meanwhile wrote its own.
      const { count } = await db.prisma.grocery.updateMany({
        where: { id: row.id, cover: row.cover, coverBytes: 0 },
        data: { coverBytes: size },
      });
      recorded += count;
    }
  }
}
