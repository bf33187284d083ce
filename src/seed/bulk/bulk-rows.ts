// The bulk seed's rows by table, batch by batch: the generator of dataset.ts (the same rows as the
// chunked Prisma path) shaped for the bulk writers (bulk.ts) in the row worker (bulk-row-worker.ts):
// flat statement values for SQLite, COPY's text for PostgreSQL.
import { grocery, restaurant, type GrocerySeed, type RestaurantSeed, type Size } from "../dataset.ts";
import { seedUploadName } from "../images.ts";
import type { SeedOpeningPatterns } from "../opening-patterns.ts";

export type Row = Record<string, unknown>;
export type Tables = Record<string, Row[]>;

/** Covers are shared in bulk: 16 files per catalogue, not three million. */
const SHARED_COVERS = 16;
const coverNames = (catalogue: string) =>
  Array.from({ length: SHARED_COVERS }, (_, i) => seedUploadName(`${catalogue}:shared-${i}`));
const SHARED = { restaurant: coverNames("restaurant"), grocery: coverNames("grocery") };

/** A cover file shared by every `SHARED_COVERS`-th item of a catalogue. */
export const sharedCover = (catalogue: "restaurant" | "grocery", n: number) =>
  SHARED[catalogue][(n - 1) % SHARED_COVERS]!;

/** The rows of restaurants from..to, by table (the loads set foreign keys aside, so the order is free). */
export function restaurantRows(
  from: number,
  to: number,
  size: Size,
  badgeIds: string[],
  patterns: SeedOpeningPatterns,
): Tables {
  const t: Tables = {
    RestaurantTag: [],
    OpeningHours: [],
    RestaurantBadge: [],
    Comment: [],
    Order: [],
    Report: [],
    Restaurant: [],
  };
  for (let n = from; n <= to; n++) {
    const r: RestaurantSeed = restaurant(n, size, sharedCover("restaurant", n));
    t.RestaurantTag.push(...r.tags);
    t.OpeningHours.push(...r.openingHours);
    t.RestaurantBadge.push(
      ...r.badges.map((b) => ({ restaurantId: r.row.id, badgeId: badgeIds[b.badge], receivedAt: b.receivedAt })),
    );
    t.Comment.push(...r.comments);
    t.Order.push(...r.orders);
    t.Report.push(...r.reports);
    const { ratingSum, ratingCount } = r.row as { ratingSum: number; ratingCount: number };
    // The comment mutation's expression (CAST(sum AS DOUBLE) / count): the same IEEE division.
    const openingPattern = patterns.idOf(r.row.timeZone, r.openingHours);
    t.Restaurant.push({ ...r.row, ratingAvg: ratingCount > 0 ? ratingSum / ratingCount : null, openingPattern });
  }
  return t;
}

/** Byte sizes of the shared grocery covers by file name: each grocery counts its cover against its owner's quota. */
export type CoverBytes = Map<string, number>;

export function groceryRows(from: number, to: number, size: Size, coverBytes: CoverBytes): Tables {
  const t: Tables = { GroceryTag: [], Grocery: [], ShoppingListEntry: [] };
  for (let n = from; n <= to; n++) {
    const cover = sharedCover("grocery", n);
    const g: GrocerySeed = grocery(n, size, cover);
    t.GroceryTag.push(...g.tags);
    t.Grocery.push({ ...g.row, coverBytes: coverBytes.get(cover) ?? 0 });
    t.ShoppingListEntry.push(...g.shoppingList);
  }
  return t;
}

/** A table's rows as SQLite takes them: one flat array of values, row after row, in `columns`' order. */
export type FlatRows = { table: string; columns: string[]; values: unknown[] };

const sqliteValue = (v: unknown) =>
  v instanceof Date
    ? v.toISOString().replace("Z", "+00:00")
    : typeof v === "boolean"
      ? v
        ? 1
        : 0
      : v === undefined
        ? null
        : v;

/** Each table's rows (all with the keys of its first) flattened into SQLite values. */
export function flatForSqlite(tables: Tables): FlatRows[] {
  return Object.entries(tables)
    .filter(([, rows]) => rows.length > 0)
    .map(([table, rows]) => {
      const columns = Object.keys(rows[0]!);
      const values: unknown[] = [];
      for (const row of rows) for (const c of columns) values.push(sqliteValue(row[c]));
      return { table, columns, values };
    });
}

/** A table's rows in COPY's text format, in `columns`' order. */
export type CopyRows = { table: string; columns: string[]; text: string };

/** COPY's text format: tabs between fields, \N for null, backslash escapes. */
const COPY_ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
function copyField(v: unknown): string {
  if (v === null || v === undefined) return "\\N";
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "boolean") return v ? "t" : "f";
  if (typeof v === "string") return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : v;
  return String(v);
}

/** Each table's rows (all with the keys of its first) as COPY text. */
export function copyForPostgres(tables: Tables): CopyRows[] {
  return Object.entries(tables)
    .filter(([, rows]) => rows.length > 0)
    .map(([table, rows]) => {
      const columns = Object.keys(rows[0]!);
      const text = rows.map((row) => columns.map((c) => copyField(row[c])).join("\t")).join("\n") + "\n";
      return { table, columns, text };
    });
}
