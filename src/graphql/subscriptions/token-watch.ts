// A subscription outlives the request that started it, so its token is checked again while it
// runs: a revoked or expired token, or a changed role, ends it, whatever the transport. A
// revocation or role change announced on the event bus (from any instance on PostgreSQL or with
// REDIS_URL) triggers the check at once; a timer re-checks anyway every half SESSION_CACHE_TTL
// accepting cached answers at most half a TTL old (an expiry, or an event lost in a gap), so the
// end comes within one TTL at worst. Without a cache (TTL 0) the timer reads the database once a second.
import type { Authentication } from "../../domain/accounts/tokens.ts";
import type { EventBus } from "../../events/bus.ts";
import type { ContextFactory } from "../data/context.ts";

export type TokenEnd = "revoked" | "role changed";

export type TokenWatcherOptions = {
  authenticate: ContextFactory["authenticate"];
  sessionTtlMs: number;
  /** Where revocations and role changes are announced. */
  events: EventBus;
};

export type WatchedToken = {
  token: string | undefined;
  auth: Authentication;
  /** Called at most once, when the token no longer holds. */
  onEnd(why: TokenEnd): void;
  /** Each answer that is still valid (a fresher expiry for contexts built later). */
  onValid?(auth: Authentication): void;
};

/** What one socket or stream asked to be told about its token. */
type Watcher = { role: string; onEnd(why: TokenEnd): void; onValid?(auth: Authentication): void };

/**
 * Watches tokens of live subscriptions; one bus listener for all of them. Returns watch(): stop function.
 * Every socket and stream of one token shares one check and one timer (10,000 phones signed in
 * with a few hundred tokens re-check a few hundred times per period, not 10,000; issue 48).
 */
export function tokenWatcher({ authenticate, sessionTtlMs, events }: TokenWatcherOptions) {
  const every = sessionTtlMs > 0 ? Math.max(100, sessionTtlMs / 2) : 1000;
  /** The watchers of each token followed, and how to stop following it. */
  const byToken = new Map<string, { watchers: Set<Watcher>; stop(): void }>();
  /** Checks now, by the session id and the user id they concern. */
  const bySession = new Map<string, Set<() => void>>();
  const byUser = new Map<string, Set<() => void>>();
  const add = (index: Map<string, Set<() => void>>, key: string, check: () => void) => {
    const set = index.get(key) ?? new Set();
    set.add(check);
    index.set(key, set);
    return () => {
      set.delete(check);
      if (set.size === 0) index.delete(key);
    };
  };
  // The session cache heard the same event first (it listens from start-up) and forgot the token.
  const unlisten = events.listen((event) => {
    const checks =
      event.topic === "sessionRevoked"
        ? bySession.get(event.sessionId)
        : event.topic === "userChanged"
          ? byUser.get(event.userId)
          : undefined;
    for (const check of [...(checks ?? [])]) check();
  });

  /** Follows `token` from its first watcher to its last: one timer, one place in each index. */
  function follow(token: string, { id: userId, tokenId }: { id: string; tokenId: string }): Set<Watcher> {
    const watchers = new Set<Watcher>();
    const check = async (maxAgeMs?: number) => {
      let now: Authentication;
      try {
        now = await authenticate(token, maxAgeMs);
      } catch {
        return; // the database is unreachable: keep them, check again next time
      }
      for (const watcher of [...watchers]) {
        const why: TokenEnd | null =
          now.state !== "valid" ? "revoked" : now.viewer.role !== watcher.role ? "role changed" : null;
        if (!why) watcher.onValid?.(now);
        else if (leave(token, watcher)) watcher.onEnd(why);
      }
    };
    const timer = setInterval(() => void check(sessionTtlMs > 0 ? every : undefined), every);
    timer.unref();
    const now = () => void check(0);
    const unindex = [add(bySession, tokenId, now), add(byUser, userId, now)];
    const stop = () => {
      clearInterval(timer);
      unindex.forEach((remove) => remove());
    };
    byToken.set(token, { watchers, stop });
    return watchers;
  }

  /** Removes `watcher` (false if it was gone already); the token's last watcher stops following it. */
  function leave(token: string, watcher: Watcher): boolean {
    const followed = byToken.get(token);
    if (!followed?.watchers.delete(watcher)) return false;
    if (followed.watchers.size === 0) {
      byToken.delete(token);
      followed.stop();
    }
    return true;
  }

  function watch({ token, auth, onEnd, onValid }: WatchedToken): () => void {
    if (!token || auth.state !== "valid") return () => {};
    const watcher: Watcher = { role: auth.viewer.role, onEnd, onValid };
    (byToken.get(token)?.watchers ?? follow(token, auth.viewer)).add(watcher);
    return () => void leave(token, watcher);
  }
  /** Stops following the bus (the server closes). */
  return Object.assign(watch, { close: unlisten });
}

export type TokenWatch = ReturnType<typeof tokenWatcher>;
