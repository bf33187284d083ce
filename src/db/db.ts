// What the rest of the service holds of its database: `Db`, one object per database, made by
// createDb (client.ts) for the dialect its URL names. Prisma's client does every write and the
// reads that have no SQL of their own; the raw reads and the searches read through `read` and
// `readSearch`; what differs between SQLite and PostgreSQL is behind `sql`, implemented once per
// dialect (src/db/sqlite/, src/db/postgres/).
import type { Config, SearchLimits } from "../config.ts";
import type { Dialect } from "./dialect.ts";
import type { WriteFailure, WriteHealth } from "./health/write-health.ts";
import type { Prisma, PrismaClient, QueryListener } from "./prisma.ts";
import type { RawRows, SqlReader } from "./raw-rows.ts";
import type { CommentWithAuthor, NewComment } from "./rows.ts";
import type { RecentEstimates, SearchEngine } from "./search-plan.ts";

export type DatabaseOptions = Config["database"] & {
  /** Called with each SQL statement sent (tests count them; metrics time them). */
  onQuery?: QueryListener;
};

export type Db = SqlReader & {
  /** Prisma's client: every write, and every read that is not SQL of ours. */
  readonly prisma: PrismaClient;
  readonly dialect: Dialect;
  /** The SQL that differs between the databases, implemented by this one's dialect. */
  readonly sql: DialectSql;
  /** What a search reads at most, and how it chooses how to read (the settings'). */
  readonly searchLimits: SearchLimits;
  /**
   * Runs one statement that writes and answers rows (INSERT ... RETURNING, a data-changing WITH),
   * its outcome told to `writeHealth`.
   */
  writeReturning(sql: Prisma.Sql): Promise<RawRows>;
  /** Whether writes currently succeed on this database (health/write-health.ts). */
  readonly writeHealth: WriteHealth;
  /** With a write failure on record, tries a write that keeps nothing; answers the failure still on record (null: writes work). */
  checkWrites(): Promise<WriteFailure | null>;
  /** The stored counts searches were planned by lately, reused for a few seconds (search/stored-counts.ts). */
  readonly recentCounts: RecentCounts;
  /** The estimates searches answered lately, reused by the same search for a few seconds (search/recent-estimates.ts). */
  readonly recentEstimates: RecentEstimates;
  /** Closes every connection (and SQLite's reader threads). */
  close(): Promise<void>;
};

/** `read()`'s counts for `key`, read again once older than the age given; a failed read is not kept (search/stored-counts.ts). */
export type RecentCounts = (key: string, read: () => Promise<Map<string, number>>) => Promise<Map<string, number>>;

/** What a dialect opens for createDb: Prisma's client, and the readers of its connections. */
export type OpenDatabase = SqlReader & {
  prisma: PrismaClient;
  writeReturning(sql: Prisma.Sql): Promise<RawRows>;
  close(): Promise<void>;
};

/** The names of the JSON functions that fold a restaurant's list into its row (reads/related.ts). */
export type JsonFunctions = { aggregate: string; array: string };

/** The SQL that differs between the databases (all else is written once, read alike by both). */
export type DialectSql = {
  search: SearchEngine;
  json: JsonFunctions;
  /**
   * Adds a comment (`id` and `at` given) and its rating to its restaurant's totals, by column
   * arithmetic, atomically; the comment with its author, or null when the restaurant does not
   * exist (nothing changed).
   */
  insertRatedComment(db: Db, comment: NewComment & { id: string; at: string }): Promise<CommentWithAuthor | null>;
};

/** What each dialect folder implements. */
export type DialectModule = {
  open(options: DatabaseOptions, writeHealth: WriteHealth): OpenDatabase;
  sql: DialectSql;
};
