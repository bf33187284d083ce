// Applies the pending migrations to a PostgreSQL database, each in its own transaction
// (migrations.ts); an advisory lock lets several instances start at once.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { MigrationError, MISSING_TITLE_ORDERS, missingTitleOrders, pending, type Migration } from "../migrations.ts";

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`;

/** The advisory lock migrations hold: one instance migrates at a time, the others wait, then find nothing to do. */
const MIGRATION_LOCK = 727274;

/** Returns the names of the migrations it applied. */
export async function migratePostgres(url: string, migrations: Migration[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    await client.query(MIGRATIONS_TABLE);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const todo = pending(migrations, new Map(rows.map((r) => [r.migration_name, r.checksum])));
    for (const m of todo) {
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new MigrationError(`migration ${m.name} failed: ${(error as Error).message}`);
      }
    }
    await fillTitleOrders(client);
    return todo.map((m) => m.name);
  } finally {
    await client.end();
  }
}

/** Rows a statement that fills title order keys writes. */
const FILL_BATCH = 10_000;

/** The title order keys rows lack (search/words.ts), written in batches, under the migrations' lock. */
async function fillTitleOrders(client: pg.Client): Promise<void> {
  const keys = missingTitleOrders((await client.query<{ id: string; title: string }>(MISSING_TITLE_ORDERS)).rows);
  for (let at = 0; at < keys.length; at += FILL_BATCH) {
    const batch = keys.slice(at, at + FILL_BATCH);
    await client.query(
      `UPDATE "Restaurant" r SET "titleOrder" = k."key" FROM unnest($1::text[], $2::text[]) AS k("key", "id") WHERE r."id" = k."id"`,
      [batch.map(([key]) => key), batch.map(([, id]) => id)],
    );
  }
}
