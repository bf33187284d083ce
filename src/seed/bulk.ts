// The big seed sizes (200k, 1m) written in bulk, in one transaction, with the database's plain
// driver: the generator of dataset.ts gives the same rows as the chunked Prisma path, but a
// million restaurants through Prisma's createMany would take most of an hour. Covers are shared
// (16 files per catalogue, not three million). Rows that exist are left as they are
// (INSERT OR IGNORE / ON CONFLICT DO NOTHING), so a second run adds nothing.
//
// The search indexes stay derived: SQLite's triggers build each restaurant's document when its
// row arrives, so its tags go in first (foreign keys off on this connection alone) and the row
// last; PostgreSQL's triggers are switched off inside the transaction and the migration's
// refresh functions index each batch once, which is what the triggers would have done.
import Database from "better-sqlite3";
import pg from "pg";
import type { Config } from "../config.ts";
import { sqliteFilePath } from "../db/sqlite-adapter.ts";
import { grocery, restaurant, type GrocerySeed, type RestaurantSeed, type Size } from "./dataset.ts";
import { seedUploadName } from "./images.ts";

type Row = Record<string, unknown>;
type Tables = Record<string, Row[]>;
export type BulkProgress = (phase: "restaurants" | "groceries", done: number) => void;

const SHARED_COVERS = 16;
const BATCH = 2000;

/** A cover file shared by every `SHARED_COVERS`-th item of a catalogue. */
export const sharedCover = (catalogue: "restaurant" | "grocery", n: number) => seedUploadName(`${catalogue}:shared-${(n - 1) % SHARED_COVERS}`);

/** The rows of restaurants from..to, by table, in the order SQLite wants them (children first). */
function restaurantRows(from: number, to: number, size: Size, badgeIds: string[]): Tables {
  const t: Tables = { RestaurantTag: [], OpeningHours: [], RestaurantBadge: [], Comment: [], Order: [], Report: [], Restaurant: [] };
  for (let n = from; n <= to; n++) {
    const r: RestaurantSeed = restaurant(n, size);
    t.RestaurantTag.push(...r.tags);
    t.OpeningHours.push(...r.openingHours);
    t.RestaurantBadge.push(...r.badges.map((b) => ({ restaurantId: r.row.id, badgeId: badgeIds[b.badge], receivedAt: b.receivedAt })));
    t.Comment.push(...r.comments);
    t.Order.push(...r.orders);
    t.Report.push(...r.reports);
    const { ratingSum, ratingCount } = r.row as { ratingSum: number; ratingCount: number };
    // The comment mutation's expression (CAST(sum AS DOUBLE) / count): the same IEEE division.
    t.Restaurant.push({ ...r.row, cover: sharedCover("restaurant", n), ratingAvg: ratingCount > 0 ? ratingSum / ratingCount : null });
  }
  return t;
}

function groceryRows(from: number, to: number, size: Size): Tables {
  const t: Tables = { GroceryTag: [], Grocery: [], ShoppingListEntry: [] };
  for (let n = from; n <= to; n++) {
    const g: GrocerySeed = grocery(n, size);
    t.GroceryTag.push(...g.tags);
    t.Grocery.push({ ...g.row, cover: sharedCover("grocery", n) });
    t.ShoppingListEntry.push(...g.shoppingList);
  }
  return t;
}

/** Parents before children, for PostgreSQL's foreign keys (checked row by row there). */
const PARENTS_FIRST = ["Restaurant", "RestaurantTag", "OpeningHours", "RestaurantBadge", "Comment", "Order", "Report", "Grocery", "GroceryTag", "ShoppingListEntry"];

/** Whether the last item of each catalogue is there already (then nothing is written). */
export type BulkTarget = { database: Config["database"]; size: Size; badgeIds: string[]; onProgress?: BulkProgress };

export async function writeInBulk(target: BulkTarget): Promise<{ restaurants: number; groceries: number }> {
  return target.database.provider === "sqlite" ? writeSqlite(target) : writePostgres(target);
}

// ---- SQLite ---------------------------------------------------------------------------------------

const sqliteValue = (v: unknown) =>
  v instanceof Date ? v.toISOString().replace("Z", "+00:00") : typeof v === "boolean" ? (v ? 1 : 0) : v === undefined ? null : v;

function writeSqlite({ database, size, badgeIds, onProgress }: BulkTarget) {
  const db = new Database(sqliteFilePath(database.url));
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = OFF"); // this connection only: children go in before their row (see above)
    db.pragma("cache_size = -1000000"); // up to ~1 GB of pages while the indexes grow
    db.pragma("temp_store = MEMORY");
    const statements = new Map<string, Database.Statement>();
    const insert = (table: string, rows: Row[]) => {
      if (rows.length === 0) return 0;
      const columns = Object.keys(rows[0]);
      const key = `${table}:${columns.join(",")}`;
      let stmt = statements.get(key);
      if (!stmt) {
        stmt = db.prepare(`INSERT OR IGNORE INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
        statements.set(key, stmt);
      }
      let changes = 0;
      for (const row of rows) changes += stmt.run(columns.map((c) => sqliteValue(row[c]))).changes;
      return changes;
    };
    const counts = { restaurants: 0, groceries: 0 };
    db.transaction(() => {
      for (let from = 1; from <= size.restaurants; from += BATCH) {
        const to = Math.min(from + BATCH - 1, size.restaurants);
        const tables = restaurantRows(from, to, size, badgeIds);
        for (const [table, rows] of Object.entries(tables)) {
          const added = insert(table, rows);
          if (table === "Restaurant") counts.restaurants += added;
        }
        onProgress?.("restaurants", to - from + 1);
      }
      for (let from = 1; from <= size.groceries; from += BATCH) {
        const to = Math.min(from + BATCH - 1, size.groceries);
        for (const [table, rows] of Object.entries(groceryRows(from, to, size))) {
          const added = insert(table, rows);
          if (table === "Grocery") counts.groceries += added;
        }
        onProgress?.("groceries", to - from + 1);
      }
    })();
    db.pragma("optimize=0x10002"); // statistics for the planner on every table (ANALYZE, bounded)
    db.pragma("wal_checkpoint(TRUNCATE)");
    return counts;
  } finally {
    db.close();
  }
}

// ---- PostgreSQL -----------------------------------------------------------------------------------

async function writePostgres({ database, size, badgeIds, onProgress }: BulkTarget) {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows: typeRows } = await client.query<{ table_name: string; column_name: string; udt_name: string }>(
      `SELECT table_name, column_name, udt_name FROM information_schema.columns WHERE table_schema = current_schema()`,
    );
    const typeOf = (table: string, column: string) => typeRows.find((r) => r.table_name === table && r.column_name === column)!.udt_name;
    const insert = async (table: string, rows: Row[]) => {
      if (rows.length === 0) return 0;
      const columns = Object.keys(rows[0]);
      const arrays = columns.map((c) => rows.map((row) => (row[c] === undefined ? null : row[c] instanceof Date ? (row[c] as Date).toISOString() : row[c])));
      const result = await client.query(
        `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")})
         SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::"${typeOf(table, c)}"[]`).join(", ")}) ON CONFLICT DO NOTHING`,
        arrays,
      );
      return result.rowCount ?? 0;
    };
    const counts = { restaurants: 0, groceries: 0 };
    const searched = ["Restaurant", "RestaurantTag", "Grocery", "GroceryTag"];
    await client.query("BEGIN");
    try {
      // Inside the transaction: other sessions never see the triggers off.
      for (const table of searched) await client.query(`ALTER TABLE "${table}" DISABLE TRIGGER USER`);
      for (let from = 1; from <= size.restaurants; from += BATCH) {
        const to = Math.min(from + BATCH - 1, size.restaurants);
        const tables = restaurantRows(from, to, size, badgeIds);
        for (const table of PARENTS_FIRST.filter((t) => t in tables)) {
          const added = await insert(table, tables[table]);
          if (table === "Restaurant") counts.restaurants += added;
        }
        await client.query("SELECT restaurant_search_refresh($1::text[])", [tables.Restaurant.map((r) => r.id)]);
        onProgress?.("restaurants", to - from + 1);
      }
      for (let from = 1; from <= size.groceries; from += BATCH) {
        const to = Math.min(from + BATCH - 1, size.groceries);
        const tables = groceryRows(from, to, size);
        for (const table of PARENTS_FIRST.filter((t) => t in tables)) {
          const added = await insert(table, tables[table]);
          if (table === "Grocery") counts.groceries += added;
        }
        await client.query("SELECT grocery_search_refresh($1::text[])", [tables.Grocery.map((g) => g.id)]);
        onProgress?.("groceries", to - from + 1);
      }
      for (const table of searched) await client.query(`ALTER TABLE "${table}" ENABLE TRIGGER USER`);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    }
    await client.query("ANALYZE");
    return counts;
  } finally {
    await client.end();
  }
}
