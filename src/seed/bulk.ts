// The big seed sizes (200k, 1m) written in bulk, in one transaction, with the database's plain
// driver: the generator of dataset.ts gives the same rows as the chunked Prisma path, but a
// million restaurants through Prisma's createMany would take most of an hour. Covers are shared
// (16 files per catalogue, not three million). Rows that exist are left as they are
// (INSERT OR IGNORE / ON CONFLICT DO NOTHING), so a second run adds nothing. SQLite takes 256
// rows a statement; PostgreSQL takes a first load (no seed row of the catalogue there yet) with
// COPY, the cheapest way in, while the next batch is generated.
//
// Inside the one transaction the loaded tables' secondary indexes and search triggers (and on
// PostgreSQL their foreign keys) are taken away and put back at the end, from their own SQL as
// the database holds it (sqlite_master, pg_indexes, pg_constraint): an index built once from
// sorted rows is several times cheaper than one kept up to date row by row, and a foreign key
// put back is checked once over every row (a bad row still fails the load). The search indexes stay derived: they are filled at the end by the same
// statements the migration backfills them with (SQLite), or by its refresh functions
// (PostgreSQL), which is what the triggers would have done row by row; the kept counts are
// counted again over every row. Nobody sees the tables
// without them: the transaction commits with everything back in place.
import Database from "better-sqlite3";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { debuglog } from "node:util";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { Config } from "../config.ts";
import { sqliteFilePath } from "../db/sqlite-adapter.ts";
import { grocery, restaurant, type GrocerySeed, type RestaurantSeed, type Size } from "./dataset.ts";
import { seedUploadName } from "./images.ts";
import { SeedOpeningPatterns, UNUSED_PATTERNS, type PatternRow } from "./opening-patterns.ts";

type Row = Record<string, unknown>;

/** Seconds each phase took, on stderr with NODE_DEBUG=seed (Node's own debug switch). */
const debug = debuglog("seed");
function phaseTimer() {
  let start = performance.now();
  return (phase: string) => {
    const now = performance.now();
    debug("%s %ss", phase, ((now - start) / 1000).toFixed(1));
    start = now;
  };
}
type Tables = Record<string, Row[]>;
export type BulkProgress = (phase: "restaurants" | "groceries", done: number) => void;

const SHARED_COVERS = 16;
const BATCH = 5000;

/** The tables a bulk seed writes: their secondary indexes and triggers are set aside meanwhile. */
const LOADED = ["Restaurant", "RestaurantTag", "OpeningHours", "RestaurantBadge", "Comment", "Order", "Report", "Grocery", "GroceryTag", "ShoppingListEntry"];

/**
 * The SQLite search rows of restaurants and groceries added after `after` (the last search row id
 * before the load): the backfill of migration 20261125165728_search, for the new rows only.
 */
const SQLITE_SEARCH_FILL = [
  `INSERT INTO "RestaurantSearchRow" ("restaurantId", "latitude", "longitude") SELECT "id", "latitude", "longitude" FROM "Restaurant" WHERE "id" NOT IN (SELECT "restaurantId" FROM "RestaurantSearchRow")`,
  `INSERT INTO "RestaurantSearch" ("rowid", "title", "tags", "body", "place") SELECT "rowid", "title", "tags", "body", "place" FROM "RestaurantSearchDocument" WHERE "rowid" > @restaurants`,
  `INSERT INTO "RestaurantTitleTrigrams" ("rowid", "title") SELECT "rowid", "titleSearch" FROM "RestaurantSearchDocument" WHERE "rowid" > @restaurants`,
  `INSERT INTO "GrocerySearchRow" ("groceryId") SELECT "id" FROM "Grocery" WHERE "id" NOT IN (SELECT "groceryId" FROM "GrocerySearchRow")`,
  `INSERT INTO "GrocerySearch" ("rowid", "title", "tags", "body") SELECT "rowid", "title", "tags", "body" FROM "GrocerySearchDocument" WHERE "rowid" > @groceries`,
  `INSERT INTO "GroceryTitleTrigrams" ("rowid", "title") SELECT "rowid", "titleSearch" FROM "GrocerySearchDocument" WHERE "rowid" > @groceries`,
];

/**
 * PostgreSQL's grocery documents for the groceries without one: groceries repeat their words (a
 * million share a few thousand titles, descriptions and categories), so the refresh function
 * computes one document per distinct source and the others take a copy of it.
 */
const GROCERY_SEARCH_FILL = [
  `CREATE TEMP TABLE "SeedGrocerySource" ON COMMIT DROP AS
   SELECT g."id", MIN(g."id") OVER (PARTITION BY g."title", g."alsoKnownAs", g."description", c."categories") AS "sameAs"
   FROM "Grocery" g
   LEFT JOIN (SELECT "groceryId", string_agg("value", ' ' ORDER BY "position") AS "categories" FROM "GroceryTag"
              WHERE "kind"::text = 'CATEGORY' GROUP BY "groceryId") c ON c."groceryId" = g."id"
   WHERE NOT EXISTS (SELECT 1 FROM "GrocerySearch" s WHERE s."groceryId" = g."id")`,
  `SELECT grocery_search_refresh(ARRAY(SELECT "id" FROM "SeedGrocerySource" WHERE "id" = "sameAs"))`,
  `INSERT INTO "GrocerySearch" ("groceryId", "document")
   SELECT o."id", s."document" FROM "SeedGrocerySource" o JOIN "GrocerySearch" s ON s."groceryId" = o."sameAs" WHERE o."id" <> o."sameAs"`,
  `DROP TABLE "SeedGrocerySource"`,
];

/**
 * The counts kept per list value and city, counted again over every row: the backfill of migration
 * 20261125200000_search_scale (the load sets their triggers aside with the others). The same SQL
 * on both databases.
 */
const FACET_COUNT_FILL = [
  `DELETE FROM "RestaurantFacetCount"`,
  `DELETE FROM "GroceryFacetCount"`,
  `INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n") SELECT 'ALL', '', '', COUNT(*) FROM "Restaurant" HAVING COUNT(*) > 0`,
  `INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
     SELECT 'CITY', "citySearch", MIN(COALESCE("city", "citySearch")), COUNT(*) FROM "Restaurant" WHERE "citySearch" IS NOT NULL GROUP BY "citySearch"`,
  `INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
     SELECT CAST("kind" AS TEXT), "valueKey", MIN("value"), COUNT(*) FROM "RestaurantTag"
     WHERE CAST("kind" AS TEXT) IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') GROUP BY "kind", "valueKey"`,
  `INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n") SELECT 'ALL', '', '', COUNT(*) FROM "Grocery" HAVING COUNT(*) > 0`,
  `INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n")
     SELECT CAST("kind" AS TEXT), "valueKey", MIN("value"), COUNT(*) FROM "GroceryTag" WHERE CAST("kind" AS TEXT) = 'CATEGORY' GROUP BY "kind", "valueKey"`,
];

const coverNames = (catalogue: string) => Array.from({ length: SHARED_COVERS }, (_, i) => seedUploadName(`${catalogue}:shared-${i}`));
const SHARED = { restaurant: coverNames("restaurant"), grocery: coverNames("grocery") };

/** A cover file shared by every `SHARED_COVERS`-th item of a catalogue. */
export const sharedCover = (catalogue: "restaurant" | "grocery", n: number) => SHARED[catalogue][(n - 1) % SHARED_COVERS]!;

/** The rows of restaurants from..to, by table, in the order SQLite wants them (children first). */
function restaurantRows(from: number, to: number, size: Size, badgeIds: string[], patterns: SeedOpeningPatterns): Tables {
  const t: Tables = { RestaurantTag: [], OpeningHours: [], RestaurantBadge: [], Comment: [], Order: [], Report: [], Restaurant: [] };
  for (let n = from; n <= to; n++) {
    const r: RestaurantSeed = restaurant(n, size, sharedCover("restaurant", n));
    t.RestaurantTag.push(...r.tags);
    t.OpeningHours.push(...r.openingHours);
    t.RestaurantBadge.push(...r.badges.map((b) => ({ restaurantId: r.row.id, badgeId: badgeIds[b.badge], receivedAt: b.receivedAt })));
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

function groceryRows(from: number, to: number, size: Size, coverBytes: CoverBytes): Tables {
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

/** Parents before children, for PostgreSQL's foreign keys (checked row by row there). */
const PARENTS_FIRST = ["Restaurant", "RestaurantTag", "OpeningHours", "RestaurantBadge", "Comment", "Order", "Report", "Grocery", "GroceryTag", "ShoppingListEntry"];

/** Whether the last item of each catalogue is there already (then nothing is written). */
export type BulkTarget = { database: Config["database"]; size: Size; badgeIds: string[]; coverBytes?: CoverBytes; onProgress?: BulkProgress };

export async function writeInBulk(target: BulkTarget): Promise<{ restaurants: number; groceries: number }> {
  return target.database.provider === "sqlite" ? writeSqlite(target) : writePostgres(target);
}

// ---- SQLite ---------------------------------------------------------------------------------------

const sqliteValue = (v: unknown) =>
  v instanceof Date ? v.toISOString().replace("Z", "+00:00") : typeof v === "boolean" ? (v ? 1 : 0) : v === undefined ? null : v;

/** Rows per INSERT statement: one call into SQLite for many rows (its limit is 32,766 values). */
const ROWS_PER_STATEMENT = 256;

/**
 * Inserts rows (all with the keys of the first) with INSERT OR IGNORE, ROWS_PER_STATEMENT rows a
 * statement: the statements are prepared once per table and row count. Returns the rows added.
 */
function sqliteInserter(db: Database.Database) {
  const statements = new Map<string, Database.Statement>();
  const statement = (table: string, columns: string[], rows: number) => {
    const key = `${table}:${rows}:${columns.join(",")}`;
    let stmt = statements.get(key);
    if (!stmt) {
      const tuple = `(${columns.map(() => "?").join(", ")})`;
      stmt = db.prepare(`INSERT OR IGNORE INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES ${Array(rows).fill(tuple).join(", ")}`);
      statements.set(key, stmt);
    }
    return stmt;
  };
  return (table: string, rows: Row[]) => {
    if (rows.length === 0) return 0;
    const columns = Object.keys(rows[0]);
    let changes = 0;
    for (let from = 0; from < rows.length; from += ROWS_PER_STATEMENT) {
      const to = Math.min(from + ROWS_PER_STATEMENT, rows.length);
      const values: unknown[] = [];
      for (let i = from; i < to; i++) for (const c of columns) values.push(sqliteValue(rows[i][c]));
      changes += statement(table, columns, to - from).run(values).changes;
    }
    return changes;
  };
}

function writeSqlite({ database, size, badgeIds, coverBytes = new Map(), onProgress }: BulkTarget) {
  const db = new Database(sqliteFilePath(database.url));
  try {
    db.pragma("journal_mode = WAL");
    // No sync at the one commit: the checkpoint at the end syncs the file (WAL stays consistent).
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = OFF"); // this connection only: the generator's rows are consistent by construction
    db.pragma("cache_size = -2000000"); // up to ~2 GB of pages while the indexes grow
    db.pragma("temp_store = MEMORY");
    db.pragma("threads = 2"); // the index builds sort with a helper thread
    const insert = sqliteInserter(db);
    const counts = { restaurants: 0, groceries: 0 };
    const lap = phaseTimer();
    db.transaction(() => {
      const tables = LOADED.map((t) => `'${t}'`).join(", ");
      const setAside = db
        .prepare(`SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name IN (${tables})`)
        .all() as { type: string; name: string; sql: string }[];
      for (const { type, name } of setAside) db.exec(`DROP ${type === "index" ? "INDEX" : "TRIGGER"} "${name}"`);
      const last = (table: string) => (db.prepare(`SELECT COALESCE(MAX("rowid"), 0) AS n FROM "${table}"`).get() as { n: number }).n;
      const before = { restaurants: last("RestaurantSearchRow"), groceries: last("GrocerySearchRow") };
      const patterns = new SeedOpeningPatterns(db.prepare(`SELECT "id", "timeZone", "periods" FROM "OpeningPattern"`).all() as PatternRow[]);
      for (let from = 1; from <= size.restaurants; from += BATCH) {
        const to = Math.min(from + BATCH - 1, size.restaurants);
        const tables = restaurantRows(from, to, size, badgeIds, patterns);
        for (const [table, rows] of Object.entries(tables)) {
          const added = insert(table, rows);
          if (table === "Restaurant") counts.restaurants += added;
        }
        onProgress?.("restaurants", to - from + 1);
      }
      for (let from = 1; from <= size.groceries; from += BATCH) {
        const to = Math.min(from + BATCH - 1, size.groceries);
        for (const [table, rows] of Object.entries(groceryRows(from, to, size, coverBytes))) {
          const added = insert(table, rows);
          if (table === "Grocery") counts.groceries += added;
        }
        onProgress?.("groceries", to - from + 1);
      }
      insert("OpeningPattern", patterns.added());
      db.exec(UNUSED_PATTERNS);
      lap("load");
      // Counted before the indexes are back: read in the table's order and sorted once, not
      // looked up row by row in an index's order (1m: 34 -> 16 s).
      for (const sql of FACET_COUNT_FILL) db.exec(sql);
      lap("facets");
      // The search rows' own triggers stay: each new search row puts its restaurant in the R*Tree.
      for (const sql of SQLITE_SEARCH_FILL) {
        db.prepare(sql).run(before);
        lap(sql.slice(0, 80));
      }
      for (const { sql } of setAside.filter((x) => x.type === "index")) {
        db.exec(sql);
        lap(sql.slice(0, 80));
      }
      for (const { sql } of setAside.filter((x) => x.type === "trigger")) db.exec(sql);
    })();
    lap("commit");
    db.pragma("optimize=0x10002"); // statistics for the planner on every table (ANALYZE, bounded)
    lap("optimize");
    db.pragma("wal_checkpoint(TRUNCATE)");
    lap("checkpoint");
    return counts;
  } finally {
    db.close();
  }
}

// ---- PostgreSQL -----------------------------------------------------------------------------------

/** COPY's text format: tabs between fields, \N for null, backslash escapes. */
const COPY_ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
function copyField(v: unknown): string {
  if (v === null || v === undefined) return "\\N";
  if (v instanceof Date) return v.toISOString();
  if (typeof v === "boolean") return v ? "t" : "f";
  if (typeof v === "string") return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : v;
  return String(v);
}

/**
 * The id prefixes of the rows a catalogue's load writes with an id of their own (tags, hours,
 * badges and list entries hang off the new rows): none there, nothing of the load can conflict.
 */
const SEED_IDS = {
  restaurants: { Restaurant: "seed-r-", Comment: "seed-c-", Order: "seed-o-", Report: "seed-rep-r" },
  groceries: { Grocery: "seed-g-" },
};

async function noSeedRows(client: pg.Client, prefixes: Record<string, string>) {
  for (const [table, prefix] of Object.entries(prefixes)) {
    const { rowCount } = await client.query(`SELECT 1 FROM "${table}" WHERE "id" LIKE $1 LIMIT 1`, [`${prefix}%`]);
    if (rowCount) return false;
  }
  return true;
}

async function writePostgres({ database, size, badgeIds, coverBytes = new Map(), onProgress }: BulkTarget) {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows: typeRows } = await client.query<{ table_name: string; column_name: string; udt_name: string }>(
      `SELECT table_name, column_name, udt_name FROM information_schema.columns WHERE table_schema = current_schema()`,
    );
    const typeOf = (table: string, column: string) => typeRows.find((r) => r.table_name === table && r.column_name === column)!.udt_name;
    /**
     * The statement that writes `rows`, built now (the node side's work) and sent when called:
     * COPY when no row of the load can be there yet (a first load), else INSERT ... ON CONFLICT
     * DO NOTHING. Resolves to the rows added.
     */
    const prepareInsert = (table: string, rows: Row[], first: boolean): (() => Promise<number>) => {
      if (rows.length === 0) return async () => 0;
      const columns = Object.keys(rows[0]);
      const names = columns.map((c) => `"${c}"`).join(", ");
      if (first) {
        const text = rows.map((row) => columns.map((c) => copyField(row[c])).join("\t")).join("\n") + "\n";
        return async () => {
          const stream = client.query(copyFrom(`COPY "${table}" (${names}) FROM STDIN`));
          await pipeline(Readable.from([text]), stream);
          return stream.rowCount;
        };
      }
      const arrays = columns.map((c) => rows.map((row) => (row[c] === undefined ? null : row[c] instanceof Date ? (row[c] as Date).toISOString() : row[c])));
      const sql = `INSERT INTO "${table}" (${names})
         SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::"${typeOf(table, c)}"[]`).join(", ")}) ON CONFLICT DO NOTHING`;
      return async () => (await client.query(sql, arrays)).rowCount ?? 0;
    };
    const counts = { restaurants: 0, groceries: 0 };
    const searched = ["Restaurant", "RestaurantTag", "OpeningHours", "Grocery", "GroceryTag"];
    const lap = phaseTimer();
    await client.query("BEGIN");
    try {
      // Inside the transaction: other sessions never see the triggers off or the indexes gone.
      for (const table of searched) await client.query(`ALTER TABLE "${table}" DISABLE TRIGGER USER`);
      const { rows: indexes } = await client.query<{ name: string; definition: string }>(
        `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
         WHERE i.schemaname = current_schema() AND i.tablename = ANY ($1)
           AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
        [[...LOADED, "RestaurantSearch", "GrocerySearch"]],
      );
      for (const { name } of indexes) await client.query(`DROP INDEX "${name}"`);
      // Foreign keys too: checked row by row they cost more than the rows; put back at the end,
      // each is checked once over every row (one join), so a bad row still fails the load.
      const { rows: foreignKeys } = await client.query<{ table: string; name: string; definition: string }>(
        `SELECT c.conrelid::regclass::text AS "table", c.conname AS name, pg_get_constraintdef(c.oid) AS definition
         FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
           AND c.conrelid = ANY ($1::regclass[])`,
        [[...LOADED, "RestaurantSearch", "GrocerySearch"].map((t) => `"${t}"`)],
      );
      for (const { table, name } of foreignKeys) await client.query(`ALTER TABLE ${table} DROP CONSTRAINT "${name}"`);
      await client.query("SET LOCAL maintenance_work_mem = '1GB'"); // each index sorted in memory once
      // The next batch is generated and encoded while the database writes the one before (two
      // cores busy).
      let writing: Promise<unknown> = Promise.resolve();
      const load = async (phase: "restaurants" | "groceries", parent: string, total: number, rowsOf: (from: number, to: number) => Tables) => {
        // A seed id of the catalogue's rows (or of its comments, orders, reports) means an earlier run.
        const first = await noSeedRows(client, SEED_IDS[phase]);
        for (let from = 1; from <= total; from += BATCH) {
          const to = Math.min(from + BATCH - 1, total);
          const tables = rowsOf(from, to);
          const inserts = PARENTS_FIRST.filter((t) => t in tables).map((table) => ({ table, send: prepareInsert(table, tables[table], first) }));
          await writing;
          writing = (async () => {
            for (const { table, send } of inserts) {
              const added = await send();
              if (table === parent) counts[phase] += added;
            }
            onProgress?.(phase, to - from + 1);
          })();
          writing.catch(() => {}); // awaited (and thrown) before the next batch or at the end
        }
      };
      const patterns = new SeedOpeningPatterns((await client.query<PatternRow>(`SELECT "id", "timeZone", "periods" FROM "OpeningPattern"`)).rows);
      await load("restaurants", "Restaurant", size.restaurants, (from, to) => restaurantRows(from, to, size, badgeIds, patterns));
      await load("groceries", "Grocery", size.groceries, (from, to) => groceryRows(from, to, size, coverBytes));
      await writing;
      const added = patterns.added();
      if (added.length) {
        await client.query(`INSERT INTO "OpeningPattern" ("id", "timeZone", "periods") SELECT * FROM unnest($1::int[], $2::text[], $3::text[])`,
          [added.map((p) => p.id), added.map((p) => p.timeZone), added.map((p) => p.periods)]);
        await client.query(`SELECT setval(pg_get_serial_sequence('"OpeningPattern"', 'id'), (SELECT MAX("id") FROM "OpeningPattern"))`);
      }
      await client.query(UNUSED_PATTERNS);
      // What the triggers would have done, once for every row without a document (the seed's);
      // then the indexes, each built once.
      lap("load");
      await client.query(`SELECT restaurant_search_refresh(ARRAY(SELECT r."id" FROM "Restaurant" r WHERE NOT EXISTS (SELECT 1 FROM "RestaurantSearch" s WHERE s."restaurantId" = r."id")))`);
      lap("restaurant search");
      for (const sql of GROCERY_SEARCH_FILL) await client.query(sql);
      lap("grocery search");
      for (const sql of FACET_COUNT_FILL) await client.query(sql);
      lap("facets");
      for (const { definition } of indexes) {
        await client.query(definition);
        lap(definition.slice(0, 80));
      }
      for (const { table, name, definition } of foreignKeys) await client.query(`ALTER TABLE ${table} ADD CONSTRAINT "${name}" ${definition}`);
      lap("foreign keys");
      for (const table of searched) await client.query(`ALTER TABLE "${table}" ENABLE TRIGGER USER`);
      await client.query("COMMIT");
      lap("commit");
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    }
    await client.query("ANALYZE");
    lap("analyze");
    return counts;
  } finally {
    await client.end();
  }
}
