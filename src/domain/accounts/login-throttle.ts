// Per-account login throttle with exponential back-off, so guessing one account's password is
// bounded whatever tokens or client addresses the guesser uses. State is kept per username:
// the first `freeAttempts` consecutive failures cost nothing; each further failure locks the name
// for 1 s, 2 s, 4 s, ... up to `maxDelayMs`; a locked name answers RATE_LIMITED with the wait,
// without checking the password. A successful login resets the count; a day without failures too.
//
// Trade-off: a guesser can keep a name locked (one guess per `maxDelayMs`), which would also lock
// out its owner. Two things bound that: the lock never exceeds `maxDelayMs`, and an address the
// account has signed in from before is throttled on its own (username + address), so guesses
// from elsewhere do not lock the owner out of their usual address. Tokens already issued keep working.
import { RetryLaterError } from "../../contract/errors.ts";

/** The first lock once the free attempts are spent; it doubles with each further failure. */
const BASE_DELAY_MS = 1000;
/** A name with no failure for a day starts afresh. */
const FORGET_AFTER_MS = 86_400_000;
/** Names (and name + address pairs) remembered: bounds memory under a flood of made-up usernames. */
export const MAX_ENTRIES = 100_000;
/** How many locked names eviction steps over (moving them to the back) before it drops one anyway. */
const LOCKED_SKIPS = 8;
/** The owner's usual addresses (home, work, phone) that keep their own throttle. */
const KNOWN_ADDRESSES_PER_ACCOUNT = 5;

export type LoginThrottleSettings = {
  /** Consecutive failed logins for one username before back-off starts. */
  freeAttempts: number;
  /** Longest lock after a failure; 0 turns the throttle off. */
  maxDelayMs: number;
};

type State = { failures: number; lockedUntil: number; inFlight: number; lastFailure: number };

/** One login attempt let through: report how it ended. */
export type LoginAttempt = {
  succeeded(): void;
  failed(): void;
  /** Ended before the password was checked. */ abandoned(): void;
};

const NOTHING: LoginAttempt = { succeeded: () => {}, failed: () => {}, abandoned: () => {} };

export class LoginThrottle {
  private readonly states = new Map<string, State>();
  /** Addresses each username has signed in from lately (most recent last). */
  private readonly knownAddresses = new Map<string, string[]>();

  constructor(private readonly settings: LoginThrottleSettings) {}

  /** Lets an attempt for `username` from `address` through, or throws RATE_LIMITED with the wait. */
  begin(username: string, address: string): LoginAttempt {
    if (this.settings.maxDelayMs === 0) return NOTHING;
    const now = Date.now();
    // No account name is longer than 40 characters: longer ones share a key rather than fill memory.
    const name = username.slice(0, 100);
    const key = this.knownAddresses.get(name)?.includes(address) ? `a:${address}\n${name}` : `n:${name}`;
    const state = this.stateOf(key, now);
    if (state.lockedUntil > now) throw this.locked(state.lockedUntil - now);
    // Guesses sent at once would all pass the lock before the first fails: only as many may be in
    // flight as failures remain free (one when none does).
    if (state.inFlight >= Math.max(1, this.settings.freeAttempts - state.failures)) throw this.locked(BASE_DELAY_MS);
    state.inFlight++;
    return {
      succeeded: () => {
        state.inFlight--;
        state.failures = 0;
        state.lockedUntil = 0;
        this.remember(name, address);
      },
      abandoned: () => {
        state.inFlight--;
      },
      failed: () => {
        state.inFlight--;
        state.failures++;
        state.lastFailure = Date.now();
        const over = state.failures - this.settings.freeAttempts;
        if (over >= 0)
          state.lockedUntil =
            state.lastFailure + Math.min(BASE_DELAY_MS * 2 ** Math.min(over, 30), this.settings.maxDelayMs);
      },
    };
  }

  private locked(waitMs: number): RetryLaterError {
    return new RetryLaterError(
      "RATE_LIMITED",
      "Too many failed sign-ins for this account; wait before trying again.",
      waitMs / 1000,
    );
  }

  private stateOf(key: string, now: number): State {
    let state = this.states.get(key);
    if (state && state.inFlight === 0 && state.lastFailure && now - state.lastFailure > FORGET_AFTER_MS)
      state = undefined;
    if (!state) {
      state = { failures: 0, lockedUntil: 0, inFlight: 0, lastFailure: 0 };
      this.boundStates(now);
    }
    // Re-inserted on use, so the Map's order is least recently used first.
    this.states.delete(key);
    this.states.set(key, state);
    return state;
  }

  private remember(username: string, address: string): void {
    const addresses = (this.knownAddresses.get(username) ?? []).filter((a) => a !== address);
    addresses.push(address);
    this.knownAddresses.delete(username);
    this.bound(this.knownAddresses);
    this.knownAddresses.set(username, addresses.slice(-KNOWN_ADDRESSES_PER_ACCOUNT));
  }

  /**
   * Keeps the states under the bound by forgetting the least recently used, stepping over a few
   * locked ones (moved to the back): otherwise a guesser could unlock a name by sending logins
   * for enough other names to push its lock out.
   */
  private boundStates(now: number): void {
    let skips = 0;
    for (const [key, state] of this.states) {
      if (this.states.size < MAX_ENTRIES) break;
      this.states.delete(key);
      if (state.lockedUntil > now && skips++ < LOCKED_SKIPS) this.states.set(key, state);
    }
  }

  /** Keeps a map under the bound by forgetting its least recently used entries. */
  private bound(map: Map<string, unknown>): void {
    for (const key of map.keys()) {
      if (map.size < MAX_ENTRIES) break;
      map.delete(key);
    }
  }
}
