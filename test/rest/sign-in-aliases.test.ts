// The original service's documentation signs in with POST /signin ({username, password}, JSON or
// form) and signs out with GET /signout?access_token=... (200). Both are rows of the route table
// made from Sign in and Sign out (issue 14): the same answer, the same refusals, the same rate
// limit and login throttle, and they appear in the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { expectError, get, sendForm, sendJson } from "./legacy.ts";

const PASSWORD = "correct-horse"; // what TestServer.signUp registers with

let s: TestServer;
let ann: { token: string; id: string; username: string };

beforeAll(async () => {
  s = await startServer();
  ann = await s.signUp("ann");
});
afterAll(async () => s?.close());

describe("POST /signin", () => {
  it("answers a session like POST /auth/token, from JSON and from a form", async () => {
    const json = await sendJson(s, "POST", "/signin", { username: ann.username, password: PASSWORD });
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    expect(Object.keys(json.body).sort()).toEqual(["access_token", "expires_at", "token_type", "user"]);
    expect(json.body).toMatchObject({ token_type: "Bearer", user: { _id: ann.id, username: ann.username } });
    const form = await sendForm(s, "POST", "/signin", { username: ann.username, password: PASSWORD });
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect(form.body.access_token).not.toBe(json.body.access_token);
    // The token it answers works.
    expect((await get(s, "/restaurants", form.body.access_token)).status).toBe(200);
    // Under the version prefix too.
    expect((await sendJson(s, "POST", "/v1/signin", { username: ann.username, password: PASSWORD })).status).toBe(200);
  });

  it("refuses what POST /auth/token refuses, with the same answers", async () => {
    for (const path of ["/auth/token", "/signin"]) {
      expectError(
        await sendJson(s, "POST", path, { username: ann.username, password: "wrong-password" }),
        401,
        "UNAUTHENTICATED",
      );
      expectError(
        await sendJson(s, "POST", path, { username: ann.username }),
        400,
        "BAD_USER_INPUT",
        /password is required/,
      );
    }
  });
});

describe("GET /signout", () => {
  it("revokes the token given as access_token and answers 200", async () => {
    const session = await sendJson(s, "POST", "/signin", { username: ann.username, password: PASSWORD });
    const token = session.body.access_token as string;
    const out = await get(s, `/signout?access_token=${encodeURIComponent(token)}`);
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect(out.body).toEqual({ signed_out: true });
    expectError(await get(s, "/restaurants", token), 401, "UNAUTHENTICATED");
    // The other sessions of the account are untouched.
    expect((await get(s, "/restaurants", ann.token)).status).toBe(200);
  });

  it("needs a valid token", async () => {
    expectError(await get(s, "/signout"), 401, "UNAUTHENTICATED");
    expectError(await get(s, "/signout?access_token=made-up"), 401, "UNAUTHENTICATED");
  });

  it("has no HEAD route: a HEAD changes nothing", async () => {
    const session = await sendJson(s, "POST", "/signin", { username: ann.username, password: PASSWORD });
    const token = session.body.access_token as string;
    const head = await s.fetch(`/signout?access_token=${encodeURIComponent(token)}`, { method: "HEAD" });
    expect(head.status).toBeGreaterThanOrEqual(400);
    expect((await get(s, "/restaurants", token)).status).toBe(200);
  });
});

describe("the same limits as sign-in", () => {
  it("counts POST /signin failures in the login throttle shared with POST /auth/token", async () => {
    const t = await startServer({ LOGIN_FREE_ATTEMPTS: "2", LOGIN_BACKOFF_MAX: "1h" });
    try {
      const victim = await t.signUp("victim");
      expect(
        (await sendJson(t, "POST", "/auth/token", { username: victim.username, password: "guess-1" })).status,
      ).toBe(401);
      expect((await sendJson(t, "POST", "/signin", { username: victim.username, password: "guess-2" })).status).toBe(
        401,
      );
      expectError(
        await sendJson(t, "POST", "/signin", { username: victim.username, password: PASSWORD }),
        429,
        "RATE_LIMITED",
      );
      expectError(
        await sendJson(t, "POST", "/auth/token", { username: victim.username, password: PASSWORD }),
        429,
        "RATE_LIMITED",
      );
    } finally {
      await t.close();
    }
  });

  it("is rate-limited like every route", async () => {
    const t = await startServer({ RATE_LIMIT_MAX: "2" });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await sendJson(t, "POST", "/signin", { username: "nobody", password: "guess-guess" })).status);
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await t.close();
    }
  });
});

describe("the OpenAPI document", () => {
  it("lists both paths, public sign-in and the 200 of GET /signout", async () => {
    const doc = (await (await s.fetch("/openapi.json")).json()) as any;
    expect(doc.paths["/signin"].post.security).toEqual([]);
    expect(doc.paths["/signin"].post.description).toMatch(/POST \/auth\/token/);
    expect(doc.paths["/signin"].post.requestBody.content["application/x-www-form-urlencoded"].schema.required).toEqual([
      "username",
      "password",
    ]);
    expect(
      doc.paths["/signout"].get.responses["200"].content["application/json"].schema.properties.signed_out,
    ).toBeDefined();
    expect(doc.paths["/signout"].get.security).toBeUndefined();
  });
});
