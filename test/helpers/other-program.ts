// Another program's objects in a database, made and read with the drivers alone (none of the
// gateway's code): an `invoices` table of 1,000 rows, a view over it and, on PostgreSQL, a
// function. Tests of the data commands check that these come through exactly as they were.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import pg from "pg";
import { sqliteFilePath } from "../../src/db/sqlite/file.ts";
import type { TestDatabase } from "./database.ts";

type Target = Pick<TestDatabase, "url" | "provider">;

async function withPg<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Adds the other program's objects (a SQLite file is created in its default rollback-journal mode). */
export async function addOtherProgram(database: Target): Promise<void> {
  if (database.provider === "sqlite") {
    const db = new Database(sqliteFilePath(database.url));
    try {
      db.exec(`CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, total REAL NOT NULL);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
        INSERT INTO invoices SELECT i, 'customer ' || (i % 37), i * 1.25 FROM n;
        CREATE VIEW invoice_totals AS SELECT customer, sum(total) AS total FROM invoices GROUP BY customer;`);
    } finally {
      db.close();
    }
    return;
  }
  await withPg(database.url, (client) =>
    client.query(`CREATE TABLE invoices (id integer PRIMARY KEY, customer text NOT NULL, total numeric(10, 2) NOT NULL);
      INSERT INTO invoices SELECT i, 'customer ' || (i % 37), i * 1.25 FROM generate_series(1, 1000) i;
      CREATE VIEW invoice_totals AS SELECT customer, sum(total) AS total FROM invoices GROUP BY customer;
      CREATE FUNCTION invoice_tax(amount numeric) RETURNS numeric LANGUAGE sql IMMUTABLE AS 'SELECT round(amount * 0.2, 2)';`),
  );
}

const digest = (rows: unknown) => createHash("sha256").update(JSON.stringify(rows)).digest("hex");

/** The other program's objects and data as they are now (undefined fields: gone). */
export async function otherProgramState(database: Target) {
  if (database.provider === "sqlite") {
    const db = new Database(sqliteFilePath(database.url), { readonly: true, fileMustExist: true });
    try {
      const objects = db
        .prepare(`SELECT type || ' ' || name FROM sqlite_master WHERE name LIKE 'invoice%' ORDER BY 1`)
        .pluck()
        .all();
      const has = objects.length === 2;
      return {
        objects,
        invoices: has ? digest(db.prepare("SELECT * FROM invoices ORDER BY id").raw().all()) : undefined,
        totals: has ? digest(db.prepare("SELECT * FROM invoice_totals ORDER BY customer").raw().all()) : undefined,
      };
    } finally {
      db.close();
    }
  }
  return withPg(database.url, async (client) => {
    const objects = (
      await client.query(
        `SELECT kind || ' ' || name AS o FROM (
           SELECT CASE relkind WHEN 'v' THEN 'view' ELSE 'table' END AS kind, relname AS name FROM pg_class WHERE relname LIKE 'invoice%' AND relkind IN ('r', 'v')
           UNION ALL SELECT 'function', proname FROM pg_proc WHERE proname LIKE 'invoice%') o ORDER BY 1`,
      )
    ).rows.map((r) => r.o as string);
    const has = objects.length === 3;
    const rows = (sql: string) => client.query({ text: sql, rowMode: "array" }).then((r) => digest(r.rows));
    return {
      objects,
      invoices: has ? await rows("SELECT * FROM invoices ORDER BY id") : undefined,
      totals: has ? await rows("SELECT * FROM invoice_totals ORDER BY customer") : undefined,
      tax: has ? (await client.query("SELECT invoice_tax(100)::text AS t")).rows[0].t : undefined,
    };
  });
}

/** Every object of the database, with PostgreSQL's and SQLite's own left out: "kind name" lines. */
export async function everyObject(database: Target): Promise<string[]> {
  if (database.provider === "sqlite") {
    if (!existsSync(sqliteFilePath(database.url))) return [];
    const db = new Database(sqliteFilePath(database.url), { readonly: true, fileMustExist: true });
    try {
      return db.prepare("SELECT type || ' ' || name FROM sqlite_master ORDER BY 1").pluck().all() as string[];
    } finally {
      db.close();
    }
  }
  return withPg(database.url, async (client) =>
    (
      await client.query(
        `SELECT c.relkind::text || ' ' || n.nspname || '.' || c.relname AS o FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'
         UNION ALL SELECT 'function ' || n.nspname || '.' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'
         UNION ALL SELECT 'extension ' || extname FROM pg_extension WHERE extname <> 'plpgsql' ORDER BY 1`,
      )
    ).rows.map((r) => r.o as string),
  );
}
