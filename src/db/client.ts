// The one place that knows which database is in use. Everything else talks to `Db`, the Prisma
// client type of the SQLite variant; the PostgreSQL client has the same API and is cast once here.
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "../../generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "../../generated/postgres/client.ts";
import type { Config } from "../config.ts";
import { sqliteAdapterFactory } from "./sqlite-adapter.ts";

export type Db = SqliteClient;
export type { Prisma } from "../../generated/sqlite/client.ts";

export type DatabaseOptions = Config["database"] & {
  /** Called with each SQL statement Prisma sends (tests count them; metrics time them). */
  onQuery?: (event: { query: string; durationMs: number; startedAt?: Date }) => void;
};

export function createDb(options: DatabaseOptions): Db {
  const log = options.onQuery ? ([{ emit: "event", level: "query" }] as const) : undefined;
  const client =
    options.provider === "sqlite"
      ? new SqliteClient({ adapter: sqliteAdapterFactory(options.url, options.sqliteSynchronous), log: log as never })
      : (new PostgresClient({
          adapter: new PrismaPg({ connectionString: options.url, max: options.poolSize }),
          log: log as never,
        }) as unknown as Db);
  if (options.onQuery) {
    const onQuery = options.onQuery;
    (client as unknown as { $on(e: "query", cb: (e: { query: string; duration: number; timestamp: Date }) => void): void }).$on(
      "query",
      (e) => onQuery({ query: e.query, durationMs: e.duration, startedAt: e.timestamp }),
    );
  }
  return client;
}
