// The stored counts a search's plan is chosen by (search-totals.ts), reused for up to
// PLAN_COUNTS_MAX_AGE_MS: reading them was a statement of its own on every filtered search. They
// only steer how a search reads, never an answer (an exact total or facet reads the stored counts
// in its own statement), so counts a few seconds old cost at worst a slower plan near a threshold.

/** How old the counts a plan is chosen by may be. */
export const PLAN_COUNTS_MAX_AGE_MS = 5_000;
/** Distinct sets of counts kept (each a few numbers): a client can name as many values as it likes. */
const MAX_ENTRIES = 1_000;

type Counts = Map<string, number>;
type Entry = { at: number; counts: Promise<Counts> };

/** `read()`'s counts for `key`, read again once older than PLAN_COUNTS_MAX_AGE_MS (a failed read is not kept). */
export type RecentCounts = (key: string, read: () => Promise<Counts>) => Promise<Counts>;

/** The recent counts of one database: the oldest set goes first past MAX_ENTRIES. */
export function createRecentCounts(): RecentCounts {
  const entries = new Map<string, Entry>();
  return (key, read) => {
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
  };
}
