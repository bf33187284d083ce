// /readyz names "uploads" and answers 503 while UPLOAD_DIR cannot be written, and ready again once
// it can. Tests run as root, where chmod stops no write: the folder is made unwritable by removing
// it, or by putting a file in its place.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ LOG_LEVEL: "warn" });
});
afterAll(() => s?.close());

async function readiness() {
  const res = await s.fetch("/readyz");
  return { status: res.status, body: await res.json() };
}

describe("/readyz and the upload folder", () => {
  it("is ready while the folder can be written", async () => {
    expect(await readiness()).toEqual({
      status: 200,
      body: { status: "ok", database: "ok", writes: "ok", uploads: "ok" },
    });
  });

  it("is not ready while the folder is gone, and ready again once it is back", async () => {
    rmSync(s.config.uploadDir, { recursive: true, force: true });
    expect(await readiness()).toEqual({
      status: 503,
      body: { status: "unavailable", database: "ok", writes: "ok", uploads: "not writable" },
    });
    mkdirSync(s.config.uploadDir);
    expect((await readiness()).status).toBe(200);
  });

  it("is not ready while a file stands where the folder should be", async () => {
    rmSync(s.config.uploadDir, { recursive: true, force: true });
    writeFileSync(s.config.uploadDir, "not a folder");
    expect(await readiness()).toMatchObject({ status: 503, body: { uploads: "not writable" } });
    rmSync(s.config.uploadDir);
    mkdirSync(s.config.uploadDir);
    expect((await readiness()).status).toBe(200);
  });

  it("logs why it is not ready: every warning line carries a reason", async () => {
    rmSync(s.config.uploadDir, { recursive: true, force: true });
    s.logs.length = 0;
    expect((await readiness()).status).toBe(503);
    mkdirSync(s.config.uploadDir);
    const lines = s.logs.map((line) => JSON.parse(line));
    expect(lines.find((line) => line.msg === "not ready")).toMatchObject({ reason: "uploads not writable" });
    expect(lines.find((line) => line.url === "/readyz")).toMatchObject({
      status: 503,
      reason: "answered 503 Service Unavailable",
    });
    for (const line of lines.filter((l) => l.level >= 40))
      expect(line.reason || line.err?.message, JSON.stringify(line)).toBeTruthy();
  });

  it("keeps /healthz a liveness check: 200 whatever the folder", async () => {
    rmSync(s.config.uploadDir, { recursive: true, force: true });
    expect((await s.fetch("/healthz")).status).toBe(200);
    mkdirSync(s.config.uploadDir);
  });
});
