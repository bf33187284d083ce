// Reports through the real server: reportRestaurant / reportGrocery (one per user and target,
// also under a race), the admins' reports list and resolveReport, and the Report fields.
import { spawn } from "node:child_process";
import { once } from "node:events";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

type Account = { token: string; id: string; username: string };
let s: TestServer;
let owner: Account;
let admin: Account;
beforeAll(async () => {
  // A long session cache: a slow run must not see the admin's token expire between the calls
  // whose statements are compared.
  s = await startServer({ SESSION_CACHE_TTL: "10m" });
  owner = await s.signUp("owner");
  admin = await s.signUp("adm", "ADMIN");
});
afterAll(async () => s?.close());

let seq = 0;
const newRestaurant = (title = `Diner ${++seq}`) =>
  s.db.prisma.restaurant.create({ data: { title, titleSearch: title.toLowerCase(), ownerId: owner.id } });
const newGrocery = (title = `Apples ${++seq}`) =>
  s.db.prisma.grocery.create({ data: { title, titleSearch: title.toLowerCase(), ownerId: owner.id } });

/**
 * Inserts a report from another database connection inside a transaction that commits only
 * after `holdMs`, so a request sent meanwhile finds no report, then hits the unique constraint.
 * SQLite: a child process, because the server (in this process) waits for the write lock
 * synchronously. PostgreSQL: a second client here.
 */
async function commitReportLater(row: { id: string; reporterId: string; targetId: string }, holdMs: number) {
  const values = [
    row.id,
    row.reporterId,
    "RESTAURANT",
    row.targetId,
    "raced",
    new Date().toISOString().replace("Z", "+00:00"),
  ];
  if (s.database.provider === "postgres") {
    const client = new pg.Client({ connectionString: s.database.url });
    await client.connect();
    await client.query("BEGIN");
    await client.query(
      `INSERT INTO "Report" ("id", "reporterId", "targetKind", "targetId", "reasonType", "createdAt") VALUES ($1, $2, $3::"ReportTarget", $4, $5, $6::timestamptz)`,
      values,
    );
    const done = new Promise<void>((resolve, reject) =>
      setTimeout(
        () =>
          client
            .query("COMMIT")
            .then(() => client.end())
            .then(resolve, reject),
        holdMs,
      ),
    );
    return { done };
  }
  const script = `
    const db = new (require("better-sqlite3"))(process.argv[1]);
    db.exec("BEGIN IMMEDIATE");
    db.prepare('INSERT INTO "Report" ("id", "reporterId", "targetKind", "targetId", "reasonType", "createdAt") VALUES (?, ?, ?, ?, ?, ?)').run(...JSON.parse(process.argv[2]));
    process.stdout.write("ready\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, ${holdMs});`;
  const child = spawn(process.execPath, ["-e", script, s.database.url.replace(/^file:/, ""), JSON.stringify(values)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await once(child.stdout!, "data");
  const done = once(child, "exit").then(([code]) => expect(code).toBe(0));
  return { done };
}

const REPORT_FIELDS = `id targetKind targetId reasonType reasonBody status createdAt resolvedAt resolution
  restaurant { id title } grocery { id title } reporter { id username } resolvedBy { id }`;
const REPORT_RESTAURANT = `mutation($id: ID!, $input: ReportInput!) { reportRestaurant(id: $id, input: $input) { created report { ${REPORT_FIELDS} } } }`;
const REPORT_GROCERY = `mutation($id: ID!, $input: ReportInput!) { reportGrocery(id: $id, input: $input) { created report { ${REPORT_FIELDS} } } }`;
const RESOLVE = `mutation($id: ID!, $resolution: String) { resolveReport(id: $id, resolution: $resolution) { ${REPORT_FIELDS} } }`;
const LIST = `query($status: ReportStatus, $targetKind: ReportTargetKind, $first: Int, $after: String) {
  reports(status: $status, targetKind: $targetKind, first: $first, after: $after) {
    totalCount
    nodes { id targetKind targetId status reasonType restaurant { id } grocery { id } reporter { id } resolvedBy { id } }
    pageInfo { hasNextPage hasPreviousPage endCursor }
  }
}`;

describe("reportRestaurant and reportGrocery", () => {
  it("files a restaurant report, open, with the reporter and the restaurant", async () => {
    const user = await s.signUp("user");
    const r = await newRestaurant("Greasy Spoon");
    const res = await s.graphql(
      REPORT_RESTAURANT,
      { id: r.id, input: { reasonType: " spam ", reasonBody: "Fake menu." } },
      user.token,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.reportRestaurant.created).toBe(true);
    expect(res.data.reportRestaurant.report).toMatchObject({
      targetKind: "RESTAURANT",
      targetId: r.id,
      reasonType: " spam ", // kept as sent
      reasonBody: "Fake menu.",
      status: "OPEN",
      resolvedAt: null,
      resolution: null,
      restaurant: { id: r.id, title: "Greasy Spoon" },
      grocery: null,
      reporter: { id: user.id, username: user.username },
      resolvedBy: null,
    });
    expect(await s.db.prisma.report.count({ where: { targetId: r.id } })).toBe(1);
  });

  it("files a grocery report with an empty body by default", async () => {
    const user = await s.signUp("user");
    const g = await newGrocery("Pears");
    const res = await s.graphql(REPORT_GROCERY, { id: g.id, input: { reasonType: "wrong information" } }, user.token);
    expect(res.errors).toBeUndefined();
    expect(res.data.reportGrocery).toMatchObject({
      created: true,
      report: {
        targetKind: "GROCERY",
        targetId: g.id,
        reasonBody: "",
        grocery: { id: g.id, title: "Pears" },
        restaurant: null,
      },
    });
  });

  it("answers a repeat with the existing report, created: false, and changes nothing", async () => {
    const user = await s.signUp("user");
    const r = await newRestaurant();
    const first = await s.graphql(
      REPORT_RESTAURANT,
      { id: r.id, input: { reasonType: "spam", reasonBody: "one" } },
      user.token,
    );
    const again = await s.graphql(
      REPORT_RESTAURANT,
      { id: r.id, input: { reasonType: "abuse", reasonBody: "two" } },
      user.token,
    );
    expect(again.errors).toBeUndefined();
    expect(again.data.reportRestaurant.created).toBe(false);
    expect(again.data.reportRestaurant.report).toEqual(first.data.reportRestaurant.report);
    const rows = await s.db.prisma.report.findMany({ where: { targetId: r.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ reasonType: "spam", reasonBody: "one" });
  });

  it("keeps one report per user and target: others may report it, and the user may report other targets", async () => {
    const [a, b] = [await s.signUp("user"), await s.signUp("user")];
    const r = await newRestaurant();
    const g = await newGrocery();
    const results = [
      await s.graphql(REPORT_RESTAURANT, { id: r.id, input: { reasonType: "spam" } }, a.token),
      await s.graphql(REPORT_RESTAURANT, { id: r.id, input: { reasonType: "spam" } }, b.token),
      await s.graphql(REPORT_GROCERY, { id: g.id, input: { reasonType: "spam" } }, a.token),
    ];
    expect(results.map((x) => (x.data.reportRestaurant ?? x.data.reportGrocery).created)).toEqual([true, true, true]);
    expect(await s.db.prisma.report.count({ where: { targetId: { in: [r.id, g.id] } } })).toBe(3);
  });

  it("gives every one of many identical reports sent at once the same single report", async () => {
    const user = await s.signUp("user");
    const r = await newRestaurant();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.graphql(REPORT_RESTAURANT, { id: r.id, input: { reasonType: "spam", reasonBody: `try ${i}` } }, user.token),
      ),
    );
    for (const res of results) {
      expect(res.status).toBe(200);
      expect(res.errors).toBeUndefined();
    }
    const answers = results.map((res) => res.data.reportRestaurant);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.report.id)).size).toBe(1);
    expect(await s.db.prisma.report.count({ where: { targetId: r.id } })).toBe(1);
  });

  it("answers the other report when it commits between the look-up and the insert (unique violation)", async () => {
    const user = await s.signUp("user");
    const r = await newRestaurant();
    const raced = await commitReportLater({ id: `raced-${r.id}`, reporterId: user.id, targetId: r.id }, 1500);
    const res = await s.graphql(REPORT_RESTAURANT, { id: r.id, input: { reasonType: "spam" } }, user.token);
    await raced.done;
    expect(res.status).toBe(200);
    expect(res.errors).toBeUndefined();
    expect(res.data.reportRestaurant).toMatchObject({
      created: false,
      report: { id: `raced-${r.id}`, reasonType: "raced" },
    });
    expect(await s.db.prisma.report.count({ where: { targetId: r.id } })).toBe(1);
  });

  it("accepts a 100-character reasonType and a 5,000-character reasonBody", async () => {
    const user = await s.signUp("user");
    const r = await newRestaurant();
    const res = await s.graphql(
      REPORT_RESTAURANT,
      { id: r.id, input: { reasonType: "t".repeat(100), reasonBody: "b".repeat(5000) } },
      user.token,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.reportRestaurant.report.reasonBody).toHaveLength(5000);
  });

  it.each([
    ["an empty reasonType", { reasonType: "" }, /reasonType/],
    ["a blank reasonType", { reasonType: "  " }, /reasonType/],
    ["a 101-character reasonType", { reasonType: "t".repeat(101) }, /reasonType/],
    ["a 5,001-character reasonBody", { reasonType: "spam", reasonBody: "b".repeat(5001) }, /reasonBody/],
  ])("refuses %s with BAD_USER_INPUT and files nothing", async (_, input, field) => {
    const user = await s.signUp("user");
    const r = await newRestaurant();
    const g = await newGrocery();
    const a = await s.graphql(REPORT_RESTAURANT, { id: r.id, input }, user.token);
    const b = await s.graphql(REPORT_GROCERY, { id: g.id, input }, user.token);
    for (const res of [a, b]) {
      expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
      expect(res.errors?.[0].message).toMatch(field);
    }
    expect(await s.db.prisma.report.count({ where: { reporterId: user.id } })).toBe(0);
  });

  it("answers NOT_FOUND for a missing target, or one of the other kind, and files nothing", async () => {
    const user = await s.signUp("user");
    const r = await newRestaurant();
    const g = await newGrocery();
    const cases = [
      await s.graphql(REPORT_RESTAURANT, { id: "no-such-id", input: { reasonType: "spam" } }, user.token),
      await s.graphql(REPORT_GROCERY, { id: "no-such-id", input: { reasonType: "spam" } }, user.token),
      await s.graphql(REPORT_RESTAURANT, { id: g.id, input: { reasonType: "spam" } }, user.token),
      await s.graphql(REPORT_GROCERY, { id: r.id, input: { reasonType: "spam" } }, user.token),
    ];
    for (const res of cases) expect(res.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    expect(await s.db.prisma.report.count({ where: { reporterId: user.id } })).toBe(0);
  });

  it("needs an access token", async () => {
    const r = await newRestaurant();
    const g = await newGrocery();
    const a = await s.graphql(REPORT_RESTAURANT, { id: r.id, input: { reasonType: "spam" } });
    const b = await s.graphql(REPORT_GROCERY, { id: g.id, input: { reasonType: "spam" } }, "made-up");
    expect(a.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(b.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(await s.db.prisma.report.count({ where: { targetId: { in: [r.id, g.id] } } })).toBe(0);
  });

  it("keeps the report, with its targetId, after the target is removed; restaurant is then null", async () => {
    const user = await s.signUp("user");
    const r = await newRestaurant();
    const filed = await s.graphql(REPORT_RESTAURANT, { id: r.id, input: { reasonType: "closed" } }, user.token);
    await s.db.prisma.restaurant.delete({ where: { id: r.id } });
    const res = await s.graphql(
      RESOLVE,
      { id: filed.data.reportRestaurant.report.id, resolution: "gone" },
      admin.token,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.resolveReport).toMatchObject({
      targetId: r.id,
      restaurant: null,
      grocery: null,
      status: "RESOLVED",
    });
  });
});

describe("resolveReport", () => {
  async function openReport() {
    const user = await s.signUp("user");
    const g = await newGrocery();
    const res = await s.graphql(REPORT_GROCERY, { id: g.id, input: { reasonType: "spam" } }, user.token);
    return res.data.reportGrocery.report.id as string;
  }

  it("lets an admin resolve a report with a note", async () => {
    const id = await openReport();
    const res = await s.graphql(RESOLVE, { id, resolution: "  Removed the spam.  " }, admin.token);
    expect(res.errors).toBeUndefined();
    expect(res.data.resolveReport).toMatchObject({
      id,
      status: "RESOLVED",
      resolution: "  Removed the spam.  ",
      resolvedBy: { id: admin.id },
    });
    expect(Date.parse(res.data.resolveReport.resolvedAt)).toBeGreaterThan(Date.now() - 60_000);
    const row = await s.db.prisma.report.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ resolvedById: admin.id, resolution: "  Removed the spam.  " });
  });

  it("resolves without a note", async () => {
    const id = await openReport();
    const res = await s.graphql(RESOLVE, { id }, admin.token);
    expect(res.data.resolveReport).toMatchObject({
      status: "RESOLVED",
      resolution: null,
      resolvedBy: { id: admin.id },
    });
  });

  it("keeps the first resolution when a report is resolved again", async () => {
    const id = await openReport();
    const first = await s.graphql(RESOLVE, { id, resolution: "first" }, admin.token);
    const otherAdmin = await s.signUp("adm", "ADMIN");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await s.graphql(RESOLVE, { id, resolution: "second" }, otherAdmin.token);
    expect(second.errors).toBeUndefined();
    expect(second.data.resolveReport).toEqual(first.data.resolveReport);
    expect(await s.db.prisma.report.findUniqueOrThrow({ where: { id } })).toMatchObject({
      resolution: "first",
      resolvedById: admin.id,
    });
  });

  it("accepts a 2,000-character note and refuses a longer one, changing nothing", async () => {
    const id = await openReport();
    const long = await s.graphql(RESOLVE, { id, resolution: "n".repeat(2001) }, admin.token);
    expect(long.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(long.errors?.[0].message).toMatch(/resolution/);
    expect(await s.db.prisma.report.findUniqueOrThrow({ where: { id } })).toMatchObject({
      resolvedAt: null,
      resolution: null,
    });
    const ok = await s.graphql(RESOLVE, { id, resolution: "n".repeat(2000) }, admin.token);
    expect(ok.data.resolveReport.resolution).toHaveLength(2000);
  });

  it("answers NOT_FOUND for an unknown report", async () => {
    const res = await s.graphql(RESOLVE, { id: "no-such-report" }, admin.token);
    expect(res.errors?.[0].extensions?.code).toBe("NOT_FOUND");
  });

  it("is for admins only: FORBIDDEN for a user, UNAUTHENTICATED without a token; nothing changes", async () => {
    const id = await openReport();
    const user = await s.signUp("user");
    const asUser = await s.graphql(RESOLVE, { id, resolution: "mine" }, user.token);
    const anonymous = await s.graphql(RESOLVE, { id, resolution: "mine" });
    expect(asUser.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect(anonymous.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(await s.db.prisma.report.findUniqueOrThrow({ where: { id } })).toMatchObject({
      resolvedAt: null,
      resolvedById: null,
      resolution: null,
    });
  });
});

describe("reports (admin list)", () => {
  let restaurants: string[];
  let groceries: string[];
  let oldestFirst: { id: string; targetKind: string; resolved: boolean }[];

  beforeAll(async () => {
    await s.db.prisma.report.deleteMany();
    const reporters = [await s.signUp("rep"), await s.signUp("rep"), await s.signUp("rep")];
    restaurants = [];
    groceries = [];
    for (let i = 0; i < 35; i++) restaurants.push((await newRestaurant()).id);
    for (let i = 0; i < 35; i++) groceries.push((await newGrocery()).id);
    const start = Date.UTC(2026, 3, 1);
    // 105 reports: every reporter reports every target once; every third one is resolved.
    const rows = Array.from({ length: 105 }, (_, i) => {
      const kind = i % 2 ? ("GROCERY" as const) : ("RESTAURANT" as const);
      const targets = kind === "GROCERY" ? groceries : restaurants;
      return {
        reporterId: reporters[i % 3].id,
        targetKind: kind,
        targetId: targets[Math.floor(i / 3) % 35],
        reasonType: `reason ${i}`,
        createdAt: new Date(start + Math.min(i, 103) * 1000),
        ...(i % 3 === 0
          ? { resolvedAt: new Date(start + 10_000_000), resolvedById: admin.id, resolution: "done" }
          : {}),
      };
    });
    await s.db.prisma.report.createMany({ data: rows });
    const stored = await s.db.prisma.report.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    oldestFirst = stored.map((r) => ({ id: r.id, targetKind: r.targetKind, resolved: r.resolvedAt !== null }));
  });

  const list = (variables: Record<string, unknown> = {}, token = admin.token) => s.graphql(LIST, variables, token);
  const ids = (res: any) => res.data.reports.nodes.map((n: any) => n.id);

  it("lists every report to an admin, oldest first, with targets and people", async () => {
    const res = await list({ first: 100 });
    expect(res.errors).toBeUndefined();
    expect(res.data.reports.totalCount).toBe(105);
    expect(ids(res)).toEqual(oldestFirst.slice(0, 100).map((r) => r.id));
    for (const node of res.data.reports.nodes) {
      expect(node.status).toBe(oldestFirst.find((r) => r.id === node.id)!.resolved ? "RESOLVED" : "OPEN");
      if (node.targetKind === "RESTAURANT") {
        expect(node.restaurant.id).toBe(node.targetId);
        expect(node.grocery).toBeNull();
      } else {
        expect(node.grocery.id).toBe(node.targetId);
        expect(node.restaurant).toBeNull();
      }
      expect(node.resolvedBy?.id ?? null).toBe(node.status === "RESOLVED" ? admin.id : null);
      expect(typeof node.reporter.id).toBe("string");
    }
  });

  it("filters by status and by target kind", async () => {
    const open = await list({ status: "OPEN", first: 100 });
    expect(ids(open)).toEqual(oldestFirst.filter((r) => !r.resolved).map((r) => r.id));
    expect(open.data.reports.totalCount).toBe(70);
    const resolved = await list({ status: "RESOLVED", first: 100 });
    expect(ids(resolved)).toEqual(oldestFirst.filter((r) => r.resolved).map((r) => r.id));
    const groceryOpen = await list({ status: "OPEN", targetKind: "GROCERY", first: 100 });
    expect(ids(groceryOpen)).toEqual(
      oldestFirst.filter((r) => !r.resolved && r.targetKind === "GROCERY").map((r) => r.id),
    );
    expect(groceryOpen.data.reports.nodes.every((n: any) => n.targetKind === "GROCERY" && n.status === "OPEN")).toBe(
      true,
    );
  });

  it("pages with first: 1 and first: 100 and continues after a cursor", async () => {
    const one = await list({ first: 1 });
    expect(ids(one)).toEqual([oldestFirst[0].id]);
    expect(one.data.reports.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const next = await list({ first: 1, after: one.data.reports.pageInfo.endCursor });
    expect(ids(next)).toEqual([oldestFirst[1].id]);
    const hundred = await list({ first: 100 });
    const rest = await list({ first: 100, after: hundred.data.reports.pageInfo.endCursor });
    expect(ids(rest)).toEqual(oldestFirst.slice(100).map((r) => r.id));
    expect(rest.data.reports.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it.each([0, 101])("refuses first: %i with BAD_USER_INPUT", async (first) => {
    const res = await list({ first });
    expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });

  it("is for admins only", async () => {
    const user = await s.signUp("user");
    const asUser = await list({}, user.token);
    expect(asUser.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect(asUser.data?.reports ?? null).toBeNull();
    const anonymous = await s.graphql(LIST, {});
    expect(anonymous.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("loads targets and people for a page in a fixed number of statements", async () => {
    // A first call looks the admin's token up if its cache entry expired (SESSION_CACHE_TTL) during
    // a slow run; the two measured calls then both find it cached.
    await list({ first: 1 });
    s.sql.length = 0;
    await list({ first: 100 });
    const forHundred = s.sql.length;
    s.sql.length = 0;
    await list({ first: 3 });
    expect(s.sql.length).toBe(forHundred);
  });
});
