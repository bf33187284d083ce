// createDb: the database a service, a command or a test talks to, for the dialect its settings
// name. The one place that picks a dialect's implementation (DIALECTS); everything else holds a
// `Db` (db.ts) and never asks which database it is.
import { randomUUID } from "node:crypto";
import type { Dialect } from "./dialect.ts";
import type { DatabaseOptions, Db, DialectModule } from "./db.ts";
import { WriteHealth } from "./health/write-health.ts";
import { postgresDialect } from "./postgres/dialect.ts";
import { DEFAULT_SEARCH_LIMITS } from "../config.ts";
import { createRecentCounts } from "./search/stored-counts.ts";
import { createRecentEstimates } from "./search/recent-estimates.ts";
import { sqliteDialect } from "./sqlite/dialect.ts";

const DIALECTS: Record<Dialect, DialectModule> = { sqlite: sqliteDialect, postgres: postgresDialect };

/** ~16 KB: enough that the probe needs new pages and log space, as a real write does. */
const PROBE_PADDING = "x".repeat(16 * 1024);

export function createDb(options: DatabaseOptions): Db {
  const dialect = DIALECTS[options.dialect];
  const writeHealth = new WriteHealth();
  const { prisma, read, readSearch, writeReturning, close } = dialect.open(options, writeHealth);
  const searchLimits = options.search ?? DEFAULT_SEARCH_LIMITS;
  return {
    prisma,
    dialect: options.dialect,
    sql: dialect.sql,
    searchLimits,
    read,
    readSearch,
    writeReturning,
    writeHealth,
    // The probe adds a row to Prisma's migration table and removes it in the same transaction:
    // nobody ever sees it (readers of that table also skip rows without `finished_at`), yet it
    // needs room to write like any real write, which a statement that changes nothing would not.
    checkWrites: () =>
      writeHealth.check(async () => {
        const id = randomUUID();
        await prisma.$transaction([
          prisma.$executeRaw`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, logs) VALUES (${id}, '', 'readiness write probe', ${PROBE_PADDING})`,
          prisma.$executeRaw`DELETE FROM "_prisma_migrations" WHERE id = ${id}`,
        ]);
      }),
    recentCounts: createRecentCounts(searchLimits.planCountsMaxAgeMs),
    recentEstimates: createRecentEstimates(searchLimits.estimatesMaxAgeMs),
    close,
  };
}
