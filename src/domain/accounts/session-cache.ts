// A short-lived, bounded, in-process memory of tokens already authenticated, so a burst of
// requests with one token costs one database look-up instead of one each. It follows the event
// bus: a logout, a revocation or a role change made anywhere (this process, another instance,
// the admin command line) publishes an event, and every process drops the entries it concerns as
// soon as it arrives. Without that event (a gap in delivery, or SQLite's admin command line in
// another process) a change takes effect within the TTL. TTL 0 turns the cache off.
import type { Db } from "../../db/db.ts";
import type { EventBus } from "../../events/bus.ts";
import type { LiveEvent } from "../../events/live-event.ts";
import { MAX_TOKEN_LENGTH } from "../../identity/verify-token.ts";
import type { TokenCheck } from "./provider-tokens.ts";
import { authenticate, hashToken, type Authentication } from "./tokens.ts";

/** Tokens remembered (oldest out first): bounds memory when a flood sends many distinct tokens. */
const MAX_ENTRIES = 10_000;

/** `at`: when the answer was looked up (a long-lived connection may want a fresher one). */
type Entry = { auth: Authentication & { state: "valid" }; until: number; at: number };

export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly unfollow: (() => void)[] = [];
  /** Look-ups under way, by token hash. */
  private readonly lookups = new Map<string, Promise<Authentication>>();
  /** Counts drops (revocations, gaps, forgets): a look-up that saw one start is not kept. */
  private generation = 0;

  /** `check`: who a token is (this service's tokens only, by default; with the identity provider's: provider-tokens.ts). */
  constructor(
    private readonly ttlMs: number,
    events?: EventBus,
    private readonly check: TokenCheck = authenticate,
  ) {
    if (events) {
      this.unfollow.push(events.listen((event) => this.apply(event)));
      // Events lost in a gap may have revoked anything: look every token up again.
      if (events.listenForGaps)
        this.unfollow.push(
          events.listenForGaps(() => {
            this.dropped();
            this.entries.clear();
          }),
        );
    }
  }

  /** `maxAgeMs`: accept only an answer looked up at most this long ago (a long-lived connection re-checking its token). */
  async authenticate(db: Db, token: string | undefined, maxAgeMs?: number): Promise<Authentication> {
    // An over-long token is refused by the check at once; it is not worth hashing.
    if (!token || this.ttlMs === 0 || token.length > MAX_TOKEN_LENGTH) return this.check(db, token);
    const key = hashToken(token);
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now && (maxAgeMs === undefined || now - hit.at <= maxAgeMs)) return hit.auth;
    // One look-up per token at a time: a burst of requests, or every connection of one token
    // re-checking at once, waits for the look-up already under way instead of repeating it.
    const underWay = this.lookups.get(key);
    if (underWay) return underWay;
    const generation = this.generation;
    const lookup = this.check(db, token).then((auth) => {
      // Not when something was dropped meanwhile (a revocation may have crossed this look-up).
      if (auth.state === "valid" && generation === this.generation) {
        // Never past the token's own expiry.
        this.remember(key, { auth, until: Math.min(now + this.ttlMs, auth.expiresAt.getTime()), at: now });
      }
      return auth;
    });
    this.lookups.set(key, lookup);
    try {
      return await lookup;
    } finally {
      if (this.lookups.get(key) === lookup) this.lookups.delete(key);
    }
  }

  forget(token: string | undefined): void {
    if (!token) return;
    this.dropped();
    this.entries.delete(hashToken(token));
  }

  /** Something was dropped: look-ups under way may predate it, so they are neither kept nor shared. */
  private dropped() {
    this.generation++;
    this.lookups.clear();
  }

  /** Stops following the event bus (the server closes). */
  close(): void {
    for (const stop of this.unfollow.splice(0)) stop();
    this.entries.clear();
  }

  /**
   * Drops the entries an event concerns. Revocations are rare and the cache is bounded, so a scan
   * costs less than keeping indexes by session and by user in step with eviction.
   */
  private apply(event: LiveEvent) {
    if (event.topic === "sessionRevoked") this.dropWhere((entry) => entry.auth.viewer.tokenId === event.sessionId);
    else if (event.topic === "userChanged") this.dropWhere((entry) => entry.auth.viewer.id === event.userId);
  }

  private dropWhere(concerned: (entry: Entry) => boolean) {
    this.dropped();
    for (const [key, entry] of this.entries) if (concerned(entry)) this.entries.delete(key);
  }

  private remember(key: string, entry: Entry) {
    this.entries.delete(key);
    this.entries.set(key, entry);
    // Map keeps insertion order: the first key is the oldest.
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}
