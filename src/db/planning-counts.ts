// The kept counts a search's plan is chosen by (searches.ts: which index leads a count, whether
// walking the order's index finds the page soon, whether a total is estimated from the sample
// first), reused for up to PLAN_COUNTS_MAX_AGE_MS. They only steer how a search reads: an exact
// total or facet never comes from here (search-totals.ts reads the kept counts in its own
// statement), so counts a few seconds old cost at worst a slower plan near a threshold, never a
// wrong answer. Reading them was a statement of its own on every filtered search: a round trip
// and, on PostgreSQL, a plan made for it each time (the searches' pool plans every statement for
// its values).
import type { Db } from "./client.ts";

/** How old the counts a plan is chosen by may be. */
export const PLAN_COUNTS_MAX_AGE_MS = 5_000;
/** Distinct sets of counts kept (each a few numbers); the oldest go first. */
const MAX_ENTRIES = 1_000;

type Counts = Map<string, number>;
type Entry = { at: number; counts: Promise<Counts> };

const byDb = new WeakMap<Db, Map<string, Entry>>();

/** `read()`'s counts for `key`, read again once older than PLAN_COUNTS_MAX_AGE_MS (a failed read is not kept). */
export function planningCounts(db: Db, key: string, read: () => Promise<Counts>): Promise<Counts> {
  let entries = byDb.get(db);
  if (!entries) byDb.set(db, (entries = new Map()));
  const now = Date.now();
  const kept = entries.get(key);
  if (kept && now - kept.at < PLAN_COUNTS_MAX_AGE_MS) return kept.counts;
  if (kept) entries.delete(key);
  const counts = read();
  const entry = { at: now, counts };
  entries.set(key, entry);
  counts.catch(() => {
    if (entries.get(key) === entry) entries.delete(key);
  });
  for (const oldest of entries.keys()) {
    if (entries.size <= MAX_ENTRIES) break;
    entries.delete(oldest);
  }
  return counts;
}
