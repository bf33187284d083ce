// Recognises database outcomes the domain answers on purpose (not as 500s).
import { databaseFailure, type DatabaseFailure } from "../db/health/failures.ts";
import { DomainError } from "../contract/errors.ts";

/** A unique constraint refused the write (Prisma P2002), on either database. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

/** The row to update or delete was not there (Prisma P2025). */
export function isRecordNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2025";
}

/**
 * A foreign key refused the write: the row it points at does not exist (any more). Through Prisma's
 * API it is P2003; a statement sent straight to PostgreSQL's driver fails with SQLSTATE 23503; a raw
 * statement on SQLite with P2010 naming the driver's ForeignKeyConstraintViolation.
 */
export function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, meta } = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  return (
    code === "P2003" ||
    code === "23503" ||
    (code === "P2010" && meta?.driverAdapterError?.cause?.kind === "ForeignKeyConstraintViolation")
  );
}

/**
 * The database cannot do this now for the server's reasons (storage full, files not writable,
 * server unreachable): a STORAGE_FULL or SERVICE_UNAVAILABLE error for the client, or null.
 * `recent`: the failure the driver recorded last (see src/db/health/failures.ts).
 */
export function databaseUnavailable(error: unknown, recent?: DatabaseFailure): DomainError | null {
  if (error instanceof DomainError) return null;
  switch (databaseFailure(error, recent)) {
    case "STORAGE_FULL":
      return new DomainError(
        "STORAGE_FULL",
        "The server's storage is full: the change was not saved. Try again later.",
      );
    case "UNAVAILABLE":
      return new DomainError("SERVICE_UNAVAILABLE", "The database is unavailable right now. Try again shortly.");
    default:
      return null;
  }
}
