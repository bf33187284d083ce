// Estimates a search answered lately, reused by the same search for a few seconds
// (SEARCH_ESTIMATES_MAX_AGE; docs/performance.md, "Estimates given again to the same search").
// Past the exact-count limit a total and its facets come from a sample and are said to be
// estimates; counting up to the limit first and then reading the sample cost a popular search (the
// same words, place and hour from many users) most of its time, again and again, for an answer that
// moves by less than its error in a few seconds. Only estimates are kept: an exact total is counted
// anew by every search, so a write is always seen by the next one.
import type { Estimate, RecentEstimates, SearchPlan } from "../search-plan.ts";

/** Searches kept (each a total and up to 4 facets of 20 values): a client can send as many distinct ones as it likes. */
const MAX_SEARCHES = 1_000;

/**
 * The estimates of one database, kept `maxAgeMs` (0: none); past MAX_SEARCHES the oldest goes
 * first. Once older than that, the search that asks calls `renew`, which reads it anew beside the
 * searches (off their path), and until that has answered (for at most as long again) every search,
 * that one too, is given the old estimate: the search that read anew in its own path paid the
 * whole count and sample, and when a popular search's estimate expired, every request that came
 * meanwhile read it too.
 */
export function createRecentEstimates(maxAgeMs: number): RecentEstimates {
  const entries = new Map<string, { at: number; estimate: Estimate; renewing?: boolean }>();
  return {
    get(key, renew) {
      const kept = entries.get(key);
      if (!kept) return undefined;
      const age = Date.now() - kept.at;
      if (age >= 2 * maxAgeMs) {
        entries.delete(key);
        return undefined;
      }
      if (age >= maxAgeMs && !kept.renewing) {
        kept.renewing = true;
        renew();
      }
      return kept.estimate;
    },
    keep(key, part) {
      if (maxAgeMs <= 0) return;
      const kept = entries.get(key);
      entries.delete(key);
      // A search's facets join the total it answered (its age, and whether one search renews it);
      // a total alone starts afresh.
      entries.set(
        key,
        kept && part.lists
          ? { ...kept, estimate: { ...kept.estimate, ...part } }
          : { at: Date.now(), estimate: { ...part } },
      );
      for (const oldest of entries.keys()) {
        if (entries.size <= MAX_SEARCHES) break;
        entries.delete(oldest);
      }
    },
  };
}

/** What makes two searches the same: every condition as planned (the open patterns of their instant, not the instant). */
export const estimateKey = (p: SearchPlan): string =>
  JSON.stringify([
    p.catalogue,
    p.words ?? null,
    p.titleKey ?? null,
    p.tags,
    p.cityKey ?? null,
    p.minRating ?? null,
    p.near ?? null,
    p.rowTests.map((test) => [test.sql, test.values]),
    p.openPatterns ?? null,
  ]);
