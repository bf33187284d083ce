// The columns of each row type and how the drivers' values become what Prisma would return: the
// raw reads (this folder) and the searches (src/db/search/) build their select lists and read their
// rows here. Both databases read the same SQL (quoted identifiers, `IN` lists through Prisma.join);
// the drivers differ in what they hand back for computed columns (text dates and bigint counts from
// SQLite, bigint sums from pg), so every value passes through the normaliser of its column's kind.
import { Prisma } from "../prisma.ts";
import type { RawRows, SqlReader } from "../raw-rows.ts";
import type {
  BadgeRow,
  CommentRow,
  CommentWithAuthor,
  GroceryRow,
  RestaurantBadgeWithBadge,
  RestaurantRow,
  UserRow,
} from "../rows.ts";

// ---- Values: one normaliser per column kind ----------------------------------------------------

export type Kind = "text" | "int" | "float" | "bool" | "date";

/**
 * Timestamp text with no zone is UTC here: SQLite's own ("YYYY-MM-DD HH:MM:SS"), and PostgreSQL's
 * `timestamp` written into JSON ("YYYY-MM-DDTHH:MM:SS.mmm", a list folded into a row's statement).
 */
const SQLITE_LOCAL_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

export function toDate(v: unknown): Date {
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
export const fromJson = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);

// ---- Columns of each model, in the order Prisma returns them ---------------------------------
// Each table names every column of its row type and nothing else (tsc checks both ways): a column
// added to the schema must be added here, with its kind.

export type Columns = Record<string, Kind>;
/** Exactly the columns of row type R, each with its kind. */
type ColumnsOf<R> = { [K in keyof Required<R>]: Kind };

// Never the password hash: no field shows it, and sign-in reads it on its own (domain/accounts/users.ts).
export const USER = {
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
  titleOrder: "text",
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

export const COMMENT = {
  id: "text",
  restaurantId: "text",
  authorId: "text",
  title: "text",
  body: "text",
  rating: "int",
  createdAt: "date",
} satisfies ColumnsOf<CommentRow>;

export const RESTAURANT_BADGE = { restaurantId: "text", badgeId: "text", receivedAt: "date" } satisfies ColumnsOf<
  Omit<RestaurantBadgeWithBadge, "badge">
>;
export const BADGE = { id: "text", name: "text", cover: "text", createdAt: "date" } satisfies ColumnsOf<BadgeRow>;

/** Select lists made so far, by column set (the same object for the same names: columnsOf), alias and prefix. */
const selectLists = new WeakMap<Columns, Map<string, Prisma.Sql>>();

/** `alias."column" AS "prefixcolumn", ...` for the columns of a model. */
export function selectList(columns: Columns, alias: string, prefix = ""): Prisma.Sql {
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

/** Rows of one SELECT, each value as Prisma would return it for its column kind. */
export async function query<T>(db: Pick<SqlReader, "read">, columns: Columns, sql: Prisma.Sql): Promise<T[]> {
  return rowsOf<T>(columns, await db.read(sql));
}

/**
 * The values of an `IN (...)` list, each bound, the last repeated up to a power of two: lists of
 * any length then share a few statement texts, each prepared once per connection (batches shared
 * by the requests of a moment come in every length).
 */
export function inList(values: readonly string[]) {
  const padded = [...values];
  while (padded.length > 0 && (padded.length & (padded.length - 1)) !== 0) padded.push(padded.at(-1)!);
  return Prisma.join(padded);
}

// ---- Select lists -------------------------------------------------------------------------------

export const USER_COLUMNS = selectList(USER, `"User"`);
export const RESTAURANT_COLUMNS = selectList(RESTAURANT, `"Restaurant"`);
export const GROCERY_COLUMNS = selectList(GROCERY, `"Grocery"`);
export const COMMENT_COLUMNS = selectList(COMMENT, "c");
export const BADGE_GRANT_COLUMNS = Prisma.sql`${selectList(RESTAURANT_BADGE, "rb")}, ${selectList(BADGE, "b", "badge_")}`;

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
// (addressGivenIn, which domain/catalogue/restaurants.ts addressOf asks), and by the database for a read
// that shows only some parts of the address and so does not read the others (ADDRESS_GIVEN).
const GIVEN_TEXT = ADDRESS_PARTS;
const GIVEN_POINT = ["latitude", "longitude"] as const;

export const addressGivenIn = (row: Partial<RestaurantRow>): boolean =>
  GIVEN_TEXT.some((part) => Boolean(row[part])) || GIVEN_POINT.every((coordinate) => row[coordinate] != null);

const ADDRESS_GIVEN = `(${GIVEN_TEXT.map((c) => `COALESCE("Restaurant"."${c}", '') <> ''`).join(" OR ")}
  OR (${GIVEN_POINT.map((c) => `"Restaurant"."${c}" IS NOT NULL`).join(" AND ")})) AS "addressGiven"`;

/**
 * Column sets made so far, by model and names: a selection asks for the same few sets on every
 * request, and the same object each time lets selectList keep its text. Bounded by the subsets
 * the selection planner can name (a model's columns, in its order).
 */
const columnSets = new WeakMap<Columns, Map<string, Columns>>();

/** The columns named (every column when none are named), in the model's order. */
export function columnsOf(model: Columns, names?: readonly string[]): Columns {
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
export function restaurantColumnsOf(names?: readonly RestaurantColumn[]): Columns {
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

/** A comment's columns (alias c) and its author's (alias u, prefixed author_): read by commentsWithAuthorsOf. */
export const COMMENT_WITH_AUTHOR_COLUMNS = Prisma.sql`${COMMENT_COLUMNS}, ${selectList(USER, "u", "author_")}`;

/** The comments of a statement that selected COMMENT_WITH_AUTHOR_COLUMNS, each with its author. */
export function commentsWithAuthorsOf(raw: RawRows): CommentWithAuthor[] {
  const authors = rowsOf<UserRow>(USER, raw, "author_");
  return rowsOf<CommentRow>(COMMENT, raw).map((comment, i) => ({ ...comment, author: authors[i] }));
}

/** The id of a restaurant's newest comment (the highest id wins a tie, as in listComments). */
export const latestCommentIdOf = (restaurant: string) =>
  Prisma.raw(
    `(SELECT n."id" FROM "Comment" n WHERE n."restaurantId" = ${restaurant}."id" ORDER BY n."createdAt" DESC, n."id" DESC LIMIT 1)`,
  );
