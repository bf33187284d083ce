// Search pages as raw SQL, for the reason given in reads.ts: a page in one statement (a page of
// restaurants with what the request asks of each row, and its total when asked), with none of
// Prisma's per-query compile cost. The
// filter becomes a WHERE clause both databases read alike. Title search is a literal substring
// test: LIKE with its wildcards escaped (Prisma's `contains` leaves them live, prisma/orm#19506).
import { Prisma, readRows, type Db } from "./client.ts";
import {
  GROCERY,
  GROCERY_COLUMNS,
  query,
  relatedRowsOf,
  relatedSql,
  restaurantSelectList,
  type RestaurantColumn,
  type RestaurantRelations,
  type RestaurantWithRelated,
} from "./reads.ts";
import type { GroceryRow } from "./rows.ts";

/** What a search filter asks, as lower-cased search keys (absent: not filtered on). */
export type TagCondition<K extends string> = { kind: K; key: string };

export type RestaurantQuery = {
  titleKey?: string;
  tags: TagCondition<"CATEGORY" | "CUISINE">[];
  cityKey?: string;
  canHomeDeliver?: boolean;
  sort: "RATING" | "TITLE" | "NEWEST";
};

export type GroceryQuery = { titleKey?: string; tags: TagCondition<"CATEGORY">[] };

export type Window = { skip: number; take: number };

// "!" escapes LIKE's wildcards: unlike a backslash, it means the same in SQLite and in
// PostgreSQL whatever standard_conforming_strings says.
const likeLiteral = (key: string) => `%${key.replace(/[!%_]/g, (c) => `!${c}`)}%`;

const titleContains = (key: string) => Prisma.sql`"titleSearch" LIKE ${likeLiteral(key)} ESCAPE '!'`;

function hasTag(table: "Restaurant" | "Grocery", { kind, key }: TagCondition<string>) {
  const [tags, owner] = table === "Restaurant" ? [`"RestaurantTag"`, `"restaurantId"`] : [`"GroceryTag"`, `"groceryId"`];
  return Prisma.sql`EXISTS (SELECT 1 FROM ${Prisma.raw(tags)} t
    WHERE t.${Prisma.raw(owner)} = ${Prisma.raw(`"${table}"`)}."id" AND t."kind" = ${kind} AND t."valueKey" = ${key})`;
}

const whereAll = (conditions: Prisma.Sql[]) =>
  conditions.length === 0 ? Prisma.empty : Prisma.sql`WHERE ${Prisma.join(conditions, " AND ")}`;

// The id ends every order, so pages never overlap or skip rows that tie. Qualified: the owner's
// and the comment's joined columns have the same names.
const RESTAURANT_ORDERS: Record<RestaurantQuery["sort"], Prisma.Sql> = {
  RATING: Prisma.raw(`"Restaurant"."ratingAvg" DESC NULLS LAST, "Restaurant"."id" ASC`),
  TITLE: Prisma.raw(`"Restaurant"."titleSearch" ASC, "Restaurant"."id" ASC`),
  NEWEST: Prisma.raw(`"Restaurant"."createdAt" DESC, "Restaurant"."id" DESC`),
};

/**
 * LIMIT (one more row than the page: it tells whether a next page exists) as a literal, and OFFSET
 * left out on a first page. PostgreSQL plans a statement without parameters once per connection
 * (its cached generic plan); with `LIMIT $1` it plans again at every execution, since its generic
 * plan guesses a limit of 10% of the rows and so never looks cheaper than a custom one: ~0.2 ms
 * of database CPU per page, more than reading it. Page sizes are few (1 to the maximum), so the
 * literal adds few statement texts; offsets are many, so a later page keeps its as a parameter.
 */
function windowSql({ skip, take }: Window): Prisma.Sql {
  if (!Number.isSafeInteger(take) || take < 1) throw new Error(`page size ${take} is not a whole number`); // pageWindow checked it
  const limit = Prisma.raw(`LIMIT ${take + 1}`);
  return skip === 0 ? limit : Prisma.sql`${limit} OFFSET ${skip}`;
}

/** The page's rows, and the total on demand. */
async function pageAndCount<T>(db: Db, page: Prisma.Sql, count: Prisma.Sql, columns: Parameters<typeof query>[1]) {
  const rows = await query<T>(db, columns, page);
  return { rows, count: async () => (await query<{ n: number }>(db, { n: "int" }, count))[0]?.n ?? 0 };
}

/**
 * What a page of restaurants is asked for besides its rows: relations of each row, and the total.
 * `columns`: read only these columns of each restaurant (every column when absent), as a selection
 * that shows only a few fields allows: the page's rows then hold those columns and no others.
 */
export type RestaurantPageAsks = RestaurantRelations & { count?: boolean; columns?: readonly RestaurantColumn[] };

/**
 * Restaurants matching every condition, in the order asked (the id breaks ties), each with the
 * relations asked, in one statement; the total too when asked (`count`), as a scalar subquery the
 * database computes once. A page past the end has no row to carry the total: it is then counted
 * on its own, only if `count()` is called.
 */
export async function restaurantPage(db: Db, q: RestaurantQuery, window: Window, asks: RestaurantPageAsks = {}) {
  const conditions: Prisma.Sql[] = [];
  if (q.titleKey) conditions.push(titleContains(q.titleKey));
  for (const tag of q.tags) conditions.push(hasTag("Restaurant", tag));
  if (q.cityKey) conditions.push(Prisma.sql`"citySearch" = ${q.cityKey}`);
  if (q.canHomeDeliver != null) conditions.push(Prisma.raw(`"canHomeDeliver" = ${q.canHomeDeliver ? "TRUE" : "FALSE"}`));
  const where = whereAll(conditions);
  const countSql = Prisma.sql`SELECT COUNT(*) AS "n" FROM "Restaurant" ${where}`;
  const related = relatedSql(asks);
  const total = asks.count ? Prisma.sql`, (${countSql}) AS "totalCount"` : Prisma.empty;
  const raw = await readRows(
    db,
    Prisma.sql`SELECT ${restaurantSelectList(asks.columns)}${related.columns}${total} FROM "Restaurant" ${related.joins} ${where}
      ORDER BY ${RESTAURANT_ORDERS[q.sort]} ${windowSql(window)}`,
  );
  const rows: RestaurantWithRelated[] = relatedRowsOf(raw, asks, asks.columns);
  const counted = asks.count && raw.rows.length > 0 ? Number(raw.rows[0][raw.names.indexOf("totalCount")]) : undefined;
  const count = async () => counted ?? (await query<{ n: number }>(db, { n: "int" }, countSql))[0]?.n ?? 0;
  return { rows, count };
}

/** Groceries matching every condition, newest first (the id breaks ties). */
export function groceryPage(db: Db, q: GroceryQuery, window: Window) {
  const conditions: Prisma.Sql[] = [];
  if (q.titleKey) conditions.push(titleContains(q.titleKey));
  for (const tag of q.tags) conditions.push(hasTag("Grocery", tag));
  const where = whereAll(conditions);
  return pageAndCount<GroceryRow>(
    db,
    Prisma.sql`SELECT ${GROCERY_COLUMNS} FROM "Grocery" ${where}
      ORDER BY "createdAt" DESC, "id" DESC ${windowSql(window)}`,
    Prisma.sql`SELECT COUNT(*) AS "n" FROM "Grocery" ${where}`,
    GROCERY,
  );
}
