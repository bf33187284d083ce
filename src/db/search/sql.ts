// SQL fragments both databases read alike, and the pieces every search statement is built from:
// page windows, page statements, counts. Every statement of a search reads in the searches' fair
// share (db.readSearch: on SQLite a reader thread), but for the shallow pages readPage names.
import { Prisma } from "../prisma.ts";
import type { RawRows, SqlReader } from "../raw-rows.ts";
import { rowsOf } from "../reads/columns.ts";
import type { Catalogue, PageShape, Window } from "../search-plan.ts";

export const table = (catalogue: Catalogue) => Prisma.raw(`"${catalogue}"`);
/** The column of a catalogue's tag and search rows that names their row. */
export const OWNER_KEY: Record<Catalogue, string> = { Restaurant: `"restaurantId"`, Grocery: `"groceryId"` };

export const whereAll = (conditions: Prisma.Sql[]) =>
  conditions.length === 0 ? Prisma.empty : Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`;

/** A number bound as a double on both databases (a JavaScript number may bind as an integer). */
export const number = (value: number) => Prisma.sql`CAST(${value} AS DOUBLE PRECISION)`;

/** Rows of one search statement, each value as Prisma would return it for its column kind. */
export const query = async <T>(db: SqlReader, columns: Parameters<typeof rowsOf>[0], sql: Prisma.Sql) =>
  rowsOf<T>(columns, await db.readSearch(sql));

/** How many rows `rows` (a SELECT) gives. */
export const countOf = async (db: SqlReader, rows: Prisma.Sql) =>
  (await query<{ n: number }>(db, { n: "int" }, Prisma.sql`SELECT COUNT(*) AS "n" FROM (${rows}) "r"`))[0]?.n ?? 0;

/**
 * LIMIT (one more row than the page: it tells whether a next page exists) as a literal, and OFFSET
 * left out on a first page. PostgreSQL plans a statement without parameters once per connection;
 * with `LIMIT $1` it planned again at every execution (its generic plan guesses a limit of 10% of
 * the rows). Page sizes are few, so the literal adds few statement texts; offsets are many, so a
 * later page keeps its as a parameter.
 */
export function windowSql({ skip, take }: Window): Prisma.Sql {
  if (!Number.isSafeInteger(take) || take < 0) throw new Error(`page size ${take} is not a whole number`); // pageWindow checked it
  const limit = Prisma.raw(`LIMIT ${take + 1}`);
  return skip === 0 ? limit : Prisma.sql`${limit} OFFSET ${skip}`;
}

/** A page statement: the rows `from` gives (FROM ... WHERE ...), in `order`, windowed. */
export const pageSql = (
  shape: PageShape,
  from: Prisma.Sql,
  order: Prisma.Sql,
  window: Window,
  extra: Prisma.Sql = Prisma.empty,
) => Prisma.sql`SELECT ${shape.select}${extra} ${from} ORDER BY ${order} ${windowSql(window)}`;

/**
 * The page cut from ranked keys before any row is read, for words alone (each key is a match):
 * `keys` in `order`, windowed, and the window left to the page statement over their rows (its
 * first rows: the offset was taken). Joined before the cut, every ranked match's row was read
 * (2,000 at the rank window) for the 21 a page shows.
 */
export const pageOfKeys = (keys: Prisma.Sql, order: Prisma.Sql, window: Window): [Prisma.Sql, Window] => [
  Prisma.sql`SELECT * FROM (${keys}) "keys" ORDER BY ${order} ${windowSql(window)}`,
  { skip: 0, take: window.take },
];

/** The shape of a statement that only counts its rows. */
export const COUNT_ONLY: PageShape = { select: Prisma.raw("1"), joins: Prisma.empty };

/** The window of what follows once `before` rows came first (those of the page among them were read already). */
export function restWindow({ skip, take }: Window, before: number): Window {
  const already = Math.max(0, before - skip);
  return { skip: Math.max(0, skip - before), take: Math.max(0, take - already) };
}

/**
 * A column a page statement carried beside its rows (a count), taken out: its value on the first
 * row (undefined when there is none), and the rows without it.
 */
export function takeColumn(raw: RawRows, name: string): [unknown, RawRows] {
  const at = raw.names.indexOf(name);
  if (at < 0) return [undefined, raw];
  const names = raw.names.filter((_, i) => i !== at);
  return [raw.rows[0]?.[at], { names, rows: raw.rows.map((row) => row.filter((_, i) => i !== at)) }];
}

/** One page from two statements' rows, the first's first. */
export const joined = (first: RawRows, second: RawRows): RawRows => ({
  names: first.names.length ? first.names : second.names,
  rows: [...first.rows, ...second.rows],
});

/** The city of each matching row (key and name) the facets count: restaurants have one, groceries none. */
export const CITY_COLUMNS: Record<Catalogue, string> = {
  Restaurant: `"Restaurant"."citySearch" AS "cityKey", "Restaurant"."city" AS "city"`,
  Grocery: `NULL AS "cityKey", NULL AS "city"`,
};

/**
 * Whether a page's matches end within the first `counted` (`exactMatches`: their number, when
 * another statement counts them all anyway): then no statement reads past them.
 */
export async function matchesEndWithin(
  exactMatches: (() => Promise<number | undefined>) | undefined,
  counted: number,
): Promise<boolean> {
  const total = await exactMatches?.();
  return total !== undefined && total <= counted;
}
