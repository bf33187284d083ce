// Recognises the database failures that are the server's condition, not the request's fault:
// storage full, database files not writable, database server unreachable. They answer 507 or 503
// (src/domain/prisma-errors.ts), never 500. Errors arrive in many wrappings: better-sqlite3's
// SqliteError, pg's errors, Node's socket errors, Prisma's driver-adapter errors and its
// client errors around them; the codes are looked for along the whole chain.

/** STORAGE_FULL: no room left to write. UNAVAILABLE: the database cannot be written or reached now. */
export type DatabaseFailure = "STORAGE_FULL" | "UNAVAILABLE";

const FULL_CODES = new Set(["SQLITE_FULL", "53100" /* PostgreSQL disk_full */, "ENOSPC"]);

const UNAVAILABLE_CODES = new Set([
  // Prisma: can't reach, timed out reaching, database missing, timeout, connection closed,
  // pool timeout, too many connections, and a transaction that could not start or ran out of
  // time (P2028: under load, writes waiting for a connection; the write was not kept).
  "P1001",
  "P1002",
  "P1003",
  "P1008",
  "P1017",
  "P2024",
  "P2037",
  "P2028",
  // PostgreSQL's codes for a server shut down by an administrator or a crash, starting up, too many
  // connections, out of memory, database missing, read-only (a standby).
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "53200",
  "3D000",
  "25006",
  // Node sockets.
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EROFS",
  "EACCES",
  "EPERM",
]);

/** Prisma's driver-adapter kinds for a connection that is not there. */
const UNAVAILABLE_KINDS = new Set([
  "DatabaseNotReachable",
  "DatabaseDoesNotExist",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);

// SQLite's codes for a file that cannot be written (read-only, immutable, moved), failed I/O, a file
// that cannot be opened, or a lock not had in time.
const SQLITE_UNAVAILABLE = /^SQLITE_(READONLY|IOERR|CANTOPEN|BUSY|LOCKED|PERM|NOMEM|PROTOCOL)(_|$)/;

const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/, // pg: the server went away mid-query, or the connect timed out
  /^timeout exceeded when trying to connect/, // pg-pool
  /^Client has encountered a connection error and is not queryable/, // pg
];

// Prisma, after a COMMIT failed: its clean-up rollback is refused, and that error replaces the
// COMMIT's own. A COMMIT fails for the server's reasons (the write was not kept), never the input's.
const FAILED_COMMIT = /A rollback cannot be executed on a committed transaction/;

function classifyOne(node: Record<string, unknown>, recent: DatabaseFailure | undefined): DatabaseFailure | null {
  for (const key of ["code", "originalCode"]) {
    const code = node[key];
    if (typeof code !== "string") continue;
    if (FULL_CODES.has(code)) return "STORAGE_FULL";
    if (UNAVAILABLE_CODES.has(code) || SQLITE_UNAVAILABLE.test(code) || (code.length === 5 && code.startsWith("08")))
      return "UNAVAILABLE";
  }
  if (typeof node.kind === "string" && UNAVAILABLE_KINDS.has(node.kind)) return "UNAVAILABLE";
  const message = node.message;
  if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message)))
    return "UNAVAILABLE";
  if (typeof message === "string" && FAILED_COMMIT.test(message)) return recent ?? "UNAVAILABLE";
  return null;
}

/**
 * What kind of server-side database failure `error` is, or null if it is none (e.g. a unique
 * violation). `recent`: the failure the driver recorded last (write-health.ts), which tells why a
 * COMMIT failed when Prisma's error no longer says.
 */
export function databaseFailure(error: unknown, recent?: DatabaseFailure): DatabaseFailure | null {
  let found: DatabaseFailure | null = null;
  const seen = new Set<unknown>();
  const visit = (node: unknown, depth: number) => {
    if (found === "STORAGE_FULL" || depth > 6 || typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    const record = node as Record<string, unknown>;
    const here = classifyOne(record, recent);
    if (here === "STORAGE_FULL" || (here && !found)) found = here;
    // Where the wrapped errors sit: Error.cause, Prisma's meta.driverAdapterError, GraphQL's
    // originalError, AggregateError's errors.
    visit(record.cause, depth + 1);
    visit((record.meta as Record<string, unknown> | undefined)?.driverAdapterError, depth + 1);
    visit(record.originalError, depth + 1);
    if (Array.isArray(record.errors)) for (const inner of record.errors) visit(inner, depth + 1);
  };
  visit(error, 0);
  return found;
}
