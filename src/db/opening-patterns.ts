// Open at an instant, by opening pattern (migration 20261126080000_opening_patterns): each zone +
// daily periods combination restaurants share is tested once per search, and a restaurant is open
// when its pattern is one of the open ones. The test of a pattern: the wall-clock time in its
// zone ("HH:MM") lies in one of its periods; a period that closes earlier than it opens runs past
// midnight; one that opens and closes at the same time is open all day (local-time.mjs).
//
// Before, every candidate restaurant's hours were read and tested in its zone: 15-20 µs a row on
// SQLite, and "open now" in Lisbon at an hour when none is open read the whole city (125,000
// restaurants at 1,000,000: 660 ms on SQLite, PostgreSQL's statement timeout). The open patterns
// are now known before the search is planned: none open answers at once, and the restaurants of
// the open ones are read from an index.
import { Prisma } from "./prisma.ts";
import type { SqlReader } from "./raw-rows.ts";
import { query, type Provider } from "./search-sql.ts";

/** The ids of the opening patterns open at `at`, in ascending order. */
export async function openPatterns(db: SqlReader, provider: Provider, at: Date): Promise<number[]> {
  const sql =
    provider === "sqlite"
      ? Prisma.sql`SELECT "id" FROM "OpeningPattern" WHERE open_pattern("timeZone", ${at.getTime()}, "periods") ORDER BY "id"`
      : Prisma.sql`SELECT o."id" FROM "OpeningPattern" o
          CROSS JOIN LATERAL (SELECT to_char(CAST(${at.toISOString()} AS TIMESTAMPTZ) AT TIME ZONE o."timeZone", 'HH24:MI') AS "time") l
          WHERE EXISTS (SELECT 1 FROM unnest(string_to_array(o."periods", ',')) AS p("period")
            CROSS JOIN LATERAL (SELECT split_part(p."period", '-', 1) AS "open", split_part(p."period", '-', 2) AS "close") x
            WHERE x."open" = x."close"
              OR (x."open" < x."close" AND x."open" <= l."time" AND l."time" < x."close")
              OR (x."close" < x."open" AND (l."time" >= x."open" OR l."time" < x."close")))
          ORDER BY o."id"`;
  return (await query<{ id: number }>(db, { id: "int" }, sql)).map((row) => row.id);
}
