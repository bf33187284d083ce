// Rows as the drivers hand them back (column names, then each row's values in that order), and
// what reads them: the raw reads and the searches skip Prisma's query compiler and row mapping.
import type { Prisma, PrismaClient, QueryListener } from "./prisma.ts";

/** A SELECT's result: column names, and each row's values in that order. */
export type RawRows = { names: string[]; rows: unknown[][] };

/**
 * How a search statement may be planned. `planOnce`: no value it is sent with changes its best
 * plan (a list value and a city walking an order's index), so the database may plan it once per
 * connection for every value (PostgreSQL; SQLite prepares every statement once anyway).
 */
export type SearchReadOptions = { planOnce?: boolean };

/** A driver's reader of one statement (text with the driver's placeholders, and its values); undefined until Prisma opened the connection. */
export type DriverReader = (
  sql: string,
  args: readonly unknown[],
  options?: SearchReadOptions,
) => Promise<RawRows> | undefined;

/** What reads rows: every bounded read, and a search's statements (in the searches' fair share). */
export type SqlReader = {
  read(sql: Prisma.Sql): Promise<RawRows>;
  readSearch(sql: Prisma.Sql, options?: SearchReadOptions): Promise<RawRows>;
};

/** A driver's reader of Prisma's SQL (`text`: its placeholders' form), timed for `onQuery` when given. */
export function timedReader(
  read: DriverReader,
  text: (sql: Prisma.Sql) => string,
  onQuery: QueryListener | undefined,
): (sql: Prisma.Sql, options?: SearchReadOptions) => Promise<RawRows> | undefined {
  return (sql, options) => {
    const statement = text(sql);
    if (!onQuery) return read(statement, sql.values, options);
    const startedAt = new Date();
    const started = performance.now();
    return read(statement, sql.values, options)?.finally(() =>
      onQuery({ query: statement, durationMs: performance.now() - started, startedAt }),
    );
  };
}

/** A SELECT through Prisma's `$queryRaw`, as rows like the drivers' readers answer them. */
export async function rowsThroughPrisma(prisma: Pick<PrismaClient, "$queryRaw">, sql: Prisma.Sql): Promise<RawRows> {
  const objects = await prisma.$queryRaw<Record<string, unknown>[]>(sql);
  const names = objects.length > 0 ? Object.keys(objects[0]) : [];
  return { names, rows: objects.map((object) => names.map((name) => object[name])) };
}
