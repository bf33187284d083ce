// PostgreSQL as this service uses it: Prisma's pool (every write, every bounded read, as named
// prepared statements) and the searches' own pool, shared fairly between clients (driver.ts).
import type { DialectModule } from "../db.ts";
import { insertRatedComment } from "./comment-insert.ts";
import { postgresSearch } from "./search/engine.ts";
import { prismaClient, type Prisma } from "../prisma.ts";
import { rowsThroughPrisma, timedReader } from "../raw-rows.ts";
import { clientShare, createFairShare } from "../share/fair-share.ts";
import { currentRequester } from "../share/requester.ts";
import { postgresDriver, searchPoolSize } from "./driver.ts";

/** The statement's text with PostgreSQL's `$n` placeholders. */
const text = (sql: Prisma.Sql) => sql.text;

export const postgresDialect: DialectModule = {
  sql: { search: postgresSearch, json: { aggregate: "json_agg", array: "json_build_array" }, insertRatedComment },
  open(options, writeHealth) {
    const driver = postgresDriver(options, writeHealth);
    const prisma = prismaClient("postgres", driver.factory, options.onQuery);
    const onPool = timedReader(driver.readRows, text, options.onQuery);
    // Until Prisma opened its pool, reads go through Prisma (which opens it).
    const read = (sql: Prisma.Sql) => onPool(sql) ?? rowsThroughPrisma(prisma, sql);
    const onSearchPool = timedReader(driver.readSearchRows, text, options.onQuery);
    const writeOnPool = timedReader(driver.writeRows, text, options.onQuery);
    // One client holds at most half of the searches' pool and of the cores (clientShare): one client
    // flooding the most expensive search leaves connections and CPU for everyone else's.
    const size = searchPoolSize(options.poolSize);
    const searches = createFairShare(size, clientShare(size));
    return {
      prisma,
      read,
      readSearch: (sql, how) => searches.run(currentRequester(), () => onSearchPool(sql, how) ?? read(sql)),
      writeReturning: (sql) => writeOnPool(sql) ?? rowsThroughPrisma(prisma, sql),
      close: async () => {
        await Promise.all([driver.close(), prisma.$disconnect()]);
      },
    };
  },
};
