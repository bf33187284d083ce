// SQLite as this service uses it: Prisma over the queued driver (driver.ts), raw reads on the same
// connection, and searches in reader threads (readers.ts) so a long one never holds the event loop.
import type { DialectModule } from "../db.ts";
import { insertRatedComment } from "./comment-insert.ts";
import { sqliteSearch } from "./search/engine.ts";
import { prismaClient, type Prisma } from "../prisma.ts";
import { rowsThroughPrisma, timedReader } from "../raw-rows.ts";
import { sqliteDriver } from "./driver.ts";
import { sqliteFilePath } from "./file.ts";
import { createSqliteReaders } from "./readers.ts";

/** The statement's text with SQLite's `?` placeholders. */
const text = (sql: Prisma.Sql) => sql.sql;

export const sqliteDialect: DialectModule = {
  sql: { search: sqliteSearch, json: { aggregate: "json_group_array", array: "json_array" }, insertRatedComment },
  open(options, writeHealth) {
    const driver = sqliteDriver(options.url, options.sqliteSynchronous, writeHealth);
    const prisma = prismaClient("sqlite", driver.factory, options.onQuery);
    const onConnection = timedReader(driver.readRows, text, options.onQuery);
    // Until Prisma opened the connection, reads go through Prisma (which opens it).
    const read = (sql: Prisma.Sql) => onConnection(sql) ?? rowsThroughPrisma(prisma, sql);
    const file = sqliteFilePath(options.url);
    // An in-memory database has no file for reader threads to open.
    const readers =
      options.sqliteReaders && file !== ":memory:" ? createSqliteReaders(file, options.sqliteReaders) : undefined;
    const onReaders = readers && timedReader((sql, args) => readers.read(sql, args), text, options.onQuery);
    return {
      prisma,
      read,
      readSearch: onReaders ? (sql) => onReaders(sql)! : read,
      writeReturning: (sql) => rowsThroughPrisma(prisma, sql),
      close: async () => {
        await Promise.all([readers?.close(), prisma.$disconnect()]);
      },
    };
  },
};
