// The login throttle's memory bound must not be a way around its lock: a guesser who sends
// logins for many other names (pushing old entries out) must not unlock the name being guessed.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LoginThrottle, MAX_ENTRIES } from "../../src/domain/accounts/login-throttle.ts";

const fail = (throttle: LoginThrottle, name: string, address: string) => throttle.begin(name, address).failed();

describe("LoginThrottle's bound on remembered names", () => {
  // The clock stands still: filling the bound takes longer than a 1 s lock on a loaded machine,
  // and what is tested is the bound, not the lock's length.
  beforeEach(() => vi.useFakeTimers({ toFake: ["Date"] }));
  afterEach(() => vi.useRealTimers());

  it("keeps a locked name locked while other names fill the bound", () => {
    const throttle = new LoginThrottle({ freeAttempts: 1, maxDelayMs: 60_000 });
    fail(throttle, "victim", "198.51.100.1"); // the free attempt used up: locked for 1 s
    expect(() => throttle.begin("victim", "198.51.100.3")).toThrow(/Too many failed sign-ins/);

    for (let i = 0; i <= MAX_ENTRIES; i++) throttle.begin(`filler${i}`, "203.0.113.9").abandoned();

    expect(() => throttle.begin("victim", "198.51.100.4")).toThrow(/Too many failed sign-ins/);
  });

  it("still forgets names once more than a few locked ones stand in the way, so memory stays bounded", () => {
    const throttle = new LoginThrottle({ freeAttempts: 0, maxDelayMs: 60_000 });
    for (let i = 0; i < MAX_ENTRIES + 100; i++) fail(throttle, `locked${i}`, "203.0.113.9");
    // Every name is locked; the states map never grows past its bound (new names keep being admitted).
    expect(() => throttle.begin("fresh", "203.0.113.9").abandoned()).not.toThrow();
    expect((throttle as unknown as { states: Map<string, unknown> }).states.size).toBeLessThanOrEqual(MAX_ENTRIES);
  });
});
