// Prisma's PostgreSQL adapter with each write's outcome told to write health, a reader of the same
// pool once Prisma opened it (the raw reads skip Prisma's query compiler), and the searches' own pool.
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import pg from "pg";
import type { DriverReader } from "../raw-rows.ts";
import type { WriteHealth } from "../health/write-health.ts";
import { RetryLaterError } from "../../contract/errors.ts";

const TIMESTAMP = 1114; // Prisma's DateTime column: timestamp(3), no zone, written as UTC

/** pg's own parsers, except that a zone-less timestamp stays text (pg would read it in the process's zone). */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMP
      ? (text: string) => text
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"],
};

/** Statements named once are parsed and planned once per pooled connection (pg keeps them). */
const MAX_NAMED_STATEMENTS = 1000;

function statementNames() {
  const names = new Map<string, string>();
  return (sql: string) => {
    let name = names.get(sql);
    if (name === undefined && names.size < MAX_NAMED_STATEMENTS) names.set(sql, (name = `gw_read_${names.size}`));
    return name; // undefined past the cap: sent unnamed (parsed each time), never wrong
  };
}

const WRITES = /^\s*(INSERT|UPDATE|DELETE|COMMIT)\b/i;

/** Runs a statement, telling `health` whether a write succeeded or why it failed. */
const tracked = (health: WriteHealth, run: (query: SqlQuery) => Promise<any>) => async (query: SqlQuery) => {
  const ticket = health.begin();
  try {
    const result = await run(query);
    if (WRITES.test(query.sql)) health.succeeded(ticket);
    return result;
  } catch (error) {
    health.failed(error, ticket);
    throw error;
  }
};

/**
 * Prisma sends COMMIT and ROLLBACK as statements and only then calls commit() or rollback(),
 * which give the pooled connection back; when the statement fails (the server went away, or
 * refused the commit) it calls neither. Each such failure would keep one connection out of the
 * pool for good, until every request waits forever. Here a failed COMMIT or ROLLBACK gives its
 * connection back itself, destroyed, since its state is unknown.
 */
function releasedOnFailure(tx: Transaction, health: WriteHealth): Transaction {
  const connection = tx as unknown as { client: pg.PoolClient; cleanup?: () => void };
  let released = false;
  const release = (error?: Error) => {
    if (released) return;
    released = true;
    connection.cleanup?.();
    connection.client.release(error ?? false);
  };
  const executeRaw = tracked(health, tx.executeRaw.bind(tx));
  return Object.assign(Object.create(tx) as Transaction, {
    queryRaw: tracked(health, tx.queryRaw.bind(tx)),
    async executeRaw(query: SqlQuery) {
      try {
        return await executeRaw(query);
      } catch (error) {
        if (query.sql === "COMMIT" || query.sql === "ROLLBACK")
          release(error instanceof Error ? error : new Error(String(error)));
        throw error;
      }
    },
    commit: async () => release(),
    rollback: async () => release(),
  });
}

function withHealth(adapter: SqlDriverAdapter, health: WriteHealth): SqlDriverAdapter {
  const startTransaction = adapter.startTransaction.bind(adapter);
  return Object.assign(Object.create(adapter) as SqlDriverAdapter, {
    queryRaw: tracked(health, adapter.queryRaw.bind(adapter)),
    executeRaw: tracked(health, adapter.executeRaw.bind(adapter)),
    async startTransaction(isolationLevel?: Parameters<SqlDriverAdapter["startTransaction"]>[0]) {
      const ticket = health.begin();
      try {
        return releasedOnFailure(await startTransaction(isolationLevel), health);
      } catch (error) {
        health.failed(error, ticket);
        throw error;
      }
    },
  });
}

type PoolOptions = { url: string; poolSize: number; poolIdleTimeoutMs: number; searchStatementTimeoutMs?: number };

/** Connections of the pool searches read from: half of DB_POOL_SIZE (the others are Prisma's). */
export const searchPoolSize = (poolSize: number) => Math.max(1, Math.floor(poolSize / 2));

/**
 * The URL with the session settings our statements rely on added to its `options` (an operator's
 * own `-c` settings in it are kept). synchronize_seqscans off: a scan of a big table that starts
 * while another runs joins it midway, so a LIMIT without ORDER BY read different rows in two
 * statements of one request (a relevance page and its counts disagreed on "the first matches").
 */
export function withSessionSettings(url: string, more: string[] = []): string {
  const parsed = new URL(url);
  const own = parsed.searchParams.get("options");
  parsed.searchParams.set("options", [own, "-c synchronize_seqscans=off", ...more].filter(Boolean).join(" "));
  return parsed.toString();
}

/** PostgreSQL's query_canceled: a statement ran past statement_timeout (or an operator cancelled it). */
const QUERY_CANCELED = "57014";

/**
 * A search statement PostgreSQL cancelled for running too long answers SERVER_BUSY (503, with
 * Retry-After), never a 500: the server would not spend more on it now.
 */
function tooLong(error: unknown): unknown {
  if ((error as { code?: unknown } | null)?.code !== QUERY_CANCELED) return error;
  return new RetryLaterError(
    "SERVER_BUSY",
    "The search took longer than the server allows for one (SEARCH_STATEMENT_TIMEOUT): narrow it (longer words, a smaller radius, fewer facets) or try again shortly.",
    1,
  );
}

/**
 * Prisma's pool (every write and read but searches), and a pool of the searches' own, whose
 * sessions cancel a statement running longer than SEARCH_STATEMENT_TIMEOUT (a safety net: a search
 * the planner misjudges, or a flood of the most expensive one, cannot hold a backend for minutes).
 * Together they open DB_POOL_SIZE connections at most (at least one each).
 */
export function postgresDriver(
  options: PoolOptions,
  health: WriteHealth,
): {
  factory: SqlDriverAdapterFactory;
  readRows: DriverReader;
  writeRows: DriverReader;
  readSearchRows: DriverReader;
  close(): Promise<void>;
} {
  // pg-pool closes a connection idle for 10 s by default: after a lull, the next burst opened new
  // backends with cold caches and no prepared statements (DB_POOL_IDLE_TIMEOUT; 0 keeps them).
  const searchConnections = searchPoolSize(options.poolSize);
  const inner = new PrismaPg({
    connectionString: withSessionSettings(options.url),
    max: Math.max(1, options.poolSize - searchConnections),
    idleTimeoutMillis: options.poolIdleTimeoutMs,
  });
  const timeout = options.searchStatementTimeoutMs
    ? [`-c statement_timeout=${Math.ceil(options.searchStatementTimeoutMs)}`]
    : [];
  // Searches are named prepared statements: after five runs on a connection PostgreSQL may switch
  // to a generic plan, blind to the values that decide a search's plan (how common its words are,
  // how wide its circle): docs/performance.md#why-the-database-layer-reads-as-it-does.
  const customPlans = ["-c plan_cache_mode=force_custom_plan"];
  // No parallel workers: a search's statement runs on its one connection, so the fair share of
  // connections bounds the cores one client holds; and a worker's start cost more than the short
  // scans it split (a sample read from an index alone: ~1.5 ms of work, 17-48 ms with 2 workers).
  const serial = ["-c max_parallel_workers_per_gather=0"];
  const searchPool = new pg.Pool({
    connectionString: withSessionSettings(options.url, [...timeout, ...customPlans, ...serial]),
    max: searchConnections,
    idleTimeoutMillis: options.poolIdleTimeoutMs,
  });
  // A connection that fails while idle (the server restarted) leaves the pool; the next search
  // opens another. Without a listener, pg's "error" event would end the process.
  searchPool.on("error", () => undefined);
  let pool: pg.Pool | undefined;
  const factory = {
    provider: inner.provider,
    adapterName: inner.adapterName,
    async connect() {
      const adapter = await inner.connect();
      pool = (adapter as unknown as { client: pg.Pool }).client;
      return withHealth(adapter, health);
    },
    connectToShadowDb: inner.connectToShadowDb.bind(inner),
  } as SqlDriverAdapterFactory;
  const nameOf = statementNames();
  const statement = (sql: string, args: readonly unknown[]): pg.QueryArrayConfig => ({
    name: nameOf(sql),
    text: sql,
    values: [...args],
    types,
    rowMode: "array",
  });
  const rowsOf = (result: pg.QueryArrayResult) => ({
    names: result.fields.map((field) => field.name),
    rows: result.rows,
  });
  const read: DriverReader = (sql, args) => pool?.query(statement(sql, args)).then(rowsOf);
  // A statement whose plan no value changes (planOnce) runs on a generic plan, planned at its first
  // run on a connection: planning it anew for each value was work for nothing (docs/performance.md,
  // "Renewed beside the searches, and planned once"). Each search connection switches
  // plan_cache_mode only when the kind of statement differs from its last one.
  const planningOnce = new WeakSet<pg.PoolClient>();
  const searches: DriverReader = async (sql, args, options) => {
    const once = options?.planOnce === true;
    const client = await searchPool.connect();
    try {
      if (planningOnce.has(client) !== once) {
        await client.query(`SET plan_cache_mode = ${once ? "force_generic_plan" : "force_custom_plan"}`);
        if (once) planningOnce.add(client);
        else planningOnce.delete(client);
      }
      const rows = rowsOf(await client.query(statement(sql, args)));
      client.release();
      return rows;
    } catch (error) {
      client.release(error as Error); // as pg's pool.query: a connection that failed a statement is not reused
      throw error;
    }
  };
  return {
    factory,
    readRows: read,
    // A statement that writes on its own (autocommit: it commits when it ends), told to `health`
    // as Prisma's statements are.
    writeRows: (sql, args) => {
      if (!pool) return undefined;
      const ticket = health.begin();
      return read(sql, args)!.then(
        (rows) => (health.succeeded(ticket), rows),
        (error) => (health.failed(error, ticket), Promise.reject(error)),
      );
    },
    readSearchRows: (sql, args, options) =>
      searches(sql, args, options)?.catch((error) => Promise.reject(tooLong(error))),
    close: () => searchPool.end(),
  };
}
