// The one place that imports the generated Prisma clients. Both come from one schema and one
// runtime, so they have the same API and the same `Prisma` namespace (model types, the SQL
// template helpers): the SQLite client's types serve both databases.
import { PrismaClient as SqliteClient } from "../../generated/sqlite/client.ts";
import { PrismaClient as PostgresClient } from "../../generated/postgres/client.ts";
import type { SqlDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import type { Dialect } from "./dialect.ts";

export { Prisma } from "../../generated/sqlite/client.ts";
export type PrismaClient = SqliteClient;

/** Told of each SQL statement sent (tests count them; metrics time them). */
export type QueryListener = (event: { query: string; durationMs: number; startedAt?: Date }) => void;

/**
 * Columns the database derives for its own searches, left out of every row Prisma returns (as
 * `RestaurantRow` leaves them out): a restaurant's opening pattern.
 */
const DERIVED_FIELDS = { restaurant: { openingPattern: true } } as const;

type ClientOptions = ConstructorParameters<typeof SqliteClient>[0];
const CLIENTS: Record<Dialect, new (options: ClientOptions) => PrismaClient> = {
  sqlite: SqliteClient,
  // The same API but for $transaction's isolation levels, where PostgreSQL's client takes more.
  postgres: PostgresClient as unknown as typeof SqliteClient,
};

/** A Prisma client over a driver adapter; with `onQuery`, told of each statement Prisma sends. */
export function prismaClient(
  dialect: Dialect,
  adapter: SqlDriverAdapterFactory,
  onQuery: QueryListener | undefined,
): PrismaClient {
  const log = onQuery ? ([{ emit: "event", level: "query" }] as const) : undefined;
  const client = new CLIENTS[dialect]({ adapter, log: log as never, omit: DERIVED_FIELDS });
  if (onQuery) {
    (
      client as unknown as {
        $on(e: "query", cb: (e: { query: string; duration: number; timestamp: Date }) => void): void;
      }
    ).$on("query", (e) => onQuery({ query: e.query, durationMs: e.duration, startedAt: e.timestamp }));
  }
  return client;
}
