// Case-insensitive "title contains" that treats every character literally, on both databases.
// Prisma turns `contains` into LIKE without escaping its wildcards (prisma/orm#19506, #23611), so a
// search for "%" would match everything. Keys holding %, _ or \ are matched with a plain
// substring test instead, in SQL both databases read the same way. (Rare input: the id list it
// returns is only as long as the matches.)
import { Prisma } from "../../generated/sqlite/client.ts";
import type { Db } from "../db/client.ts";

const LIKE_WILDCARDS = /[%_\\]/;

/** A where-clause on the lower-cased `titleSearch` column of `table` for a lower-cased key. */
export async function titleContains(db: Db, table: "Restaurant" | "Grocery", key: string) {
  if (!LIKE_WILDCARDS.test(key)) return { titleSearch: { contains: key } };
  const rows = await db.$queryRaw<{ id: string }[]>(
    Prisma.sql`SELECT "id" FROM ${Prisma.raw(`"${table}"`)} WHERE length(replace("titleSearch", ${key}, '')) < length("titleSearch")`,
  );
  return { id: { in: rows.map((r) => r.id) } };
}
