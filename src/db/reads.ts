// Hot read paths (rows by id, and the lists that follow a page of restaurants or groceries) as raw
// SQL, run on Prisma's own connection (`readRows` in client.ts) without Prisma's query compiler and
// row mapping. Prisma 7 caches query plans, yet each of these still costs several times as much
// through Prisma's API: `npm run bench -- --reads` measures every one against the Prisma call that
// returns the same rows (docs/performance.md, "Raw reads against Prisma 7"). Each function returns exactly what
// the equivalent Prisma call returns (test/graphql/reads.test.ts compares them on both databases),
// so callers cannot tell. Writes stay on the Prisma API.
//
// The SQL is read identically by SQLite and PostgreSQL: quoted identifiers, `IN` lists through
// Prisma.join, scalar subqueries. Drivers differ in what they hand back for computed columns
// (SQLite: text dates, bigint counts; pg: bigint sums), so every value passes through the
// normaliser of its column's kind.
import { Prisma, providerOf, readRows, type Db, type DatabaseOptions, type RawRows } from "./client.ts";
import type {
  BadgeRow,
  CommentRow,
  CommentWithAuthor,
  GroceryRow,
  GroceryTagKind,
  RestaurantBadgeWithBadge,
  RestaurantPartial,
  RestaurantRow,
  RestaurantTagKind,
  UserRow,
} from "./rows.ts";

// ---- Values: one normaliser per column kind ----------------------------------------------------

type Kind = "text" | "int" | "float" | "bool" | "date";

/**
 * Timestamp text with no zone is UTC here: SQLite's own ("YYYY-MM-DD HH:MM:SS"), and PostgreSQL's
 * `timestamp` written into JSON ("YYYY-MM-DDTHH:MM:SS.mmm", a list folded into a row's statement).
 */
const SQLITE_LOCAL_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

function toDate(v: unknown): Date {
  if (v instanceof Date) return v;
  if (typeof v === "string") return new Date(SQLITE_LOCAL_TIME.test(v) ? `${v.replace(" ", "T")}Z` : v);
  return new Date(Number(v)); // epoch milliseconds
}

function toBoolean(v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return v === "1" || v === "t" || v === "true";
  return Number(v) !== 0; // SQLite stores booleans as 0/1 (number or bigint)
}

/** Exported for the tests of driver values the seeded rows cannot produce. */
export const normalisers: Record<Kind, (v: unknown) => unknown> = {
  text: (v) => (typeof v === "string" ? v : String(v)),
  int: (v) => (typeof v === "number" ? v : Number(v)), // bigint from SUM/COUNT, or text
  float: (v) => (typeof v === "number" ? v : Number(v)),
  bool: toBoolean,
  date: toDate,
};

/** A JSON value a statement built (a list folded into a row): pg parses it, SQLite hands its text. */
const fromJson = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);

// ---- Columns of each model, in the order Prisma returns them ---------------------------------
// Each table names every column of its row type and nothing else (tsc checks both ways): a column
// added to the schema must be added here, with its kind.

type Columns = Record<string, Kind>;
/** Exactly the columns of row type R, each with its kind. */
type ColumnsOf<R> = { [K in keyof Required<R>]: Kind };

// Never the password hash: no field shows it, and sign-in reads it on its own (domain/users.ts).
const USER = {
  id: "text",
  username: "text",
  firstName: "text",
  avatar: "text",
  role: "text",
  createdAt: "date",
  updatedAt: "date",
} satisfies ColumnsOf<UserRow>;

export const RESTAURANT = {
  id: "text",
  title: "text",
  titleSearch: "text",
  description: "text",
  logo: "text",
  cover: "text",
  url: "text",
  acceptsReservations: "bool",
  starRating: "float",
  canHomeDeliver: "bool",
  email: "text",
  phone: "text",
  website: "text",
  addressLine1: "text",
  addressLine2: "text",
  landmark: "text",
  state: "text",
  city: "text",
  citySearch: "text",
  district: "text",
  country: "text",
  latitude: "float",
  longitude: "float",
  timeZone: "text",
  ratingSum: "int",
  ratingCount: "int",
  ratingAvg: "float",
  ownerId: "text",
  createdAt: "date",
  updatedAt: "date",
} satisfies ColumnsOf<RestaurantRow>;

export const GROCERY = {
  id: "text",
  title: "text",
  titleSearch: "text",
  description: "text",
  alsoKnownAs: "text",
  cover: "text",
  coverBytes: "int",
  ownerId: "text",
  createdAt: "date",
  updatedAt: "date",
} satisfies ColumnsOf<GroceryRow>;

const COMMENT = {
  id: "text",
  restaurantId: "text",
  authorId: "text",
  title: "text",
  body: "text",
  rating: "int",
  createdAt: "date",
} satisfies ColumnsOf<CommentRow>;

const RESTAURANT_BADGE = { restaurantId: "text", badgeId: "text", receivedAt: "date" } satisfies ColumnsOf<
  Omit<RestaurantBadgeWithBadge, "badge">
>;
const BADGE = { id: "text", name: "text", cover: "text", createdAt: "date" } satisfies ColumnsOf<BadgeRow>;

/** `alias."column" AS "prefixcolumn", ...` for the columns of a model. */
/** Select lists made so far, by column set (the same object for the same names: columnsOf), alias and prefix. */
const selectLists = new WeakMap<Columns, Map<string, Prisma.Sql>>();

function selectList(columns: Columns, alias: string, prefix = ""): Prisma.Sql {
  let byAlias = selectLists.get(columns);
  if (!byAlias) selectLists.set(columns, (byAlias = new Map()));
  const key = `${alias}\u0000${prefix}`;
  let list = byAlias.get(key);
  if (!list) {
    list = Prisma.raw(
      Object.keys(columns)
        .map((c) => `${alias}."${c}" AS "${prefix}${c}"`)
        .join(", "),
    );
    byAlias.set(key, list);
  }
  return list;
}

/** The rows a driver returned, as Prisma would return them (null stays null). */
export function rowsOf<T>(columns: Columns, raw: RawRows, prefix = ""): T[] {
  const names = Object.keys(columns);
  const at = names.map((column) => raw.names.indexOf(prefix + column));
  const kinds = names.map((column) => normalisers[columns[column]]);
  return raw.rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) {
      const value = at[i] < 0 ? null : values[at[i]];
      row[names[i]] = value === null || value === undefined ? null : kinds[i](value);
    }
    return row as T;
  });
}

/** Rows of one SELECT, each value as Prisma would return it for its column kind. `read`: how (readRows, or readRowsAside for a search). */
export async function query<T>(db: Db, columns: Columns, sql: Prisma.Sql, read = readRows): Promise<T[]> {
  return rowsOf<T>(columns, await read(db, sql));
}

const inList = (values: readonly string[]) => Prisma.join([...values]);

// ---- Rows by id --------------------------------------------------------------------------------

const USER_COLUMNS = selectList(USER, `"User"`);
const RESTAURANT_COLUMNS = selectList(RESTAURANT, `"Restaurant"`);
export const GROCERY_COLUMNS = selectList(GROCERY, `"Grocery"`);
const COMMENT_COLUMNS = selectList(COMMENT, "c");
const BADGE_GRANT_COLUMNS = Prisma.sql`${selectList(RESTAURANT_BADGE, "rb")}, ${selectList(BADGE, "b", "badge_")}`;

// Some columns of a row, for a read whose selection shows only a few fields.
export type UserColumn = keyof typeof USER;
export type RestaurantColumn = keyof typeof RESTAURANT | "addressGiven";

/** The text parts of a restaurant's address; with the coordinates, all its columns. */
export const ADDRESS_PARTS = [
  "addressLine1",
  "addressLine2",
  "landmark",
  "state",
  "city",
  "district",
  "country",
] as const;

// Whether a restaurant has an address at all: a text part that is neither null nor "", or both
// coordinates. The rule is written once, below, and read twice: by JavaScript for a whole row
// (addressGivenIn, which domain/restaurants.ts addressOf asks), and by the database for a read
// that shows only some parts of the address and so does not read the others (ADDRESS_GIVEN).
const GIVEN_TEXT = ADDRESS_PARTS;
const GIVEN_POINT = ["latitude", "longitude"] as const;

export const addressGivenIn = (row: Partial<RestaurantRow>): boolean =>
  GIVEN_TEXT.some((part) => Boolean(row[part])) || GIVEN_POINT.every((coordinate) => row[coordinate] != null);

const ADDRESS_GIVEN = `(${GIVEN_TEXT.map((c) => `COALESCE("Restaurant"."${c}", '') <> ''`).join(" OR ")}
  OR (${GIVEN_POINT.map((c) => `"Restaurant"."${c}" IS NOT NULL`).join(" AND ")})) AS "addressGiven"`;

/** The columns named (every column when none are named), in the model's order. */
/**
 * Column sets made so far, by model and names: a selection asks for the same few sets on every
 * request, and the same object each time lets selectList keep its text. Bounded by the subsets
 * the selection planner can name (a model's columns, in its order).
 */
const columnSets = new WeakMap<Columns, Map<string, Columns>>();

function columnsOf(model: Columns, names?: readonly string[]): Columns {
  if (!names) return model;
  let byNames = columnSets.get(model);
  if (!byNames) columnSets.set(model, (byNames = new Map()));
  const key = names.join(",");
  let columns = byNames.get(key);
  if (!columns) {
    const wanted = new Set<string>(names);
    columns = Object.fromEntries(Object.entries(model).filter(([column]) => wanted.has(column)));
    byNames.set(key, columns);
  }
  return columns;
}

const withAddressGiven = new WeakMap<Columns, Columns>();

/** The restaurant columns named (all when none are), with the derived addressGiven when named. */
function restaurantColumnsOf(names?: readonly RestaurantColumn[]): Columns {
  const columns = columnsOf(RESTAURANT, names);
  if (!names?.includes("addressGiven")) return columns;
  let withIt = withAddressGiven.get(columns);
  if (!withIt) withAddressGiven.set(columns, (withIt = { ...columns, addressGiven: "bool" }));
  return withIt;
}

/** `"Restaurant"."column" AS "column", ...` for the columns named (all when none are). */
export function restaurantSelectList(names?: readonly RestaurantColumn[]): Prisma.Sql {
  if (!names) return RESTAURANT_COLUMNS;
  const list = selectList(columnsOf(RESTAURANT, names), `"Restaurant"`);
  return names.includes("addressGiven") ? Prisma.sql`${list}, ${Prisma.raw(ADDRESS_GIVEN)}` : list;
}

/** Users with these ids (any order; unknown ids are absent), as `db.user.findMany` omitting the password hash. */
export async function usersByIds(db: Db, ids: readonly string[]): Promise<UserRow[]> {
  if (ids.length === 0) return [];
  return query(db, USER, Prisma.sql`SELECT ${USER_COLUMNS} FROM "User" WHERE "User"."id" IN (${inList(ids)})`);
}

/** Restaurants with these ids (any order; unknown ids are absent), as `db.restaurant.findMany`. */
export async function restaurantsByIds(db: Db, ids: readonly string[]): Promise<RestaurantRow[]> {
  if (ids.length === 0) return [];
  return query(
    db,
    RESTAURANT,
    Prisma.sql`SELECT ${RESTAURANT_COLUMNS} FROM "Restaurant" WHERE "Restaurant"."id" IN (${inList(ids)})`,
  );
}

/** Groceries with these ids (any order; unknown ids are absent), as `db.grocery.findMany`. */
export async function groceriesByIds(db: Db, ids: readonly string[]): Promise<GroceryRow[]> {
  if (ids.length === 0) return [];
  return query(
    db,
    GROCERY,
    Prisma.sql`SELECT ${GROCERY_COLUMNS} FROM "Grocery" WHERE "Grocery"."id" IN (${inList(ids)})`,
  );
}

// ---- Lists that follow a restaurant ------------------------------------------------------------

/** Tag values of these restaurants, each list in position order. */
export async function restaurantTagsFor(
  db: Db,
  restaurantIds: readonly string[],
): Promise<{ restaurantId: string; kind: RestaurantTagKind; value: string }[]> {
  if (restaurantIds.length === 0) return [];
  return query(
    db,
    { restaurantId: "text", kind: "text", value: "text" },
    Prisma.sql`SELECT "restaurantId", "kind", "value" FROM "RestaurantTag" WHERE "restaurantId" IN (${inList(restaurantIds)})
      ORDER BY "restaurantId", "kind", "position"`,
  );
}

/** Photo URLs of these restaurants, in position order. */
export async function restaurantPhotosFor(
  db: Db,
  restaurantIds: readonly string[],
): Promise<{ restaurantId: string; url: string }[]> {
  if (restaurantIds.length === 0) return [];
  return query(
    db,
    { restaurantId: "text", url: "text" },
    Prisma.sql`SELECT "restaurantId", "url" FROM "RestaurantPhoto" WHERE "restaurantId" IN (${inList(restaurantIds)})
      ORDER BY "restaurantId", "position"`,
  );
}

/** Opening hours of these restaurants, in position order. */
export async function openingHoursFor(
  db: Db,
  restaurantIds: readonly string[],
): Promise<{ restaurantId: string; open: string; close: string }[]> {
  if (restaurantIds.length === 0) return [];
  return query(
    db,
    { restaurantId: "text", open: "text", close: "text" },
    Prisma.sql`SELECT "restaurantId", "open", "close" FROM "OpeningHours" WHERE "restaurantId" IN (${inList(restaurantIds)})
      ORDER BY "restaurantId", "position"`,
  );
}

/** Badges these restaurants hold, oldest grant first, each with its badge: one statement. */
export async function restaurantBadgesFor(
  db: Db,
  restaurantIds: readonly string[],
): Promise<RestaurantBadgeWithBadge[]> {
  if (restaurantIds.length === 0) return [];
  const raw = await readRows(
    db,
    Prisma.sql`SELECT ${BADGE_GRANT_COLUMNS}
      FROM "RestaurantBadge" rb JOIN "Badge" b ON b."id" = rb."badgeId"
      WHERE rb."restaurantId" IN (${inList(restaurantIds)})
      ORDER BY rb."receivedAt" ASC, rb."badgeId" ASC`,
  );
  const badges = rowsOf<RestaurantBadgeWithBadge["badge"]>(BADGE, raw, "badge_");
  return rowsOf<Omit<RestaurantBadgeWithBadge, "badge">>(RESTAURANT_BADGE, raw).map((grant, i) => ({
    ...grant,
    badge: badges[i],
  }));
}

/** A comment's columns (alias c) and its author's (alias u, prefixed author_): read by commentsWithAuthorsOf. */
export const COMMENT_WITH_AUTHOR_COLUMNS = Prisma.sql`${COMMENT_COLUMNS}, ${selectList(USER, "u", "author_")}`;
const LATEST_COMMENT_COLUMNS = COMMENT_WITH_AUTHOR_COLUMNS;

/** The comments of a statement that selected COMMENT_WITH_AUTHOR_COLUMNS, each with its author. */
export function commentsWithAuthorsOf(raw: RawRows): CommentWithAuthor[] {
  const authors = rowsOf<UserRow>(USER, raw, "author_");
  return rowsOf<CommentRow>(COMMENT, raw).map((comment, i) => ({ ...comment, author: authors[i] }));
}

/** The id of a restaurant's newest comment (the highest id wins a tie, as in listComments). */
const latestCommentIdOf = (restaurant: string) =>
  Prisma.raw(
    `(SELECT n."id" FROM "Comment" n WHERE n."restaurantId" = ${restaurant}."id" ORDER BY n."createdAt" DESC, n."id" DESC LIMIT 1)`,
  );

/**
 * The newest comment of each of these restaurants (the highest id wins a tie, as in
 * listComments), with its author, in one statement: one index probe on (restaurantId,
 * createdAt) per restaurant. The author comes along because a latest comment is nearly always
 * shown with its author, which would otherwise cost a statement of its own.
 */
export async function latestCommentsFor(db: Db, restaurantIds: readonly string[]): Promise<CommentWithAuthor[]> {
  if (restaurantIds.length === 0) return [];
  const raw = await readRows(
    db,
    Prisma.sql`SELECT ${LATEST_COMMENT_COLUMNS} FROM "Comment" c JOIN "User" u ON u."id" = c."authorId" WHERE c."id" IN (
        SELECT ${latestCommentIdOf("r")} FROM "Restaurant" r WHERE r."id" IN (${inList(restaurantIds)}))`,
  );
  return commentsWithAuthorsOf(raw);
}

/**
 * A page of a restaurant's comments, newest first (the highest id wins a tie), each with its
 * author, in one statement; with `count`, the restaurant's number of comments rides along as a
 * scalar subquery. `take + 1` rows come back at most (the extra one tells a next page exists).
 * A page past the end has no row to carry the total: then `total` is null (count it apart).
 */
export async function commentPageFor(
  db: Db,
  restaurantId: string,
  { skip, take }: { skip: number; take: number },
  count: boolean,
): Promise<{ comments: CommentWithAuthor[]; total: number | null }> {
  if (!Number.isSafeInteger(take) || take < 1 || !Number.isSafeInteger(skip) || skip < 0)
    throw new Error(`page window ${skip}+${take} is not whole`);
  // LIMIT as a literal (a few page sizes), OFFSET as a parameter (many): see windowSql in searches.ts.
  const window = Prisma.raw(`LIMIT ${take + 1}`);
  const total = count
    ? Prisma.sql`, (SELECT COUNT(*) FROM "Comment" n WHERE n."restaurantId" = ${restaurantId}) AS "totalCount"`
    : Prisma.empty;
  // The page is cut in a subquery and only its rows meet their authors: joined first, a deep page
  // (OFFSET 5,000) looked up the author of every comment it skipped.
  const raw = await readRows(
    db,
    Prisma.sql`SELECT ${LATEST_COMMENT_COLUMNS}${total} FROM (SELECT * FROM "Comment" p WHERE p."restaurantId" = ${restaurantId}
        ORDER BY p."createdAt" DESC, p."id" DESC ${window}${skip > 0 ? Prisma.sql` OFFSET ${skip}` : Prisma.empty}) c
      JOIN "User" u ON u."id" = c."authorId" ORDER BY c."createdAt" DESC, c."id" DESC`,
  );
  const comments = commentsWithAuthorsOf(raw);
  const counted = count && raw.rows.length > 0 ? Number(raw.rows[0][raw.names.indexOf("totalCount")]) : null;
  return { comments, total: counted };
}

/** How many comments a restaurant has. */
export async function commentCountOf(db: Db, restaurantId: string): Promise<number> {
  const rows = await query<{ n: number }>(
    db,
    { n: "int" },
    Prisma.sql`SELECT COUNT(*) AS "n" FROM "Comment" WHERE "restaurantId" = ${restaurantId}`,
  );
  return rows[0]?.n ?? 0;
}

/** Summed ratings of the restaurants each of these users owns (owners of none are absent). */
export async function ownerRatingSums(
  db: Db,
  ownerIds: readonly string[],
): Promise<{ ownerId: string; ratingSum: number; ratingCount: number }[]> {
  if (ownerIds.length === 0) return [];
  return query(
    db,
    { ownerId: "text", ratingSum: "int", ratingCount: "int" },
    Prisma.sql`SELECT "ownerId", SUM("ratingSum") AS "ratingSum", SUM("ratingCount") AS "ratingCount"
      FROM "Restaurant" WHERE "ownerId" IN (${inList(ownerIds)}) GROUP BY "ownerId"`,
  );
}

// ---- A restaurant with what a request asks of it, in the same statement ----------------------

/**
 * What a request asks along with each restaurant (GraphQL looks ahead over the selection).
 * `ownerColumns`: only these columns of the owner (all when absent; its id always).
 * `authorRating`: the summed ratings of the latest comment's author (as `ownerRating` for the owner).
 * `tags`, `photos`, `openingHours`, `badges`: the restaurant's lists, folded into its row.
 */
export type RestaurantRelations = {
  owner?: boolean;
  ownerColumns?: readonly UserColumn[];
  ownerRating?: boolean;
  latestComment?: boolean;
  authorRating?: boolean;
  tags?: boolean;
  photos?: boolean;
  openingHours?: boolean;
  badges?: boolean;
};

type RatingSums = { ownerId: string; ratingSum: number; ratingCount: number };
export type RestaurantTag = { restaurantId: string; kind: RestaurantTagKind; value: string };
export type OpeningHoursRow = { restaurantId: string; open: string; close: string };

/** A restaurant row and the related rows asked for (a relation not asked is absent; none found is null). */
export type RestaurantWithRelated = {
  /** Whole, or only the columns the statement was asked for. */
  restaurant: RestaurantPartial;
  owner?: UserRow | null;
  ownerRating?: RatingSums;
  latestComment?: CommentWithAuthor | null;
  /** The latest comment's author's sums (absent when there is no comment). */
  authorRating?: RatingSums;
  tags?: RestaurantTag[];
  photos?: string[];
  openingHours?: OpeningHoursRow[];
  badges?: RestaurantBadgeWithBadge[];
};

export const asksRelated = (want: RestaurantRelations) =>
  Boolean(
    want.owner ||
    want.ownerRating ||
    want.latestComment ||
    want.tags ||
    want.photos ||
    want.openingHours ||
    want.badges,
  );

const OWNER_RATING = { ratingSum: "int", ratingCount: "int" } satisfies Columns;

/** The owner's columns a relation asks: its id (which tells a missing owner) and those named. */
const ownerColumnsOf = (want: RestaurantRelations) =>
  columnsOf(USER, want.ownerColumns && ["id", ...want.ownerColumns]);

type Provider = DatabaseOptions["provider"];

/** The two databases' names for the same JSON building blocks. */
const JSON_SQL: Record<Provider, { agg: string; array: string }> = {
  postgres: { agg: "json_agg", array: "json_build_array" },
  sqlite: { agg: "json_group_array", array: "json_array" },
};

/**
 * One of a restaurant's lists as a JSON array of arrays (the columns named, in the order given),
 * computed by the database inside the restaurant's own statement: a probe of the list table's
 * primary key (restaurantId first) per restaurant, instead of a statement per list. Both databases
 * order inside the aggregate (SQLite 3.44+). PostgreSQL's json_agg of no row is NULL: read as [].
 */
function listColumn(provider: Provider, name: string, from: string, columns: string[], order: string): string {
  const { agg, array } = JSON_SQL[provider];
  return `(SELECT ${agg}(${array}(${columns.join(", ")}) ORDER BY ${order}) FROM ${from} WHERE x."restaurantId" = "Restaurant"."id") AS "list_${name}"`;
}

const LISTS = {
  tags: { from: `"RestaurantTag" x`, columns: [`x."kind"`, `x."value"`], order: `x."kind", x."position"` },
  photos: { from: `"RestaurantPhoto" x`, columns: [`x."url"`], order: `x."position"` },
  openingHours: { from: `"OpeningHours" x`, columns: [`x."open"`, `x."close"`], order: `x."position"` },
  badges: {
    from: `"RestaurantBadge" x JOIN "Badge" b ON b."id" = x."badgeId"`,
    columns: [`x."badgeId"`, `x."receivedAt"`, `b."name"`, `b."cover"`, `b."createdAt"`],
    order: `x."receivedAt", x."badgeId"`,
  },
} as const;
type ListName = keyof typeof LISTS;
const LIST_NAMES = Object.keys(LISTS) as ListName[];

/** The summed ratings of the restaurants `ownerColumn` owns, as two columns named `${prefix}_ratingSum` / `_ratingCount`. */
function ratingSumsSql(ownerColumn: string, prefix: string): string {
  const sumOf = (column: string) =>
    `COALESCE((SELECT SUM(x."${column}") FROM "Restaurant" x WHERE x."ownerId" = ${ownerColumn}), 0) AS "${prefix}_${column}"`;
  return `${sumOf("ratingSum")}, ${sumOf("ratingCount")}`;
}

/**
 * The extra columns and joins that bring the relations asked along with rows of `"Restaurant"`:
 * the owner (a join on the primary key), the owner's summed ratings (scalar subqueries, the sums
 * ownerRatingSums gives), the newest comment with its author (the probe latestCommentsFor
 * makes) and that author's sums, and the lists asked (listColumn). LEFT JOINs: a restaurant is
 * never lost for a missing relation. So a restaurant's whole detail is one statement.
 */
export function relatedSql(want: RestaurantRelations, provider: Provider): { columns: Prisma.Sql; joins: Prisma.Sql } {
  const columns: Prisma.Sql[] = [];
  const joins: Prisma.Sql[] = [];
  if (want.owner) {
    columns.push(selectList(ownerColumnsOf(want), "o", "owner_"));
    joins.push(Prisma.raw(`LEFT JOIN "User" o ON o."id" = "Restaurant"."ownerId"`));
  }
  if (want.ownerRating) columns.push(Prisma.raw(ratingSumsSql(`"Restaurant"."ownerId"`, "ownerRating")));
  if (want.latestComment) {
    columns.push(Prisma.sql`${selectList(COMMENT, "c", "comment_")}, ${selectList(USER, "a", "author_")}`);
    if (want.authorRating) columns.push(Prisma.raw(ratingSumsSql(`c."authorId"`, "authorRating")));
    joins.push(
      Prisma.sql`LEFT JOIN "Comment" c ON c."id" = ${latestCommentIdOf(`"Restaurant"`)} LEFT JOIN "User" a ON a."id" = c."authorId"`,
    );
  }
  for (const name of LIST_NAMES) {
    if (!want[name]) continue;
    const list = LISTS[name];
    columns.push(Prisma.raw(listColumn(provider, name, list.from, [...list.columns], list.order)));
  }
  return {
    columns: columns.length === 0 ? Prisma.empty : Prisma.sql`, ${Prisma.join(columns, ", ")}`,
    joins: joins.length === 0 ? Prisma.empty : Prisma.join(joins, " "),
  };
}

/** The folded lists of one row, each as the rows its own read (restaurantTagsFor, ...) returns. */
function listsOf(
  raw: RawRows,
  want: RestaurantRelations,
  restaurantId: string,
  values: unknown[],
): Partial<RestaurantWithRelated> {
  const items = (name: ListName) => (fromJson(values[raw.names.indexOf(`list_${name}`)]) ?? []) as unknown[][];
  const lists: Partial<RestaurantWithRelated> = {};
  if (want.tags)
    lists.tags = items("tags").map(([kind, value]) => ({
      restaurantId,
      kind: kind as RestaurantTagKind,
      value: String(value),
    }));
  if (want.photos) lists.photos = items("photos").map(([url]) => String(url));
  if (want.openingHours)
    lists.openingHours = items("openingHours").map(([open, close]) => ({
      restaurantId,
      open: String(open),
      close: String(close),
    }));
  if (want.badges) {
    lists.badges = items("badges").map(([badgeId, receivedAt, name, cover, createdAt]) => ({
      restaurantId,
      badgeId: String(badgeId),
      receivedAt: toDate(receivedAt),
      badge: {
        id: String(badgeId),
        name: String(name),
        cover: cover === null ? null : String(cover),
        createdAt: toDate(createdAt),
      },
    }));
  }
  return lists;
}

/**
 * The rows of a statement built with relatedSql, each restaurant with the relations asked.
 * `columns`: the restaurant columns the statement selected (restaurantSelectList), when not all:
 * the rows then hold only those (see RestaurantPageAsks).
 */
export function relatedRowsOf(
  raw: RawRows,
  want: RestaurantRelations,
  columns?: readonly RestaurantColumn[],
): RestaurantWithRelated[] {
  const restaurants = rowsOf<RestaurantRow>(restaurantColumnsOf(columns), raw);
  const owners = want.owner ? rowsOf<UserRow>(ownerColumnsOf(want), raw, "owner_") : [];
  const ratings = want.ownerRating
    ? rowsOf<{ ratingSum: number; ratingCount: number }>(OWNER_RATING, raw, "ownerRating_")
    : [];
  const comments = want.latestComment ? rowsOf<CommentRow>(COMMENT, raw, "comment_") : [];
  const authors = want.latestComment ? rowsOf<UserRow>(USER, raw, "author_") : [];
  const authorRatings =
    want.latestComment && want.authorRating
      ? rowsOf<{ ratingSum: number; ratingCount: number }>(OWNER_RATING, raw, "authorRating_")
      : [];
  const anyList = LIST_NAMES.some((name) => want[name]);
  return restaurants.map((restaurant, i) => {
    const row: RestaurantWithRelated = { restaurant };
    if (want.owner) row.owner = owners[i].id === null ? null : owners[i];
    if (want.ownerRating) row.ownerRating = { ownerId: restaurant.ownerId, ...ratings[i] };
    if (want.latestComment) {
      const comment = comments[i];
      row.latestComment = comment.id === null ? null : { ...comment, author: authors[i] };
      if (want.authorRating && comment.id !== null)
        row.authorRating = { ownerId: comment.authorId, ...authorRatings[i] };
    }
    if (anyList) Object.assign(row, listsOf(raw, want, restaurant.id, raw.rows[i]));
    return row;
  });
}

/**
 * Restaurants with these ids (any order; unknown ids are absent), each with the relations asked:
 * one statement. `columns`: only these columns of each restaurant (all when absent).
 */
export async function restaurantsWithRelated(
  db: Db,
  ids: readonly string[],
  want: RestaurantRelations,
  columns?: readonly RestaurantColumn[],
): Promise<RestaurantWithRelated[]> {
  if (ids.length === 0) return [];
  const related = relatedSql(want, providerOf(db));
  const raw = await readRows(
    db,
    Prisma.sql`SELECT ${restaurantSelectList(columns)}${related.columns} FROM "Restaurant" ${related.joins} WHERE "Restaurant"."id" IN (${inList(ids)})`,
  );
  return relatedRowsOf(raw, want, columns);
}

// ---- Lists that follow a grocery ---------------------------------------------------------------

/** Tag values of these groceries, each list in position order. */
export async function groceryTagsFor(
  db: Db,
  groceryIds: readonly string[],
): Promise<{ groceryId: string; kind: GroceryTagKind; value: string }[]> {
  if (groceryIds.length === 0) return [];
  return query(
    db,
    { groceryId: "text", kind: "text", value: "text" },
    Prisma.sql`SELECT "groceryId", "kind", "value" FROM "GroceryTag" WHERE "groceryId" IN (${inList(groceryIds)})
      ORDER BY "groceryId", "kind", "position"`,
  );
}
