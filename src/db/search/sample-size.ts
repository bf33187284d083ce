// How large a sample an estimate reads. A total estimated from k sampled matches is off by about
// 1/sqrt(k) (binomial): k >= 400 puts 95% of estimates within ±10% (1.96² / 0.1² ≈ 384). A first
// sample that holds fewer matches is read again larger, at most SAMPLE_GROWTH times; so every
// search whose matches are at least 400 / (SAMPLE_GROWTH × SEARCH_SAMPLE_ROWS) of the catalogue
// (0.5% with the defaults) is estimated within that bound (figures: docs/performance.md).
import type { Sample, SearchPlan } from "../search-plan.ts";
import type { SqlReader } from "../raw-rows.ts";

/** Sampled matches that put 95% of estimates within ±10%. */
export const SAMPLE_MATCHES = 400;
/** How many times its first size a sample may grow to hold them. */
export const SAMPLE_GROWTH = 8;

/**
 * `read`'s result over the sample, read again over a larger sample when the first holds fewer than
 * SAMPLE_MATCHES matches; `matches` says how many a result holds.
 */
export async function overSample<T>(
  db: SqlReader,
  p: SearchPlan,
  countOnly: boolean,
  read: (s: Sample) => Promise<T>,
  matches: (result: T, s: Sample) => number,
): Promise<T> {
  const first = await p.engine.sample(db, p, { countOnly });
  const result = await read(first);
  const k = matches(result, first);
  if (k >= SAMPLE_MATCHES || first.share >= 1) return result;
  // A quarter more than the first sample's share of matches says is needed: the second one, not
  // its own count, decides.
  const scale = Math.min(SAMPLE_GROWTH, (1.25 * SAMPLE_MATCHES) / Math.max(k, 1));
  return read(await p.engine.sample(db, p, { countOnly, scale }));
}
