// A PostgreSQL database for the data commands, through one pg client: dates, 64-bit integers and
// JSON kept as the server's text.
import pg from "pg";
import { DatabaseUnusable, quoteName, type DataConnection, type TableSpec } from "../data-connection.ts";
import { storable, type StoredForms } from "../values.ts";
import { describeTable, hasTable, objects } from "./catalogue.ts";

/** The canonical forms are PostgreSQL's own (a zone-less timestamp keeps the UTC wall time). */
export const postgresForms: StoredForms = {
  bool: (value) => value,
  datetime: (iso) => iso,
  bigint: (decimal) => decimal,
};

/** Value parsers for the data commands: dates, 64-bit integers and JSON stay the database's text. */
const RAW_TEXT_TYPES = new Set([
  1114, // timestamp (Prisma's DateTime): pg would read it in the process's time zone
  1184, // timestamptz
  1082, // date
  114, // json
  3802, // jsonb
]);
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    RAW_TEXT_TYPES.has(oid)
      ? (text: string) => text
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

/** The URL without its password, for messages. */
export function redactPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}

export async function openPostgres(url: string): Promise<DataConnection> {
  const client = new pg.Client({ connectionString: url, types });
  client.on("error", () => {}); // a dropped connection fails the next query, which says why
  const label = redactPostgresUrl(url);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw new DatabaseUnusable(`cannot connect to ${label}: ${describePgError(error)}`);
  }
  const query = (sql: string, params: readonly unknown[] = []) =>
    client.query({ text: sql, values: params as unknown[], rowMode: "array" });
  const rows = async (sql: string, params?: readonly unknown[]) => (await query(sql, params)).rows as unknown[][];
  let inSnapshot = false;
  return {
    dialect: "postgres",
    label,
    rows,
    run: async (sql, params) => void (await query(sql, params)),
    transaction: async (work) => {
      await client.query("BEGIN");
      try {
        const result = await work();
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    },
    scan: async function* (sql, batchRows) {
      // A cursor lives in a transaction: the snapshot's, or one of its own.
      const own = !inSnapshot;
      if (own) await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      try {
        await client.query(`DECLARE gw_scan NO SCROLL CURSOR FOR ${sql}`);
        for (;;) {
          const { rows } = await query(`FETCH FORWARD ${batchRows} FROM gw_scan`);
          if (!rows.length) break;
          yield rows as unknown[][];
        }
        await client.query("CLOSE gw_scan");
      } finally {
        if (own) await client.query("COMMIT").catch(() => {});
      }
    },
    beginSnapshot: async () => {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      inSnapshot = true;
    },
    endSnapshot: async () => {
      inSnapshot = false;
      await client.query("COMMIT");
    },
    close: () => client.end(),
    placeholder: (index) => `$${index + 1}`,
    storable: (type, value) => storable(postgresForms, type, value),
    describeTable: (name) => describeTable(rows, name),
    hasTable: (name) => hasTable(rows, name),
    objects: () => objects(rows),
    foreignKeyViolations: async () => undefined, // enforced on every write
    // One statement per batch whatever its size: each column sent as one array, spread back into rows by unnest().
    inserter: async (spec: TableSpec) => {
      const declared = new Map(
        (
          await rows(
            `SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped`,
            [quoteName(spec.name)],
          )
        ).map(([name, type]) => [String(name), String(type)]),
      );
      const columns = spec.columns.map((c) => quoteName(c.name)).join(", ");
      const arrays = spec.columns.map((c, i) => `$${i + 1}::${declared.get(c.name)}[]`).join(", ");
      const sql = `INSERT INTO ${quoteName(spec.name)} (${columns}) SELECT * FROM unnest(${arrays})`;
      return async (batch) => {
        await query(
          sql,
          spec.columns.map((c, i) => batch.map((row) => storable(postgresForms, c.type, row[i]!))),
        );
      };
    },
    beginBulkLoad: async (specs) => specs, // foreign keys are checked on every statement: parents first
    // A bulk load leaves no planner statistics: without them a verification batch may read a whole table.
    endBulkLoad: async () => void (await query("ANALYZE")),
  };
}

/** One line: pg's message, or the network error's code (ECONNREFUSED on every address). */
export function describePgError(error: unknown): string {
  const e = error as { message?: string; code?: string; errors?: unknown[] };
  if (e?.message) return e.message.split("\n")[0]!;
  if (Array.isArray(e?.errors) && e.errors.length) return describePgError(e.errors[0]);
  return String(e?.code ?? error);
}
