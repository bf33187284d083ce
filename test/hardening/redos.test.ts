// Issue 13, item 2: no regular expression in src may backtrack super-linearly. Every pattern
// written in src (literals and RegExp(...) calls, found by a real parser) goes through recheck,
// a ReDoS checker that proves linear matching or finds an attack string. A RegExp built at run
// time cannot be read from the source: each such place is listed here with the builder that
// makes it, and the built pattern is checked.
import { fileURLToPath } from "node:url";
import { checkSync } from "recheck";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREATED } from "../../src/backup/connection/ownership.ts";
import { standaloneWords } from "../../src/rest/legacy-error-messages.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { patternsIn, sourcePatterns, type SourcePattern } from "../helpers/source-patterns.ts";
import { expectError, formBody, sendJson, type Answer } from "../rest/legacy.ts";
import { databaseState, stateChanges } from "./database-state.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Files that build a RegExp at run time -> the patterns built the same way, to be checked instead. */
const BUILT_AT_RUN_TIME: Record<string, () => RegExp[]> = {
  "src/rest/legacy-error-messages.ts": () => [
    standaloneWords(["input.openingHours", "openingHours", "filter.title", "starRating", "a$b"]),
  ],
  "src/backup/connection/ownership.ts": () => [CREATED],
};

/** recheck's verdict, as one line when it is not "safe" (an unknown verdict counts as a failure: nothing was proven). */
function verdict(p: Pick<SourcePattern, "where" | "source" | "flags">): string | null {
  // recheck's 10 s default is wall time: on a loaded CI machine a safe pattern (the migrations' one
  // takes ~4 s alone) could come back "unknown". A minute still ends a pattern it cannot decide.
  const d = checkSync(p.source, p.flags, { timeout: 60_000 });
  if (d.status === "safe") return null;
  const how =
    d.status === "vulnerable"
      ? `${d.complexity.type}${"degree" in d.complexity ? ` (degree ${d.complexity.degree})` : ""}, attack ${d.attack.pattern}`
      : `unknown: ${d.error.kind}`;
  return `${p.where} /${p.source}/${p.flags}: ${d.status} ${how}`;
}

describe("regular expressions in src", () => {
  // recheck's first call loads it (~0.3 s); ~60 patterns take a few seconds on this machine.
  it("none backtracks super-linearly", { timeout: 300_000 }, () => {
    const patterns = sourcePatterns(ROOT);
    // The collector must see the patterns it is meant to check (a broken parser would pass vacuously).
    expect(patterns.length).toBeGreaterThan(40);
    expect(
      patterns.some((p) => p.where.startsWith("src/rest/requests/fields.ts:") && p.source.includes("[eE][+-]?")),
    ).toBe(true);

    const problems: string[] = [];
    for (const p of patterns) {
      if (p.dynamic) {
        const file = p.where.replace(/:\d+$/, "");
        const build = BUILT_AT_RUN_TIME[file];
        if (!build)
          problems.push(
            `${p.where} builds ${p.dynamic.slice(0, 80)} at run time: list its builder in BUILT_AT_RUN_TIME`,
          );
        else
          for (const built of build()) {
            const problem = verdict({ where: p.where, source: built.source, flags: built.flags });
            if (problem) problems.push(problem);
          }
        continue;
      }
      const problem = verdict(p);
      if (problem) problems.push(problem);
    }
    expect(problems).toEqual([]);
  });

  it("the check catches the decimal pattern that blocked the event loop (issue 13)", { timeout: 60_000 }, () => {
    const old = "const DECIMAL = /^[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?$/;\nconst ok = /^[+-]?\\d{1,15}$/;";
    const found = patternsIn(old, "old-fields.ts");
    expect(found.map((p) => p.where)).toEqual(["old-fields.ts:1", "old-fields.ts:2"]);
    expect(verdict(found[0])).toMatch(/^old-fields\.ts:1 .* vulnerable polynomial/);
    expect(verdict(found[1])).toBeNull();
  });

  it("reads RegExp(...) calls: plain strings are checked, built ones must be listed", () => {
    const found = patternsIn(
      'const a = new RegExp("^(a+)+$", "i");\nconst b = RegExp(`x${y}`);\nconst c = a.source + "/not a regex/";',
      "calls.ts",
    );
    expect(found).toEqual([
      { where: "calls.ts:1", source: "^(a+)+$", flags: "i" },
      { where: "calls.ts:2", source: "RegExp(`x${y}`)", flags: "", dynamic: "RegExp(`x${y}`)" },
    ]);
    expect(verdict(found[0])).toMatch(/vulnerable exponential/);
  });
});

// The issue's attack: 40,000 digits and a letter took 3.6 s of one core per request. Such text is
// now refused by its length, before any pattern or number parser reads it. (The server runs in
// this process: were the event loop blocked again, these tests would run into their time limit.)
describe("over-long numbers and times sent to the REST interface", () => {
  const DIGITS = `${"1".repeat(40_000)}x`;
  let s: TestServer;
  let owner: { token: string };
  let restaurantId: string;

  beforeAll(async () => {
    s = await startServer();
    owner = await s.signUp("redos");
    const created = await sendJson(s, "POST", "/restaurants", { title: "Long numbers", star_rating: 4 }, owner.token);
    restaurantId = created.body._id;
  });
  afterAll(async () => s?.close());

  const form = async (method: "POST" | "PUT", path: string, fields: Record<string, string>): Promise<Answer> => {
    const res = await s.fetch(path, {
      method,
      token: owner.token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: formBody(fields),
    });
    return { status: res.status, body: await res.json(), headers: res.headers };
  };

  /** Sends `send` and expects a 400 naming `field` and the length limit, with the database unchanged. */
  async function refusedUnchanged(send: () => Promise<Answer>, field: RegExp) {
    const before = await databaseState(s.db);
    const a = await send();
    expectError(a, 400, "BAD_USER_INPUT", /at most \d+ characters/);
    expect(a.body.error.message).toMatch(field);
    expect(stateChanges(before, await databaseState(s.db))).toEqual([]);
  }

  it("refuses a 40,000-digit star_rating in a form, on create and on edit", { timeout: 10_000 }, async () => {
    await refusedUnchanged(() => form("POST", "/restaurants", { title: "x", star_rating: DIGITS }), /star_rating/);
    await refusedUnchanged(() => form("PUT", `/restaurants/${restaurantId}`, { star_rating: DIGITS }), /star_rating/);
  });

  it(
    "refuses it as a JSON string, and as address[geo][lat] (form) or address.geo.lat (JSON)",
    { timeout: 10_000 },
    async () => {
      await refusedUnchanged(
        () => sendJson(s, "POST", "/restaurants", { title: "x", star_rating: DIGITS }, owner.token),
        /star_rating/,
      );
      await refusedUnchanged(
        () => form("POST", "/restaurants", { title: "x", "address[geo][lat]": DIGITS }),
        /address\.geo\.lat/,
      );
      await refusedUnchanged(
        () =>
          sendJson(
            s,
            "PUT",
            `/restaurants/${restaurantId}`,
            { address: { geo: { lat: DIGITS, lng: "1" } } },
            owner.token,
          ),
        /address\.geo\.lat/,
      );
    },
  );

  it("refuses an over-long opening period and page size the same way", { timeout: 10_000 }, async () => {
    await refusedUnchanged(
      () => form("PUT", `/restaurants/${restaurantId}`, { opening_hours: `${"0".repeat(40_000)}-12:00` }),
      /opening_hours\[0\]/,
    );
    // URLs are limited to 16 KB: 1,000 digits there.
    const page = await s.fetch(`/restaurants?limit=${"1".repeat(1000)}x`, { token: owner.token });
    expectError(
      { status: page.status, body: await page.json(), headers: page.headers },
      400,
      "BAD_USER_INPUT",
      /limit .*at most 32 characters/,
    );
  });

  it("still reads numbers of every documented form", async () => {
    for (const [sent, stored] of [
      ["4", 4],
      [" 4.5 ", 4.5],
      ["+3.", 3],
      [".5", 0.5],
      ["2e0", 2],
      ["0.0000000000000000000000000001", 1e-28],
    ] as const) {
      const a = await form("PUT", `/restaurants/${restaurantId}`, { star_rating: sent });
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect((await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id: restaurantId } })).starRating, sent).toBe(
        stored,
      );
    }
  });
});
