// Rows whose foreign key names no row. SQLite checks foreign keys only on connections that turn
// them on, so a restored or copied SQLite file is checked as a whole; PostgreSQL enforces its
// constraints on every write (undefined: nothing to count).
import type { Connection } from "./open.ts";

export async function foreignKeyViolations(conn: Connection): Promise<number | undefined> {
  if (conn.provider !== "sqlite") return undefined;
  return (await conn.rows("PRAGMA foreign_key_check")).length;
}
