// Recognises database outcomes the domain answers on purpose (not as 500s).

/** A unique constraint refused the write (Prisma P2002), on either database. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

/** The row to update or delete was not there (Prisma P2025). */
export function isRecordNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2025";
}

/** A foreign key refused the write (Prisma P2003): the row it points at does not exist (any more). */
export function isForeignKeyViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2003";
}
