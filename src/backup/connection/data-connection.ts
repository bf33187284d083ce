// What the data commands (backup, restore, copy-data) ask of a database: one interface, one
// implementation per database (sqlite/, postgres/), chosen once from the URL (open.ts). Plain
// drivers, no Prisma: any table of the model is read and written generically, and values arrive
// as the database stores them (dates as text, 64-bit integers as text or bigint), which keeps the
// checksums exact. The commands never ask which database it is.
import type { Dialect } from "../../db/dialect.ts";
import type { Progress } from "../progress.ts";

/** How a column's values are compared and written on either database. */
export type ColumnType = "text" | "int" | "bigint" | "float" | "bool" | "datetime" | "bytes" | "json";

/** A value in the one form both databases' values are compared in (values.ts). */
export type Canonical = string | number | boolean | null;

export type Column = { name: string; type: ColumnType };

export type TableSpec = {
  name: string;
  /** Sorted by name: the order values are hashed in, whatever order each database keeps. */
  columns: Column[];
  /** In the key's own order; batches are read in this order. */
  primaryKey: string[];
};

/** A table as the database's catalogue describes it. */
export type CatalogueTable = {
  columns: { name: string; declared: string; generated: boolean; enumType: boolean }[];
  primaryKey: string[];
  /** The tables its foreign keys refer to. */
  references: string[];
};

/** A table, view, function, sequence or type (PostgreSQL); a table, view, trigger or index (SQLite). */
export type DbObject = {
  kind: string;
  /** As people read it: schema-qualified when not in the gateway's schema. */
  name: string;
  /** The name a DROP statement takes (with a function's argument types, on PostgreSQL). */
  identity?: string;
  /** Its schema, and its name alone (PostgreSQL). */
  schema?: string;
  bare?: string;
};

/** An object found in the database; `here`: in the schema the gateway uses. */
export type FoundObject = { object: DbObject; here: boolean };

export type DataConnection = {
  dialect: Dialect;
  /** Where it points, without a password (for messages and manifests). */
  label: string;
  /** Rows as arrays, in the order of the SELECT's columns, with this database's placeholders. */
  rows(sql: string, params?: readonly unknown[]): Promise<unknown[][]>;
  run(sql: string, params?: readonly unknown[]): Promise<void>;
  /**
   * Every row of a SELECT, `batchRows` at a time, in whatever order the database reads them
   * fastest (a table scan: no index lookup per row). Nothing else may run on the connection
   * until the scan ends.
   */
  scan(sql: string, batchRows: number): AsyncGenerator<unknown[][]>;
  /** Statements run inside `work` commit together, or not at all. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** Starts a read-only transaction: every read until `endSnapshot` sees the database as it was now. */
  beginSnapshot(): Promise<void>;
  endSnapshot(): Promise<void>;
  close(): Promise<void>;

  /** The placeholder of the statement's parameter `index` (0-based). */
  placeholder(index: number): string;
  /** A canonical value in the form this database stores for the column type. */
  storable(type: ColumnType, value: Canonical): unknown;
  /** The table as the catalogue has it; undefined when there is no such table. */
  describeTable(name: string): Promise<CatalogueTable | undefined>;
  hasTable(name: string): Promise<boolean>;
  /** Every object of the database but the database's own (ownership.ts sorts them). */
  objects(): Promise<FoundObject[]>;
  /** Rows whose foreign key names no row; undefined where the database checks them on every write. */
  foreignKeyViolations(): Promise<number | undefined>;
  /** Writes canonical rows into `spec`'s table, a batch per call. */
  inserter(spec: TableSpec): Promise<(rows: Canonical[][]) => Promise<void>>;
  /** Readies the database for copy-data's batches; returns the tables (parents first) in the order to fill them. */
  beginBulkLoad(specs: TableSpec[]): Promise<TableSpec[]>;
  /** After a bulk load: what the database needs to read the new rows well (planner statistics). */
  endBulkLoad(): Promise<void>;
};

export type OpenOptions = {
  /** A missing database is refused instead of created (a source, a backup). */
  mustExist?: boolean;
  /** Opened read-only (a backup's own file, which must not change). */
  readonly?: boolean;
};

/** What backup writes of the database, besides what `read` found in the same snapshot. */
export type DatabaseCopy = {
  snapshotAt: Date;
  format: string;
  tool: string;
  /** The schema the gateway's objects were in (PostgreSQL). */
  schema?: string;
  /** Another program's objects, left out; undefined: those `foreign` named. */
  leftOut?: DbObject[];
};

/** Backup's copy of the database, prepared before the backup folder is touched (its tools found). */
export type DatabaseBackup = {
  /**
   * Writes the database into `file` from one snapshot, which `read` reads too: the file and what
   * `read` returns (the manifest's checksums) describe the same data.
   */
  write<T>(
    request: { url: string; file: string; foreign: DbObject[]; progress: Progress },
    read: (snapshot: DataConnection) => Promise<T>,
  ): Promise<DatabaseCopy & { read: T }>;
};

/** Restore's writing of the database, prepared while the target was looked at (read-only). */
export type DatabaseRestore = {
  /**
   * Writes the backup's database file onto the target in one transaction, keeping another
   * program's objects; returns the backup's entries that were left out (not the gateway's).
   */
  write(backupFile: string, schema: string | undefined, progress: Progress): Promise<string[]>;
  /** After a failure: removes what `write` created (a new database file, its folders). */
  undo(): void;
};

/** The target of a restore as it was looked at: absent (`conn` undefined), or open read-only. */
export type RestoreTarget = { conn?: DataConnection; gateway: DbObject[]; foreign: DbObject[] };

/** One database's implementation, for what is asked before (or without) a connection. */
export type DataDialect = {
  name: Dialect;
  open(url: string, options: OpenOptions): Promise<DataConnection>;
  /** The URL names a database that does not exist yet (opening it creates it): nothing to look at. */
  isNew(url: string): boolean;
  sameDatabase(a: string, b: string): boolean;
  /** The URL without its password, for messages. */
  redact(url: string): string;
  /** A URL the driver can take (`--to` is checked before anything runs). */
  parses(url: string): boolean;
  prepareBackup(source: DataConnection): Promise<DatabaseBackup>;
  /** Refuses a target restore cannot write into (another program's objects that depend on the gateway's). */
  prepareRestore(url: string, target: RestoreTarget): Promise<DatabaseRestore>;
  /** Said of a backup of this database when the target is the other one. */
  restoreElsewhere(dir: string): string;
};

/** Refused before anything is read or written (exit code 1): a database that cannot be used. */
export class DatabaseUnusable extends Error {}

export const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;
