// A cheap fingerprint of the whole database, taken before and after a call that must change
// nothing: the row count of every table (from the Prisma model list, so a new table is counted
// without touching this file) plus a few aggregates that move when a row is edited in place
// (updatedAt, quantities, revocations, resolutions). One SQL statement, the same on both databases.
import type { Db } from "../../src/db/db.ts";
import { Prisma } from "../../src/db/prisma.ts";

const quote = (name: string) => `"${name}"`;

/** In-place edits that counts alone would miss. */
const AGGREGATES: Record<string, string> = {
  "User.updatedAt": `SELECT max("updatedAt") FROM "User"`,
  "User.role": `SELECT count(*) FROM "User" WHERE "role" = 'ADMIN'`,
  "AccessToken.revoked": `SELECT count("revokedAt") FROM "AccessToken"`,
  "Restaurant.updatedAt": `SELECT max("updatedAt") FROM "Restaurant"`,
  "Restaurant.ratingSum": `SELECT sum("ratingSum") FROM "Restaurant"`,
  "Grocery.updatedAt": `SELECT max("updatedAt") FROM "Grocery"`,
  "ShoppingListEntry.quantity": `SELECT sum("quantity") FROM "ShoppingListEntry"`,
  "Order.quantity": `SELECT sum("quantity") FROM "Order"`,
  "Report.resolved": `SELECT count("resolvedAt") FROM "Report"`,
};

const STATEMENT = `SELECT ${[
  ...Object.values(Prisma.ModelName).map(
    (model) => `(SELECT count(*) FROM ${quote(model)}) AS ${quote(`${model}.rows`)}`,
  ),
  ...Object.entries(AGGREGATES).map(([name, sql]) => `(${sql}) AS ${quote(name)}`),
].join(", ")}`;

export type DatabaseState = Record<string, string>;

/** Row counts and aggregates, as strings (bigints, dates and numbers compare alike on both databases). */
export async function databaseState(db: Db): Promise<DatabaseState> {
  const [row] = await db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(STATEMENT);
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : String(v)]));
}

/** The entries that differ between two states (empty when nothing changed). */
export function stateChanges(before: DatabaseState, after: DatabaseState): string[] {
  return Object.keys({ ...before, ...after })
    .filter((k) => before[k] !== after[k])
    .map((k) => `${k}: ${before[k]} -> ${after[k]}`);
}
