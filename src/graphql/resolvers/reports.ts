// Resolvers for reports: thin; the rules live in src/domain/reports.ts. The admin-only fields
// are guarded by @requireAuth(role: ADMIN) in schema.graphql.
import type { PageArgs } from "../../domain/pagination.ts";
import * as reports from "../../domain/reports.ts";
import type { ReportFilter, ReportTargetKind } from "../../domain/reports.ts";
import { viewerOf, type Context } from "../context.ts";
import { loadGrocery, loadRestaurant, loadUser } from "../loaders.ts";

type ReportRow = { targetKind: ReportTargetKind; targetId: string; reporterId: string; resolvedById: string | null; resolvedAt: Date | null };

export const reportsResolvers = {
  Query: {
    reports: (_: unknown, args: ReportFilter & PageArgs, ctx: Context) =>
      reports.listReports(ctx.db, { status: args.status, targetKind: args.targetKind }, args),
  },
  Mutation: {
    reportRestaurant: (_: unknown, args: { id: string; input: unknown }, ctx: Context) =>
      reports.report(ctx.db, ctx.events, viewerOf(ctx), "RESTAURANT", args.id, args.input),
    reportGrocery: (_: unknown, args: { id: string; input: unknown }, ctx: Context) =>
      reports.report(ctx.db, ctx.events, viewerOf(ctx), "GROCERY", args.id, args.input),
    resolveReport: (_: unknown, args: { id: string; resolution?: string | null }, ctx: Context) =>
      reports.resolveReport(ctx.db, viewerOf(ctx), args.id, args.resolution),
  },
  Report: {
    status: (report: ReportRow) => reports.reportStatus(report),
    // Null when the target is of the other kind or has been removed since.
    restaurant: (report: ReportRow, _: unknown, ctx: Context) =>
      report.targetKind === "RESTAURANT" ? loadRestaurant(ctx, report.targetId) : null,
    grocery: (report: ReportRow, _: unknown, ctx: Context) =>
      report.targetKind === "GROCERY" ? loadGrocery(ctx, report.targetId) : null,
    reporter: (report: ReportRow, _: unknown, ctx: Context) => loadUser(ctx, report.reporterId),
    resolvedBy: (report: ReportRow, _: unknown, ctx: Context) => (report.resolvedById ? loadUser(ctx, report.resolvedById) : null),
  },
};
