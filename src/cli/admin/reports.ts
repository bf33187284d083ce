// Report commands: list reports (open ones by default) as a table, and resolve one with a note.
// Resolving records which admin did it, so it is done `--as` a named admin account: the command
// line has no signed-in user, and a made-up "system" admin would hide who dealt with the report.
import type { Db } from "../../db/db.ts";
import { DomainError } from "../../contract/errors.ts";
import { listReports, reportStatus, resolveReport, type ReportTargetKind } from "../../domain/catalogue/reports.ts";
import { MAX_PAGE_SIZE } from "../../domain/pagination.ts";
import { userNamed } from "./accounts.ts";
import { UsageError, wholeNumber, type Command } from "./command.ts";
import { formatTable, shortTime } from "./table.ts";

const KINDS: Record<string, ReportTargetKind> = { restaurant: "RESTAURANT", grocery: "GROCERY" };

type ReportRow = Awaited<ReturnType<typeof listReports>>["nodes"][number];

/** Titles of the reported restaurants and groceries, and the usernames involved, in three queries. */
async function namesFor(db: Db, reports: ReportRow[]) {
  const ids = (kind: ReportTargetKind) => reports.filter((r) => r.targetKind === kind).map((r) => r.targetId);
  const userIds = reports.flatMap((r) => [r.reporterId, r.resolvedById]).filter((id): id is string => id !== null);
  const [restaurants, groceries, users] = await Promise.all([
    db.prisma.restaurant.findMany({ where: { id: { in: ids("RESTAURANT") } }, select: { id: true, title: true } }),
    db.prisma.grocery.findMany({ where: { id: { in: ids("GROCERY") } }, select: { id: true, title: true } }),
    db.prisma.user.findMany({ where: { id: { in: [...new Set(userIds)] } }, select: { id: true, username: true } }),
  ]);
  const titles = new Map([...restaurants, ...groceries].map((t) => [t.id, t.title]));
  const usernames = new Map(users.map((u) => [u.id, u.username]));
  return {
    title: (id: string) => titles.get(id) ?? "(removed)",
    username: (id: string | null) => (id ? (usernames.get(id) ?? "(removed)") : ""),
  };
}

const list: Command = {
  name: "reports",
  args: [],
  options: {
    all: { help: "resolved reports too (default: open ones only)" },
    kind: { value: "restaurant|grocery", help: "only reports about restaurants, or about groceries" },
    limit: { value: "N", help: `how many to show, 1 to ${MAX_PAGE_SIZE} (default 50)` },
    offset: { value: "N", help: "how many to skip (the next page)" },
  },
  summary: "Lists reports, oldest first: open ones, or all with --all.",
  async run({ db, print }, input) {
    const kindName = input.options.kind;
    const targetKind = typeof kindName === "string" ? KINDS[kindName.toLowerCase()] : undefined;
    if (kindName !== undefined && !targetKind) throw new UsageError("--kind must be restaurant or grocery");
    const all = input.options.all === true;
    const first = wholeNumber(input, "limit", 50, 1, MAX_PAGE_SIZE);
    const offset = wholeNumber(input, "offset", 0, 0, 1_000_000);
    const page = await listReports(db, { status: all ? null : "OPEN", targetKind }, { first, offset });
    const what = `${all ? "" : "open "}${targetKind ? `${kindName} ` : ""}report${page.totalCount === 1 ? "" : "s"}`;
    if (page.nodes.length === 0) {
      print(
        page.totalCount === 0 ? `no ${what}` : `no ${what} after the first ${page.totalCount} (--offset ${offset})`,
      );
      return;
    }
    const names = await namesFor(db, page.nodes);
    const rows = page.nodes.map((r) => [
      r.id,
      reportStatus(r).toLowerCase(),
      r.targetKind.toLowerCase(),
      r.targetId,
      names.title(r.targetId),
      r.reasonBody ? `${r.reasonType}: ${r.reasonBody}` : r.reasonType,
      names.username(r.reporterId),
      shortTime(r.createdAt),
      ...(all ? [names.username(r.resolvedById), r.resolution ?? ""] : []),
    ]);
    print(
      formatTable(
        [
          { header: "ID" },
          { header: "STATUS" },
          { header: "KIND" },
          { header: "TARGET ID" },
          { header: "TITLE", max: 30 },
          { header: "REASON", max: 40 },
          { header: "REPORTER", max: 20 },
          { header: "CREATED (UTC)" },
          ...(all
            ? [
                { header: "RESOLVED BY", max: 20 },
                { header: "NOTE", max: 40 },
              ]
            : []),
        ],
        rows,
      ),
    );
    const shown = `${offset + 1}-${offset + page.nodes.length}`;
    print(
      page.pageInfo.hasNextPage
        ? `\n${shown} of ${page.totalCount} ${what}; the next page: --offset ${offset + page.nodes.length}`
        : `\n${page.totalCount} ${what}${offset ? ` (showing ${shown})` : ""}`,
    );
  },
};

const resolve: Command = {
  name: "resolve-report",
  args: ["report-id"],
  options: {
    as: { value: "ADMIN", required: true, help: "the admin account resolving it (recorded on the report)" },
    note: { value: "TEXT", help: "what was done (up to 2000 characters)" },
  },
  summary: "Marks a report as dealt with, with an optional note.",
  details: "The first resolution stands: resolving a resolved report changes nothing and says who resolved it.",
  async run({ db, print }, { args, options }) {
    const id = args["report-id"]!;
    const admin = await userNamed(db, options.as as string);
    if (admin.role !== "ADMIN") {
      throw new DomainError(
        "FORBIDDEN",
        `"${admin.username}" is not an admin (npm run admin -- promote ${admin.username})`,
      );
    }
    const before = await db.prisma.report.findUnique({ where: { id }, select: { resolvedAt: true } });
    // The command line has no token: the admin acts here without one.
    const report = await resolveReport(
      db,
      { id: admin.id, username: admin.username, role: "ADMIN", tokenId: "" },
      id,
      options.note,
    );
    if (before?.resolvedAt) {
      const by = report.resolvedById
        ? (await db.prisma.user.findUnique({ where: { id: report.resolvedById }, select: { username: true } }))
            ?.username
        : undefined;
      print(
        `report ${id} was already resolved on ${shortTime(report.resolvedAt)} UTC${by ? ` by "${by}"` : ""}; nothing changed`,
      );
      return;
    }
    print(`report ${id} resolved by "${admin.username}"${report.resolution ? `: ${report.resolution}` : ""}`);
  },
};

export const reportCommands: Command[] = [list, resolve];
