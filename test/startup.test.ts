// Start-up as `npm start` does it: settings validated, database created and migrated, data kept
// across a restart, SIGTERM handled.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, ConfigError } from "../src/config.ts";
import { createTestDatabase, type TestDatabase } from "./helpers/database.ts";
import { runUntilExit, startProcess } from "./helpers/process.ts";

describe("settings", () => {
  it("has defaults that need no .env", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 4000, host: "127.0.0.1", logLevel: "info", env: "development" });
    expect(c.database).toMatchObject({ dialect: "sqlite", url: "file:./data/gateway.db" });
    expect(c.tokenTtlMs).toBe(30 * 86_400_000);
    expect(c.uploadDir).toMatch(/data\/uploads$/);
  });

  it("reads each documented variable", () => {
    const c = loadConfig({
      PORT: "8080",
      HOST: "0.0.0.0",
      DATABASE_URL: "postgres://u:p@db:5432/x",
      UPLOAD_DIR: "/tmp/u",
      LOG_LEVEL: "debug",
      TOKEN_TTL: "12h",
    });
    expect(c).toMatchObject({
      port: 8080,
      host: "0.0.0.0",
      uploadDir: "/tmp/u",
      logLevel: "debug",
      tokenTtlMs: 12 * 3_600_000,
    });
    expect(c.database.dialect).toBe("postgres");
  });

  it("lists every bad value with the variable's name", () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: "eighty",
        DATABASE_URL: "mysql://x",
        TOKEN_TTL: "forever",
        LOG_LEVEL: "loud",
        WS_MESSAGE_BURST: "0",
        WS_MESSAGES_PER_SECOND: "many",
        SSE_KEEPALIVE: "-1s",
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join("\n");
    for (const name of [
      "PORT",
      "DATABASE_URL",
      "TOKEN_TTL",
      "LOG_LEVEL",
      "WS_MESSAGE_BURST",
      "WS_MESSAGES_PER_SECOND",
      "SSE_KEEPALIVE",
    ])
      expect(problems).toContain(name);
  });

  it("stops the real process with exit code 2 and a clear message", async () => {
    const { code, output } = await runUntilExit({ PORT: "70000", DATABASE_URL: "file:/tmp/never-created.db" });
    expect(code).toBe(2);
    expect(output).toContain("PORT");
    expect(output).toContain("at most 65535");
    expect(output).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe("the real process", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  it("creates and migrates an empty database, keeps data across restarts, and exits cleanly on SIGTERM", async () => {
    const env = { DATABASE_URL: database.url, UPLOAD_DIR: "/tmp/gw-startup-uploads" };
    const first = await startProcess(env);
    const created = await fetch(`${first.url}/users`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "survivor", password: "password-123", first_name: "Sam" }),
    });
    expect(created.status).toBe(201);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain("database migrated");

    const second = await startProcess(env);
    try {
      expect(second.output()).not.toContain("database migrated"); // nothing left to apply
      const login = await fetch(`${second.url}/auth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "survivor", password: "password-123" }),
      });
      expect(login.status).toBe(200);
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
    }
  });
});
