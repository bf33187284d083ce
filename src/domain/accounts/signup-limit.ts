// Sign-ups per client address: at most `perHour` accounts an hour from one address (attempts that
// pass validation count, taken names included: each costs a password hash). Open registration
// would otherwise let one address mint accounts, and their tokens, without end. In memory, per
// process, bounded; 0 turns it off.
import { RetryLaterError } from "../../contract/errors.ts";

/** SIGNUP_RATE_LIMIT counts per hour. */
const WINDOW_MS = 3_600_000;
/** Addresses remembered: bounds memory when sign-ups come from many addresses. */
const MAX_ADDRESSES = 100_000;

export class SignUpLimit {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly perHour: number) {}

  /** Counts one sign-up from `address`, or throws RATE_LIMITED with the wait. */
  take(address: string): void {
    if (this.perHour === 0) return;
    const now = Date.now();
    let window = this.windows.get(address);
    if (!window || window.resetAt <= now) {
      this.windows.delete(address);
      if (this.windows.size >= MAX_ADDRESSES) this.dropExpired(now);
      window = { count: 0, resetAt: now + WINDOW_MS };
      this.windows.set(address, window);
    }
    if (window.count >= this.perHour) {
      throw new RetryLaterError(
        "RATE_LIMITED",
        `Too many sign-ups from this address (at most ${this.perHour} an hour); try again later.`,
        (window.resetAt - now) / 1000,
      );
    }
    window.count++;
  }

  private dropExpired(now: number): void {
    for (const [address, window] of this.windows) if (window.resetAt <= now) this.windows.delete(address);
    // Still full: forget the oldest windows (Map keeps insertion order).
    for (const address of this.windows.keys()) {
      if (this.windows.size < MAX_ADDRESSES) break;
      this.windows.delete(address);
    }
  }
}
