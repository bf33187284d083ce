// Resolvers for reports: thin; the rules live in src/domain/catalogue/reports.ts. The admin-only fields
// are guarded by @requireAuth(role: ADMIN) in schema.graphql.
import * as reports from "../../../domain/catalogue/reports.ts";
import type { Resolvers } from "../../__generated__/resolvers.ts";
import { viewerOf } from "../../data/context.ts";
import { loadGrocery, loadRestaurant, loadUser, referenced } from "../../data/loaders.ts";

export const reportsResolvers: Resolvers = {
  Query: {
    reports: (_, args, ctx) => reports.listReports(ctx.db, { status: args.status, targetKind: args.targetKind }, args),
  },
  Mutation: {
    reportRestaurant: (_, args, ctx) =>
      reports.report(ctx.db, ctx.events, viewerOf(ctx), "RESTAURANT", args.id, args.input),
    reportGrocery: (_, args, ctx) => reports.report(ctx.db, ctx.events, viewerOf(ctx), "GROCERY", args.id, args.input),
    resolveReport: (_, args, ctx) => reports.resolveReport(ctx.db, viewerOf(ctx), args.id, args.resolution),
  },
  Report: {
    status: (report) => reports.reportStatus(report),
    // Null when the target is of the other kind or has been removed since.
    restaurant: (report, _, ctx) => (report.targetKind === "RESTAURANT" ? loadRestaurant(ctx, report.targetId) : null),
    grocery: (report, _, ctx) => (report.targetKind === "GROCERY" ? loadGrocery(ctx, report.targetId) : null),
    reporter: (report, _, ctx) => referenced(loadUser(ctx, report.reporterId)),
    resolvedBy: (report, _, ctx) => (report.resolvedById ? loadUser(ctx, report.resolvedById) : null),
  },
};
