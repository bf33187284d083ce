// Which implementation a database URL gets: the one place the data commands choose between
// SQLite and PostgreSQL (DATA_DIALECTS); everything else holds a DataConnection or a DataDialect.
import { dialectOf, type Dialect } from "../../db/dialect.ts";
import { DatabaseUnusable, type DataConnection, type DataDialect, type OpenOptions } from "./data-connection.ts";
import { postgresData } from "./postgres/dialect.ts";
import { sqliteData } from "./sqlite/dialect.ts";

const DATA_DIALECTS: Record<Dialect, DataDialect> = { sqlite: sqliteData, postgres: postgresData };

/** The implementation for `url`'s database; a URL naming neither is refused. */
export function dataDialectOf(url: string): DataDialect {
  const dialect = dialectOf(url);
  if (!dialect)
    throw new DatabaseUnusable(
      `"${url}" is not a database URL: it must start with file: (SQLite) or postgresql:// (PostgreSQL)`,
    );
  return DATA_DIALECTS[dialect];
}

/** What restore says of a backup of `dialect` when the target is another database. */
export const restoreElsewhere = (dialect: Dialect, dir: string) => DATA_DIALECTS[dialect].restoreElsewhere(dir);

export const openConnection = (url: string, options: OpenOptions = {}): Promise<DataConnection> =>
  dataDialectOf(url).open(url, options);

/** The URL without its password, for messages (one naming no database is shown as it is). */
export function redactUrl(url: string): string {
  const dialect = dialectOf(url);
  return dialect ? DATA_DIALECTS[dialect].redact(url) : url;
}
