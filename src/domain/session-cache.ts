// A short-lived, bounded, in-process memory of tokens already authenticated, so a burst of
// requests with one token costs one database look-up instead of one each. A logout through this
// process forgets the token at once; a revocation made elsewhere (another instance, the admin
// command line) or a role change takes effect within the TTL. TTL 0 turns the cache off.
import type { Db } from "../db/client.ts";
import { authenticate, hashToken, type Authentication } from "./tokens.ts";

const MAX_ENTRIES = 10_000;

export class SessionCache {
  private readonly entries = new Map<string, { auth: Authentication; until: number; at: number }>();

  constructor(private readonly ttlMs: number) {}

  /** `maxAgeMs`: accept only an answer looked up at most this long ago (a long-lived connection re-checking its token). */
  async authenticate(db: Db, token: string | undefined, maxAgeMs?: number): Promise<Authentication> {
    if (!token || this.ttlMs === 0) return authenticate(db, token);
    const key = hashToken(token);
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now && (maxAgeMs === undefined || now - hit.at <= maxAgeMs)) return hit.auth;
    const auth = await authenticate(db, token);
    if (auth.state === "valid") {
      // Never past the token's own expiry.
      this.remember(key, { auth, until: Math.min(now + this.ttlMs, auth.expiresAt.getTime()), at: now });
    }
    return auth;
  }

  forget(token: string | undefined): void {
    if (token) this.entries.delete(hashToken(token));
  }

  private remember(key: string, entry: { auth: Authentication; until: number; at: number }) {
    this.entries.delete(key);
    this.entries.set(key, entry);
    // Map keeps insertion order: the first key is the oldest.
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}
