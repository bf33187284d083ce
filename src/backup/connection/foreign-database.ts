// For the commands that migrate the database first: refuses one that holds another program's
// objects and none of the gateway's migrations, which would get the gateway's tables beside them.
import { DatabaseUnusable } from "./data-connection.ts";
import { dataDialectOf } from "./open.ts";
import { listObjects, ownership } from "./ownership.ts";

/** Looked at read-only; a database that does not exist yet (a new SQLite file) is a new database. */
export async function refuseForeignDatabase(url: string): Promise<void> {
  const dialect = dataDialectOf(url);
  if (dialect.isNew(url)) return;
  const conn = await dialect.open(url, { readonly: true });
  try {
    const owned = await ownership(conn);
    if (!owned.isGateway && owned.foreign.length)
      throw new DatabaseUnusable(
        `${conn.label} is not the gateway's database: it holds ${listObjects(owned.foreign)} and none of the gateway's migrations; point DATABASE_URL at the gateway's database, or at an empty one`,
      );
  } finally {
    await conn.close();
  }
}
