// The big seed sizes (200k, 1m) written in bulk, in one transaction, with the database's plain
// driver: the generator of dataset.ts gives the same rows as the chunked Prisma path, but a
// million restaurants through Prisma's createMany would take most of an hour. Covers are shared
// (16 files per catalogue, not three million). Rows that exist are left as they are
// (INSERT OR IGNORE / ON CONFLICT DO NOTHING), so a second run adds nothing. SQLite takes 256
// rows a statement; PostgreSQL takes COPY, the cheapest way in. The rows are generated and encoded
// in a worker thread (bulk-row-worker.ts), batches ahead, so the machine's second core generates
// while the database writes.
//
// Inside the one transaction the loaded tables' secondary indexes and search triggers (and on
// PostgreSQL their foreign keys) are taken away and put back at the end, from their own SQL as
// the database holds it (sqlite_master, pg_indexes, pg_constraint): an index built once from
// sorted rows is several times cheaper than one kept up to date row by row, and a foreign key
// put back is checked once over every row (a bad row still fails the load). The search indexes
// stay derived: they are filled at the end by the same statements the migration backfills them
// with (SQLite), or by its refresh functions (PostgreSQL), which is what the triggers would have
// done row by row; the stored counts are counted again over every row. Nobody sees the tables
// without them: the transaction commits with everything back in place.
import Database from "better-sqlite3";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { debuglog } from "node:util";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { Config } from "../../config.ts";
import { sqliteFilePath } from "../../db/sqlite/file.ts";
import { BulkRowWorker, type Encoded, type RowFormat } from "./bulk-row-source.ts";
import type { CopyRows, CoverBytes, FlatRows } from "./bulk-rows.ts";
import type { Size } from "../dataset.ts";
import { UNUSED_PATTERNS, type PatternRow } from "../opening-patterns.ts";

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
export type BulkProgress = (phase: "restaurants" | "groceries", done: number) => void;

const BATCH = 5000;

/** The tables a bulk seed writes: their secondary indexes and triggers are set aside meanwhile. */
const LOADED = [
  "Restaurant",
  "RestaurantTag",
  "OpeningHours",
  "RestaurantBadge",
  "Comment",
  "Order",
  "Report",
  "Grocery",
  "GroceryTag",
  "ShoppingListEntry",
];

/**
 * The SQLite search rows of restaurants and groceries added after `after` (the last search row id
 * before the load): the backfill of migration 20261125165728_search, for the new rows only.
 */
const SQLITE_SEARCH_FILL = [
  `INSERT INTO "RestaurantSearchRow" ("restaurantId", "latitude", "longitude", "openingPattern", "citySearch") SELECT "id", "latitude", "longitude", "openingPattern", "citySearch" FROM "Restaurant" WHERE "id" NOT IN (SELECT "restaurantId" FROM "RestaurantSearchRow")`,
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

/** A value's label, from its spellings: the most common, ties to the smallest by character code. */
// `kind` and `key` name the outer row's columns by table: unqualified, they would name the spelling's own.
const label = (catalogue: "Restaurant" | "Grocery", kind: string, key: string) =>
  `(SELECT s."value" FROM "${catalogue}FacetSpelling" s WHERE s."kind" = ${kind} AND s."valueKey" = ${key} ORDER BY s."n" DESC, s."value" LIMIT 1)`;

/**
 * The counts kept per list value and city, and each value's spellings, counted again over every
 * row: the backfills of migrations 20261125200000_search_scale and 20261128210000_facet_labels
 * (the load sets their triggers aside with the others). The spellings first, so each count takes
 * its label from them. The same SQL on both databases.
 */
const FACET_COUNT_FILL = [
  `DELETE FROM "RestaurantFacetSpelling"`,
  `DELETE FROM "GroceryFacetSpelling"`,
  `DELETE FROM "RestaurantFacetCount"`,
  `DELETE FROM "GroceryFacetCount"`,
  `INSERT INTO "RestaurantFacetSpelling" ("kind", "valueKey", "value", "n")
     SELECT 'CITY', "citySearch", COALESCE("city", "citySearch"), COUNT(*) FROM "Restaurant" WHERE "citySearch" IS NOT NULL
     GROUP BY "citySearch", COALESCE("city", "citySearch")`,
  `INSERT INTO "RestaurantFacetSpelling" ("kind", "valueKey", "value", "n")
     SELECT CAST("kind" AS TEXT), "valueKey", "value", COUNT(*) FROM "RestaurantTag"
     WHERE CAST("kind" AS TEXT) IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') GROUP BY "kind", "valueKey", "value"`,
  `INSERT INTO "GroceryFacetSpelling" ("kind", "valueKey", "value", "n")
     SELECT CAST("kind" AS TEXT), "valueKey", "value", COUNT(*) FROM "GroceryTag" WHERE CAST("kind" AS TEXT) = 'CATEGORY'
     GROUP BY "kind", "valueKey", "value"`,
  `INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n") SELECT 'ALL', '', '', COUNT(*) FROM "Restaurant" HAVING COUNT(*) > 0`,
  `INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
     SELECT 'CITY', "citySearch", ${label("Restaurant", "'CITY'", '"citySearch"')}, COUNT(*) FROM "Restaurant"
     WHERE "citySearch" IS NOT NULL GROUP BY "citySearch"`,
  `INSERT INTO "RestaurantFacetCount" ("kind", "valueKey", "value", "n")
     SELECT CAST("kind" AS TEXT), "valueKey", ${label("Restaurant", 'CAST("RestaurantTag"."kind" AS TEXT)', '"RestaurantTag"."valueKey"')}, COUNT(*) FROM "RestaurantTag"
     WHERE CAST("kind" AS TEXT) IN ('CUISINE', 'CATEGORY', 'PRICE_RANGE') GROUP BY "kind", "valueKey"`,
  `INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n") SELECT 'ALL', '', '', COUNT(*) FROM "Grocery" HAVING COUNT(*) > 0`,
  `INSERT INTO "GroceryFacetCount" ("kind", "valueKey", "value", "n")
     SELECT CAST("kind" AS TEXT), "valueKey", ${label("Grocery", 'CAST("GroceryTag"."kind" AS TEXT)', '"GroceryTag"."valueKey"')}, COUNT(*) FROM "GroceryTag"
     WHERE CAST("kind" AS TEXT) = 'CATEGORY' GROUP BY "kind", "valueKey"`,
];

/** Where a bulk load writes, how much, and whom it tells of its progress. */
export type BulkTarget = {
  database: Config["database"];
  size: Size;
  badgeIds: string[];
  coverBytes?: CoverBytes;
  onProgress?: BulkProgress;
};

export async function writeInBulk(target: BulkTarget): Promise<{ restaurants: number; groceries: number }> {
  return target.database.dialect === "sqlite" ? writeSqlite(target) : writePostgres(target);
}

/**
 * Every batch of restaurants, then of groceries, from the row worker through `write` (which
 * resolves to the rows it added), in order. Returns the restaurants and groceries added and the
 * opening patterns the batches named. The worker is closed at the end.
 */
async function loadBatches<F extends RowFormat>(
  rowWorker: BulkRowWorker<F>,
  size: Size,
  write: (rows: Encoded[F], catalogue: "restaurants" | "groceries") => Promise<number>,
  onProgress?: BulkProgress,
) {
  const added = { restaurants: 0, groceries: 0 };
  const named: PatternRow[] = [];
  for (const [catalogue, total, parent] of [
    ["restaurants", size.restaurants, "Restaurant"],
    ["groceries", size.groceries, "Grocery"],
  ] as const) {
    for await (const batch of rowWorker.batches(catalogue, total, BATCH)) {
      for (const rows of batch.tables) {
        const n = await write(rows, catalogue);
        if (rows.table === parent) added[catalogue] += n;
      }
      named.push(...batch.patterns);
      onProgress?.(catalogue, batch.items);
    }
  }
  await rowWorker.close();
  return { added, named };
}

// ---- SQLite ---------------------------------------------------------------------------------------

/**
 * Alone with the file (no service, no other connection), the load writes it without the WAL: a
 * rollback journal holds only the pages that existed before the load (a fresh database's few), so
 * each new page is written once, not to the WAL and again at the checkpoint (1m: 17 GB -> 5.7 GB
 * written, commit 29 -> 9 s, and no WAL as big as the database beside it on the disk). Leaving WAL
 * needs the file to itself: with another connection open SQLite answers "busy" at once, and the
 * load keeps the WAL.
 */
function withoutWal(db: Database.Database): boolean {
  try {
    return db.pragma("journal_mode = DELETE", { simple: true }) === "delete";
  } catch (error) {
    if ((error as { code?: string }).code === "SQLITE_BUSY") {
      db.pragma("journal_mode = WAL");
      return false;
    }
    throw error;
  }
}

/** Rows per INSERT statement: one call into SQLite for many rows (its limit is 32,766 values). */
const ROWS_PER_STATEMENT = 256;

/**
 * Inserts a table's flattened rows with INSERT OR IGNORE, ROWS_PER_STATEMENT rows a statement:
 * the statements are prepared once per table and row count. Returns the rows added.
 */
function sqliteInserter(db: Database.Database) {
  const statements = new Map<string, Database.Statement>();
  const statement = (table: string, columns: string[], rows: number) => {
    const key = `${table}:${rows}:${columns.join(",")}`;
    let stmt = statements.get(key);
    if (!stmt) {
      const tuple = `(${columns.map(() => "?").join(", ")})`;
      stmt = db.prepare(
        `INSERT OR IGNORE INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES ${Array(rows).fill(tuple).join(", ")}`,
      );
      statements.set(key, stmt);
    }
    return stmt;
  };
  return ({ table, columns, values }: FlatRows) => {
    const rows = values.length / columns.length;
    let changes = 0;
    for (let from = 0; from < rows; from += ROWS_PER_STATEMENT) {
      const to = Math.min(from + ROWS_PER_STATEMENT, rows);
      changes += statement(table, columns, to - from).run(
        values.slice(from * columns.length, to * columns.length),
      ).changes;
    }
    return changes;
  };
}

async function writeSqlite({ database, size, badgeIds, coverBytes = new Map(), onProgress }: BulkTarget) {
  const db = new Database(sqliteFilePath(database.url));
  let rowWorker: BulkRowWorker<"sqlite"> | undefined;
  let alone = false;
  try {
    alone = withoutWal(db);
    debug("journal: %s", alone ? "rollback (alone with the file)" : "WAL (another connection has the file open)");
    // WAL: no sync at the one commit, the checkpoint at the end syncs the file. Rollback journal:
    // the few syncs at cache spills and the commit.
    db.pragma(alone ? "synchronous = FULL" : "synchronous = NORMAL");
    db.pragma("foreign_keys = OFF"); // this connection only: the generator's rows are consistent by construction
    db.pragma("cache_size = -2000000"); // up to ~2 GB of pages while the indexes grow
    db.pragma("temp_store = MEMORY");
    db.pragma("threads = 2"); // the index builds sort with a helper thread
    const insert = sqliteInserter(db);
    const counts = { restaurants: 0, groceries: 0 };
    const lap = phaseTimer();
    // One transaction, begun and committed by hand: the rows arrive from the worker between awaits.
    db.exec("BEGIN");
    try {
      const tables = LOADED.map((t) => `'${t}'`).join(", ");
      const setAside = db
        .prepare(
          `SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name IN (${tables})`,
        )
        .all() as { type: string; name: string; sql: string }[];
      for (const { type, name } of setAside) db.exec(`DROP ${type === "index" ? "INDEX" : "TRIGGER"} "${name}"`);
      const last = (table: string) =>
        (db.prepare(`SELECT COALESCE(MAX("rowid"), 0) AS n FROM "${table}"`).get() as { n: number }).n;
      const before = { restaurants: last("RestaurantSearchRow"), groceries: last("GrocerySearchRow") };
      const patterns = db.prepare(`SELECT "id", "timeZone", "periods" FROM "OpeningPattern"`).all() as PatternRow[];
      rowWorker = new BulkRowWorker({ size, badgeIds, coverBytes, patterns, format: "sqlite" });
      const { added, named } = await loadBatches(rowWorker, size, async (rows) => insert(rows), onProgress);
      Object.assign(counts, added);
      if (named.length)
        insert({
          table: "OpeningPattern",
          columns: ["id", "timeZone", "periods"],
          values: named.flatMap((p) => [p.id, p.timeZone, p.periods]),
        });
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
      db.exec("COMMIT");
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
    lap("commit");
    db.pragma("optimize=0x10002"); // statistics for the planner on every table (ANALYZE, bounded)
    lap("optimize");
    if (!alone) db.pragma("wal_checkpoint(TRUNCATE)");
    lap("checkpoint");
    return counts;
  } finally {
    await rowWorker?.close();
    if (alone) db.pragma("journal_mode = WAL"); // what the service and the migrations expect
    db.close();
  }
}

// ---- PostgreSQL -----------------------------------------------------------------------------------

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

/**
 * Writes a table's rows with COPY, the cheapest way in. A later run (seed rows there already)
 * copies into a staging table first and adds the rows not there (ON CONFLICT DO NOTHING).
 * Resolves to the rows added.
 */
async function copyRows(client: pg.Client, { table, columns, text }: CopyRows, first: boolean): Promise<number> {
  const names = columns.map((c) => `"${c}"`).join(", ");
  const copy = async (into: string) => {
    const stream = client.query(copyFrom(`COPY "${into}" (${names}) FROM STDIN`));
    await pipeline(Readable.from([text]), stream);
    return stream.rowCount;
  };
  if (first) return copy(table);
  await client.query(`CREATE TEMP TABLE "SeedStaging" ON COMMIT DROP AS SELECT ${names} FROM "${table}" WITH NO DATA`);
  await copy("SeedStaging");
  const { rowCount } = await client.query(
    `INSERT INTO "${table}" (${names}) SELECT ${names} FROM "SeedStaging" ON CONFLICT DO NOTHING`,
  );
  await client.query(`DROP TABLE "SeedStaging"`);
  return rowCount ?? 0;
}

async function writePostgres({ database, size, badgeIds, coverBytes = new Map(), onProgress }: BulkTarget) {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  let rowWorker: BulkRowWorker<"copy"> | undefined;
  try {
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
      const existing = (await client.query<PatternRow>(`SELECT "id", "timeZone", "periods" FROM "OpeningPattern"`))
        .rows;
      rowWorker = new BulkRowWorker({ size, badgeIds, coverBytes, patterns: existing, format: "copy" });
      // A seed id of the catalogue's rows (or of its comments, orders, reports) means an earlier run.
      const first = {
        restaurants: await noSeedRows(client, SEED_IDS.restaurants),
        groceries: await noSeedRows(client, SEED_IDS.groceries),
      };
      const { added, named } = await loadBatches(
        rowWorker,
        size,
        (rows, catalogue) => copyRows(client, rows, first[catalogue]),
        onProgress,
      );
      Object.assign(counts, added);
      if (named.length) {
        await client.query(
          `INSERT INTO "OpeningPattern" ("id", "timeZone", "periods") SELECT * FROM unnest($1::int[], $2::text[], $3::text[])`,
          [named.map((p) => p.id), named.map((p) => p.timeZone), named.map((p) => p.periods)],
        );
        await client.query(
          `SELECT setval(pg_get_serial_sequence('"OpeningPattern"', 'id'), (SELECT MAX("id") FROM "OpeningPattern"))`,
        );
      }
      await client.query(UNUSED_PATTERNS);
      // What the triggers would have done, once for every row without a document (the seed's);
      // then the indexes, each built once.
      lap("load");
      await client.query(
        `SELECT restaurant_search_refresh(ARRAY(SELECT r."id" FROM "Restaurant" r WHERE NOT EXISTS (SELECT 1 FROM "RestaurantSearch" s WHERE s."restaurantId" = r."id")))`,
      );
      lap("restaurant search");
      for (const sql of GROCERY_SEARCH_FILL) await client.query(sql);
      lap("grocery search");
      for (const sql of FACET_COUNT_FILL) await client.query(sql);
      lap("facets");
      for (const { definition } of indexes) {
        await client.query(definition);
        lap(definition.slice(0, 80));
      }
      for (const { table, name, definition } of foreignKeys)
        await client.query(`ALTER TABLE ${table} ADD CONSTRAINT "${name}" ${definition}`);
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
    await rowWorker?.close();
    await client.end();
  }
}
