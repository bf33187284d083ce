// Applies the pending migrations to an SQLite file, each in its own transaction (migrations.ts).
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { MISSING_TITLE_ORDERS, missingTitleOrders, pending, type Migration } from "../migrations.ts";
import { prepareSqliteFile } from "./file.ts";

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
  "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
  "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`;

/** Returns the names of the migrations it applied. */
export async function migrateSqlite(url: string, migrations: Migration[]): Promise<string[]> {
  const db = new Database(prepareSqliteFile(url));
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    db.exec(MIGRATIONS_TABLE);
    const rows = db
      .prepare(
        `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      )
      .all() as { migration_name: string; checksum: string }[];
    const todo = pending(migrations, new Map(rows.map((r) => [r.migration_name, r.checksum])));
    for (const m of todo) {
      db.transaction(() => {
        db.exec(m.sql);
        db.prepare(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES (?, ?, ?, ?, 1)`,
        ).run(randomUUID(), m.checksum, new Date().toISOString(), m.name);
      }).immediate();
    }
    fillTitleOrders(db);
    return todo.map((m) => m.name);
  } finally {
    db.close();
  }
}

/** The title order keys rows lack (search/words.ts), written in one transaction. */
function fillTitleOrders(db: Database.Database): void {
  const keys = missingTitleOrders(db.prepare(MISSING_TITLE_ORDERS).all() as { id: string; title: string }[]);
  const write = db.prepare(`UPDATE "Restaurant" SET "titleOrder" = ? WHERE "id" = ?`);
  db.transaction(() => keys.forEach(([key, id]) => write.run(key, id))).immediate();
}
