// The admin command line (`npm run admin -- ...`), run as a real process against a fresh database:
// each command changes in the database what it says it changed, and a wrong command line or an
// unknown user, restaurant or report gives one line saying what to fix, with exit code 2 or 1.
// Runs on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin, type AdminRun } from "../helpers/process.ts";
import { createDb } from "../../src/db/client.ts";
import type { Db } from "../../src/db/db.ts";
import { migrate } from "../../src/db/migrate.ts";
import { report } from "../../src/domain/catalogue/reports.ts";
import { InProcessBus } from "../../src/events/bus.ts";
import { createRestaurant } from "../../src/domain/catalogue/restaurants.ts";
import { authenticate, type Viewer } from "../../src/domain/accounts/tokens.ts";
import { login, register } from "../../src/domain/accounts/users.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

const DAY = 86_400_000;

let database: TestDatabase;
let db: Db;

type Run = AdminRun;

/** Runs `node --import tsx src/cli/admin.ts ...args` on the test database. */
const admin = (...args: string[]): Promise<Run> => runAdmin(database.url, ...args);

/** A refusal: the exit code, one line on stderr, nothing on stdout, no stack trace. */
function expectRefusal(run: Run, code: 1 | 2, message: RegExp) {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stdout).toBe("");
  const lines = run.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toMatch(message);
  expect(run.stderr).not.toMatch(/\n\s+at |Error:|prisma\./);
}

async function signUp(username: string): Promise<Viewer> {
  const session = await register(db, { username, password: "password-1", firstName: username }, DAY);
  const auth = await authenticate(db, session.token);
  if (auth.state !== "valid") throw new Error("no viewer");
  return auth.viewer;
}

const roleOf = async (username: string) => (await db.prisma.user.findUniqueOrThrow({ where: { username } })).role;

beforeAll(async () => {
  database = await createTestDatabase();
  const settings = {
    dialect: database.provider,
    url: database.url,
    poolSize: 4,
    poolIdleTimeoutMs: 0,
    sqliteSynchronous: "FULL",
  } as const;
  await migrate(settings);
  db = createDb(settings);
});

afterAll(async () => {
  await db?.close();
  await database?.drop();
});

describe("help and command-line errors", () => {
  it("help lists every command; <command> --help shows its usage and options", async () => {
    const help = await admin("--help");
    expect(help.code).toBe(0);
    for (const name of [
      "create",
      "promote",
      "demote",
      "revoke-tokens",
      "grant-badge",
      "revoke-badge",
      "reports",
      "resolve-report",
    ]) {
      expect(help.stdout).toContain(`  ${name}`);
    }
    const one = await admin("resolve-report", "--help");
    expect(one.code).toBe(0);
    expect(one.stdout).toContain("Usage: npm run admin -- resolve-report <report-id> --as ADMIN [--note TEXT]");
    expect((await admin("help", "grant-badge")).stdout).toContain("--cover URL");
  });

  it("no command prints the help to stderr with exit code 2", async () => {
    const run = await admin();
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("Usage: npm run admin --");
  });

  it("unknown command, missing argument, unknown option, bad value: exit 2, one line", async () => {
    const cases: [string[], RegExp][] = [
      [["frobnicate"], /unknown command "frobnicate"; commands: create, .*resolve-report/],
      [["promote"], /promote needs <username> \(usage: npm run admin -- promote <username>\)/],
      [["grant-badge", "r1"], /grant-badge needs <badge-name>/],
      [["grant-badge", "", "Best"], /<restaurant-id> must not be empty/],
      [["demote", "ann", "--force"], /demote has no option --force/],
      [["promote", "ann", "bob"], /unexpected argument "bob"/],
      [["resolve-report", "r1"], /resolve-report needs --as ADMIN/],
      [["resolve-report", "r1", "--as"], /--as needs a value/],
      [["reports", "--limit", "500"], /--limit must be a whole number from 1 to 100/],
      [["reports", "--kind", "shop"], /--kind must be restaurant or grocery/],
    ];
    const runs = await Promise.all(cases.map(([args]) => admin(...args)));
    runs.forEach((run, i) => expectRefusal(run, 2, cases[i]![1]));
  });

  it("a bad setting: exit 2, naming the variable", async () => {
    const { code, stderr } = await runAdmin("mysql://localhost/x", "reports");
    expect(code).toBe(2);
    expect(stderr.trim()).toMatch(
      /^error: invalid setting: DATABASE_URL="mysql:\/\/localhost\/x": must start with file:/,
    );
  });
});

describe("accounts", () => {
  it("create makes an admin who can sign in with the given password", async () => {
    const run = await admin("create", "boss", "--password", "password-boss", "--first-name", "The Boss");
    expect(run).toMatchObject({ code: 0, stdout: 'admin "boss" created\n' });
    const user = await db.prisma.user.findUniqueOrThrow({ where: { username: "boss" } });
    expect(user).toMatchObject({ role: "ADMIN", firstName: "The Boss" });
    await expect(login(db, "boss", "password-boss", DAY)).resolves.toMatchObject({ userId: user.id });
  });

  it("create without a password prints the generated one, which works", async () => {
    const run = await admin("create", "boss2");
    expect(run.code).toBe(0);
    const password = /password: (\S+)/.exec(run.stdout)?.[1];
    expect(password).toBeDefined();
    await expect(login(db, "boss2", password, DAY)).resolves.toBeDefined();
  });

  it("create refuses a taken username (exit 1) and a short password (exit 2), creating nothing", async () => {
    expectRefusal(await admin("create", "boss", "--password", "password-other"), 1, /username "boss" is taken/);
    expectRefusal(
      await admin("create", "newbie", "--password", "short"),
      2,
      /password must have at least 8 characters/,
    );
    expect(await db.prisma.user.findUnique({ where: { username: "newbie" } })).toBeNull();
  });

  it("promote and demote change the role; an unknown user is exit 1", async () => {
    await signUp("carol");
    expect((await admin("promote", "carol")).stdout).toBe('"carol" is now an admin\n');
    expect(await roleOf("carol")).toBe("ADMIN");
    expect((await admin("demote", "carol")).stdout).toBe('"carol" is now a user\n');
    expect(await roleOf("carol")).toBe("USER");
    expectRefusal(await admin("promote", "ghost"), 1, /user "ghost" does not exist/);
  });

  it("revoke-tokens revokes every token of that user and no one else's", async () => {
    const dave = await signUp("dave");
    await login(db, "dave", "password-1", DAY);
    const erin = await signUp("erin");
    const run = await admin("revoke-tokens", "dave");
    expect(run).toMatchObject({ code: 0, stdout: 'revoked 2 token(s) of "dave"\n' });
    expect(await db.prisma.accessToken.count({ where: { userId: dave.id, revokedAt: null } })).toBe(0);
    expect(await db.prisma.accessToken.count({ where: { userId: erin.id, revokedAt: null } })).toBe(1);
    expect((await admin("revoke-tokens", "dave")).stdout).toBe('revoked 0 token(s) of "dave"\n');
    expectRefusal(await admin("revoke-tokens", "ghost"), 1, /user "ghost" does not exist/);
  });
});

describe("badges", () => {
  let restaurantId: string;
  beforeAll(async () => {
    const owner = await signUp("owner");
    restaurantId = (await createRestaurant(db, owner, { title: "Chez Nous" })).id;
  });
  const held = () => db.prisma.restaurantBadge.findMany({ where: { restaurantId }, include: { badge: true } });

  it("grant-badge gives the restaurant the badge (created on first use); granting again changes nothing", async () => {
    const run = await admin("grant-badge", restaurantId, "Best of Town", "--cover", "https://example.com/b.png");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^restaurant "Chez Nous" \\(${restaurantId}\\) holds badge "Best of Town" since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\n$`,
      ),
    );
    expect((await held()).map((h) => [h.badge.name, h.badge.cover])).toEqual([
      ["Best of Town", "https://example.com/b.png"],
    ]);
    expect((await admin("grant-badge", restaurantId, "Best of Town")).code).toBe(0);
    expect(await held()).toHaveLength(1);
    expect(await db.prisma.badge.count({ where: { name: "Best of Town" } })).toBe(1);
  });

  it("grant-badge: an unknown restaurant is exit 1 and creates no badge", async () => {
    expectRefusal(await admin("grant-badge", "no-such-id", "Ghost Badge"), 1, /"no-such-id" does not exist/);
    expect(await db.prisma.badge.count({ where: { name: "Ghost Badge" } })).toBe(0);
  });

  it("revoke-badge takes it back, says so when it was not held, refuses an unknown badge or restaurant", async () => {
    await admin("grant-badge", restaurantId, "Quiet");
    const run = await admin("revoke-badge", restaurantId, "Best of Town");
    expect(run.stdout).toBe(`revoked badge "Best of Town" from restaurant "Chez Nous" (${restaurantId})\n`);
    expect((await held()).map((h) => h.badge.name)).toEqual(["Quiet"]);
    expect(await db.prisma.badge.count({ where: { name: "Best of Town" } })).toBe(1); // the badge itself stays
    expect((await admin("revoke-badge", restaurantId, "Best of Town")).stdout).toMatch(
      /did not hold badge "Best of Town"; nothing changed/,
    );
    expectRefusal(
      await admin("revoke-badge", restaurantId, "Nope"),
      1,
      /badge "Nope" does not exist \(badges: "Best of Town", "Quiet"\)/,
    );
    expectRefusal(await admin("revoke-badge", "no-such-id", "Quiet"), 1, /restaurant "no-such-id" does not exist/);
    expect((await held()).map((h) => h.badge.name)).toEqual(["Quiet"]);
  });
});

describe("reports", () => {
  let restaurantReport: string;
  let groceryReport: string;
  beforeAll(async () => {
    const owner = await signUp("shopkeeper");
    const reporter = await signUp("rita");
    const restaurant = await createRestaurant(db, owner, { title: "Spam Palace" });
    const grocery = await db.prisma.grocery.create({
      data: { title: "Odd Beans", titleSearch: "odd beans", ownerId: owner.id },
    });
    restaurantReport = (
      await report(db, new InProcessBus(), reporter, "RESTAURANT", restaurant.id, {
        reasonType: "spam",
        reasonBody: "posts adverts",
      })
    ).report.id;
    groceryReport = (await report(db, new InProcessBus(), reporter, "GROCERY", grocery.id, { reasonType: "wrong" }))
      .report.id;
    await signUp("plain");
  });

  it("reports lists the open reports as a table with titles, reasons and reporters", async () => {
    const run = await admin("reports");
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+KIND\s+TARGET ID\s+TITLE\s+REASON\s+REPORTER\s+CREATED \(UTC\)$/);
    expect(lines[1]).toMatch(/^-+( +-+)+$/);
    expect(lines).toHaveLength(2 + 2 + 2); // header, rule, two rows, blank, count
    const row = (id: string) => lines.find((l) => l.startsWith(`${id} `));
    expect(row(restaurantReport)).toMatch(
      /^\S+\s+open\s+restaurant\s+\S+\s+Spam Palace\s+spam: posts adverts\s+rita\s+\d{4}-\d\d-\d\d \d\d:\d\d$/,
    );
    expect(row(groceryReport)).toMatch(/^\S+\s+open\s+grocery\s+\S+\s+Odd Beans\s+wrong\s+rita\s+\d{4}-/);
    expect(lines.at(-1)).toBe("2 open reports");
    const groceries = await admin("reports", "--kind", "grocery");
    expect(groceries.stdout).toContain(groceryReport);
    expect(groceries.stdout).not.toContain(restaurantReport);
  });

  it("resolve-report records the admin and the note; the report leaves the open list", async () => {
    const run = await admin("resolve-report", restaurantReport, "--as", "boss", "--note", "adverts removed");
    expect(run).toMatchObject({ code: 0, stdout: `report ${restaurantReport} resolved by "boss": adverts removed\n` });
    const boss = await db.prisma.user.findUniqueOrThrow({ where: { username: "boss" } });
    const row = await db.prisma.report.findUniqueOrThrow({ where: { id: restaurantReport } });
    expect(row).toMatchObject({ resolvedById: boss.id, resolution: "adverts removed" });
    expect(row.resolvedAt).toBeInstanceOf(Date);

    const open = await admin("reports");
    expect(open.stdout).not.toContain(restaurantReport);
    expect(open.stdout.trimEnd().split("\n").at(-1)).toBe("1 open report");
    const all = await admin("reports", "--all");
    expect(all.stdout).toMatch(/RESOLVED BY\s+NOTE/);
    expect(all.stdout).toMatch(new RegExp(`${restaurantReport}\\s+resolved\\s.*\\sboss\\s+adverts removed`));
    expect(all.stdout.trimEnd().split("\n").at(-1)).toBe("2 reports");
  });

  it("resolving again changes nothing and says who resolved it", async () => {
    const before = await db.prisma.report.findUniqueOrThrow({ where: { id: restaurantReport } });
    const run = await admin("resolve-report", restaurantReport, "--as", "boss2", "--note", "again");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/was already resolved on .* by "boss"; nothing changed/);
    expect(await db.prisma.report.findUniqueOrThrow({ where: { id: restaurantReport } })).toEqual(before);
  });

  it("refuses an unknown report, an unknown or non-admin --as, and a too long note, changing nothing", async () => {
    expectRefusal(
      await admin("resolve-report", "no-such-report", "--as", "boss"),
      1,
      /report "no-such-report" does not exist/,
    );
    expectRefusal(await admin("resolve-report", groceryReport, "--as", "ghost"), 1, /user "ghost" does not exist/);
    expectRefusal(
      await admin("resolve-report", groceryReport, "--as", "plain"),
      1,
      /"plain" is not an admin \(npm run admin -- promote plain\)/,
    );
    expectRefusal(
      await admin("resolve-report", groceryReport, "--as", "boss", "--note", "x".repeat(2001)),
      2,
      /resolution must have at most 2000 characters/,
    );
    expect((await db.prisma.report.findUniqueOrThrow({ where: { id: groceryReport } })).resolvedAt).toBeNull();
  });

  it("pages with --limit and --offset", async () => {
    const first = await admin("reports", "--all", "--limit", "1");
    expect(first.stdout.trimEnd().split("\n").at(-1)).toBe("1-1 of 2 reports; the next page: --offset 1");
    const second = await admin("reports", "--all", "--limit", "1", "--offset", "1");
    expect(second.stdout.trimEnd().split("\n").at(-1)).toBe("2 reports (showing 2-2)");
    const shown = (run: Run) => [restaurantReport, groceryReport].filter((id) => run.stdout.includes(id));
    expect(shown(first)).toHaveLength(1);
    expect(shown(second)).toHaveLength(1);
    expect(new Set([...shown(first), ...shown(second)]).size).toBe(2);
  });
});
