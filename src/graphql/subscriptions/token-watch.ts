// A subscription outlives the request that started it, so its token is checked again while it
// runs: a revoked or expired token, or a changed role, ends it within SESSION_CACHE_TTL, whatever
// the transport. Re-checks every half TTL accept cached answers at most half a TTL old; without a
// cache (TTL 0) each re-check reads the database, once a second.
import type { Authentication } from "../../domain/tokens.ts";
import type { ContextFactory } from "../context.ts";

export type TokenEnd = "revoked" | "role changed";

/** Starts watching; `onEnd` is called at most once. Returns the function that stops watching. */
export function watchToken(
  authenticate: ContextFactory["authenticate"],
  sessionTtlMs: number,
  token: string | undefined,
  auth: Authentication,
  onEnd: (why: TokenEnd) => void,
  /** Each answer that is still valid (a fresher expiry for contexts built later). */
  onValid?: (auth: Authentication) => void,
): () => void {
  if (!token || auth.state !== "valid") return () => {};
  const role = auth.viewer.role;
  const every = sessionTtlMs > 0 ? Math.max(100, sessionTtlMs / 2) : 1000;
  const timer = setInterval(async () => {
    let now: Authentication;
    try {
      now = await authenticate(token, sessionTtlMs > 0 ? every : undefined);
    } catch {
      return; // the database is unreachable: keep it, check again next time
    }
    if (now.state !== "valid") end("revoked");
    else if (now.viewer.role !== role) end("role changed");
    else onValid?.(now);
  }, every);
  timer.unref();
  const end = (why: TokenEnd) => {
    clearInterval(timer);
    onEnd(why);
  };
  return () => clearInterval(timer);
}
