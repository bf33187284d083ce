// What /readyz reports of writes (src/db/health/write-health.ts): outcomes count in the order their
// statements began, not the order they ended, so a probe that began while the disk was full and
// failed after a later write succeeded does not mark a healthy database failing again.
import { describe, expect, it } from "vitest";
import { WriteHealth } from "../../src/db/health/write-health.ts";

const diskFull = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });

describe("WriteHealth", () => {
  it("ignores a failure whose statement began before a success that was already recorded", () => {
    const health = new WriteHealth();
    health.failed(diskFull, health.begin());
    expect(health.failure?.kind).toBe("STORAGE_FULL");
    const probe = health.begin(); // began while the disk was still full...
    const write = health.begin();
    health.succeeded(write); // ...a later write succeeded once room was made...
    health.failed(diskFull, probe); // ...and the probe's failure arrives last
    expect(health.failure).toBeNull();
  });

  it("records a failure whose statement began after the last success", () => {
    const health = new WriteHealth();
    health.succeeded(health.begin());
    health.failed(diskFull, health.begin());
    expect(health.failure?.kind).toBe("STORAGE_FULL");
  });
});
