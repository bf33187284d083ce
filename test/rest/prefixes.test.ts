// REST_PREFIXES (issue 14): the prefixes under which every legacy route also answers, /v1 by
// default. A browser page of the original service calls /api/groceries from another origin:
// REST_PREFIXES=/v1,/api with CORS_ORIGINS listing the page's origin serves it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { runUntilExit } from "../helpers/process.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { expectError, get, sendJson } from "./legacy.ts";

const PAGE = "https://shop.example";

describe("REST_PREFIXES unset: /v1 only", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer();
    token = (await s.signUp("reader")).token;
  });
  afterAll(async () => s?.close());

  it("answers /v1/groceries and 404 for /api/groceries", async () => {
    expect(s.config.legacy.restPrefixes).toEqual(["/v1"]);
    expect((await get(s, "/v1/groceries", token)).status).toBe(200);
    expectError(await get(s, "/api/groceries", token), 404, "NOT_FOUND");
    expectError(await sendJson(s, "POST", "/api/signin", { username: "x", password: "y" }), 404, "NOT_FOUND");
  });
});

describe("REST_PREFIXES=/v1,/api with CORS_ORIGINS (a browser page on another origin)", () => {
  let s: TestServer;
  let token: string;
  let groceryId: string;
  beforeAll(async () => {
    s = await startServer({ REST_PREFIXES: "/v1,/api", CORS_ORIGINS: PAGE });
    token = (await s.signUp("reader")).token;
    const added = await sendJson(s, "POST", "/api/groceries", { title: "Basmati" }, token);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    groceryId = added.body._id;
  });
  afterAll(async () => s?.close());

  it("answers every route under each prefix, with and without a trailing slash, the same as unprefixed", async () => {
    for (const path of [
      "/groceries",
      "/v1/groceries",
      "/api/groceries",
      "/api/groceries/",
      `/api/groceries/${groceryId}`,
    ]) {
      const a = await get(s, path, token);
      expect(a.status, path).toBe(200);
    }
    expect((await get(s, "/api/groceries", token)).body).toEqual((await get(s, "/groceries", token)).body);
    expect((await sendJson(s, "POST", "/api/signin", { username: "nobody", password: "wrong-password" })).status).toBe(
      401,
    );
    // A known path asked with another method: 405 with Allow under the prefix too.
    const wrong = await s.fetch("/api/groceries", { method: "DELETE", token });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toMatch(/GET/);
    expect((await s.fetch("/api/openapi.json")).status).toBe(200);
  });

  it("answers the page's CORS preflight and request for /api/groceries", async () => {
    const preflight = await s.fetch("/api/groceries", {
      method: "OPTIONS",
      headers: {
        origin: PAGE,
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(PAGE);
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/authorization/);
    const res = await s.fetch("/api/groceries", { token, headers: { origin: PAGE } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(PAGE);
  });

  it("lists the prefixes in the OpenAPI document", async () => {
    const doc = (await (await s.fetch("/openapi.json")).json()) as any;
    expect(doc.servers.map((x: { url: string }) => x.url)).toEqual(["/", "/v1", "/api"]);
    expect(doc.info.description).toContain("under /v1, /api");
  });
});

describe("REST_PREFIXES=none", () => {
  it("serves the paths as written only", async () => {
    const s = await startServer({ REST_PREFIXES: "none" });
    try {
      const { token } = await s.signUp("reader");
      expect((await get(s, "/groceries", token)).status).toBe(200);
      expectError(await get(s, "/v1/groceries", token), 404, "NOT_FOUND");
    } finally {
      await s.close();
    }
  });
});

describe("bad REST_PREFIXES values", () => {
  it.each([["api"], ["/api/"], ["/v1, /api"], ["/a b"], ["/v1,"], ["/"], ["/.."], ["/api/:id"], ["/v1,/v1"]])(
    "refuses %j naming the variable",
    (value) => {
      expect(() => loadConfig({ REST_PREFIXES: value })).toThrow(ConfigError);
      try {
        loadConfig({ REST_PREFIXES: value });
      } catch (error) {
        expect((error as ConfigError).problems.join("\n")).toMatch(/^REST_PREFIXES=/);
      }
    },
  );

  it("accepts several segments", () => {
    expect(loadConfig({ REST_PREFIXES: "/api/v2,/legacy_1" }).legacy.restPrefixes).toEqual(["/api/v2", "/legacy_1"]);
  });

  it("stops the real process with exit code 2", async () => {
    const { code, output } = await runUntilExit({ REST_PREFIXES: "/api/", DATABASE_URL: "file:/tmp/never-created.db" });
    expect(code).toBe(2);
    expect(output).toContain("REST_PREFIXES");
    expect(output).not.toMatch(/\n\s+at /);
  });
});
