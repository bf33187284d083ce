// Reports: users flag a restaurant or grocery; admins list and resolve them.
// One report per reporter and target, enforced by a unique constraint: a repeat (even one that
// races the first) answers the existing report with `created: false` and changes nothing.
import { z } from "zod";
import type { Db } from "../../db/db.ts";
import type { EventBus } from "../../events/bus.ts";
import { notFound } from "../../contract/errors.ts";
import { countedConnection, type PageArgs } from "../pagination.ts";
import { isUniqueViolation } from "../prisma-errors.ts";
import type { Viewer } from "../accounts/tokens.ts";
import { checkId, optionalText, requiredText } from "../text.ts";
import { parseInput } from "../validation.ts";

export type ReportTargetKind = "RESTAURANT" | "GROCERY";
export type ReportStatus = "OPEN" | "RESOLVED";

export const reportInput = z.object({
  reasonType: requiredText("reasonType", 100),
  reasonBody: optionalText("reasonBody", 5000)
    .nullish()
    .transform((body) => body ?? ""),
});

/** The admin's note, stored as sent; blank means none (null). */
const resolutionInput = optionalText("resolution", 2000)
  .nullish()
  .transform((note) => (note?.trim() ? note : null));

async function targetExists(db: Db, kind: ReportTargetKind, id: string): Promise<boolean> {
  const row =
    kind === "RESTAURANT"
      ? await db.prisma.restaurant.findUnique({ where: { id }, select: { id: true } })
      : await db.prisma.grocery.findUnique({ where: { id }, select: { id: true } });
  return row !== null;
}

/** Files the report (announced to admins once committed); a repeat changes and announces nothing. */
export async function report(
  db: Db,
  events: EventBus,
  viewer: Viewer,
  targetKind: ReportTargetKind,
  targetId: string,
  input: unknown,
) {
  const data = parseInput(reportInput, input);
  checkId(targetId, "id");
  if (!(await targetExists(db, targetKind, targetId)))
    throw notFound(targetKind === "RESTAURANT" ? "restaurant" : "grocery", targetId);
  const key = { reporterId_targetKind_targetId: { reporterId: viewer.id, targetKind, targetId } };
  const existing = await db.prisma.report.findUnique({ where: key });
  if (existing) return { report: existing, created: false };
  try {
    const created = await db.prisma.report.create({ data: { reporterId: viewer.id, targetKind, targetId, ...data } });
    events.publish({ topic: "reportFiled", reportId: created.id });
    return { report: created, created: true };
  } catch (error) {
    // An identical report won the race between our look-up and insert: answer that one.
    if (isUniqueViolation(error))
      return { report: await db.prisma.report.findUniqueOrThrow({ where: key }), created: false };
    throw error;
  }
}

export type ReportFilter = { status?: ReportStatus | null; targetKind?: ReportTargetKind | null };

/** Reports, oldest first (the id breaks ties within a millisecond). Callers check the admin role. */
export async function listReports(db: Db, filter: ReportFilter, page: PageArgs) {
  const where = {
    ...(filter.status === "OPEN"
      ? { resolvedAt: null }
      : filter.status === "RESOLVED"
        ? { resolvedAt: { not: null } }
        : {}),
    ...(filter.targetKind ? { targetKind: filter.targetKind } : {}),
  };
  return countedConnection(
    page,
    () => db.prisma.report.count({ where }),
    (window) => db.prisma.report.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }], ...window }),
  );
}

/** Reports by id (node(id:)). Callers check the admin role, as for the list. */
export const reportsByIds = (db: Db, ids: string[]) => db.prisma.report.findMany({ where: { id: { in: ids } } });

/**
 * Marks a report as dealt with. The first resolution stands: resolving an already resolved
 * report changes nothing (not its time, its admin or its note) and answers it as it is, so a
 * retried or doubled call is harmless and the record shows who dealt with it first.
 */
export async function resolveReport(db: Db, admin: Viewer, id: string, resolution: unknown) {
  const note = parseInput(resolutionInput, resolution);
  checkId(id, "id");
  // The `resolvedAt: null` condition makes "resolve if still open" one atomic statement.
  await db.prisma.report.updateMany({
    where: { id, resolvedAt: null },
    data: { resolvedAt: new Date(), resolvedById: admin.id, resolution: note },
  });
  const row = await db.prisma.report.findUnique({ where: { id } });
  if (!row) throw notFound("report", id);
  return row;
}

export const reportStatus = (row: { resolvedAt: Date | null }): ReportStatus => (row.resolvedAt ? "RESOLVED" : "OPEN");
