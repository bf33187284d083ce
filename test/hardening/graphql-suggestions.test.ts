// With introspection off, no error message may hand out schema names as "Did you mean ..."
// suggestions: not for fields, arguments, types, input fields, nor enum values, whether the typo
// is written in the document or sent in the variables (where graphql-js reports it during
// execution, after validation). With introspection on (development), suggestions stay.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const TYPOS: [string, string, Record<string, unknown>, RegExp][] = [
  ["field", `{ me { usernam } }`, {}, /username/],
  ["argument", `{ restaurants(frist: 2) { nodes { id } } }`, {}, /"first"/],
  ["type", `query($s: RestaurantSrot) { restaurants(sort: $s) { nodes { id } } }`, {}, /"RestaurantSort"/],
  ["enum value in the document", `{ restaurants(sort: RATNG) { nodes { id } } }`, {}, /RATING/],
  [
    "enum value in the variables",
    `query($s: RestaurantSort) { restaurants(sort: $s) { nodes { id } } }`,
    { s: "RATNG" },
    /RATING/,
  ],
  [
    "input field in the variables",
    `query($f: RestaurantFilter) { restaurants(filter: $f) { nodes { id } } }`,
    { f: { cuisin: "x" } },
    /"cuisine"/,
  ],
];

describe("GRAPHQL_INTROSPECTION=false", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer({ GRAPHQL_INTROSPECTION: "false" });
    token = (await s.signUp("hidden")).token;
  });
  afterAll(async () => s?.close());

  it.each(TYPOS)("suggests nothing for a mistyped %s", async (_what, query, variables, name) => {
    const r = await s.graphql(query, variables, token);
    expect(r.status).toBe(400);
    expect(r.errors?.length).toBeGreaterThan(0);
    for (const error of r.errors ?? []) {
      expect(error.extensions?.code).toBe("BAD_USER_INPUT");
      expect(error.message).not.toMatch(/did you mean/i);
      expect(error.message).not.toMatch(name);
    }
  });
});

describe("GRAPHQL_INTROSPECTION=true (development)", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer();
    token = (await s.signUp("shown")).token;
  });
  afterAll(async () => s?.close());

  it.each(TYPOS)("still suggests for a mistyped %s", async (_what, query, variables, name) => {
    const r = await s.graphql(query, variables, token);
    expect(r.errors?.map((e) => e.message).join(" ")).toMatch(name);
  });
});

describe("NODE_ENV=production (introspection on)", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer({ NODE_ENV: "production" });
    token = (await s.signUp("prod")).token;
  });
  afterAll(async () => s?.close());

  it.each(TYPOS)("suggests nothing for a mistyped %s", async (_what, query, variables, name) => {
    const r = await s.graphql(query, variables, token);
    for (const error of r.errors ?? []) expect(error.message).not.toMatch(name);
    expect(r.errors?.length).toBeGreaterThan(0);
  });
});
