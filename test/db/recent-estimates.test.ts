// The estimates a search answered, given again to the same search for a few seconds
// (src/db/search/recent-estimates.ts): what bounds them is their age and how many searches one
// database handle keeps (a client can send as many distinct searches as it likes).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RecentEstimates } from "../../src/db/search-plan.ts";
import { createRecentEstimates } from "../../src/db/search/recent-estimates.ts";

const LISTS = { cuisines: [{ value: "Tapas", count: 40 }] };

/** Each renewal asked of the estimates, in order. */
let renewals: string[] = [];
const renew = (key: string) => () => void renewals.push(key);
const get = (recent: RecentEstimates, key = "s") => recent.get(key, renew(key));

/** An estimate of 1,200 kept 5 s ago, just expired: the search that asks is given it, and a renewal is asked. */
function renewing() {
  const recent = createRecentEstimates(5_000);
  recent.keep("s", { total: 1_200 });
  vi.advanceTimersByTime(5_000);
  expect(get(recent)).toEqual({ total: 1_200 });
  expect(renewals).toEqual(["s"]);
  return recent;
}

describe("the estimates searches answered lately", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    renewals = [];
  });
  afterEach(() => vi.useRealTimers());

  it("gives a total and its facets until they are older than the age, renewing nothing", () => {
    const recent = createRecentEstimates(5_000);
    recent.keep("s", { total: 1_200 });
    vi.advanceTimersByTime(1_000);
    recent.keep("s", { lists: LISTS }); // the facets join the total, of its age
    expect(get(recent)).toEqual({ total: 1_200, lists: LISTS });
    vi.advanceTimersByTime(3_999);
    expect(get(recent)).toEqual({ total: 1_200, lists: LISTS });
    expect(renewals).toEqual([]);
  });

  it("past the age, asks one renewal and gives the old estimate to every search until it answers", () => {
    const recent = renewing();
    expect(get(recent)).toEqual({ total: 1_200 });
    expect(renewals).toEqual(["s"]);
    recent.keep("s", { total: 1_300 }); // the renewal's
    expect(get(recent)).toEqual({ total: 1_300 });
    vi.advanceTimersByTime(5_000);
    expect(get(recent)).toEqual({ total: 1_300 });
    expect(renewals).toEqual(["s", "s"]);
  });

  it("gives nothing once twice the age, when the renewal never answered (an error, or now an exact total)", () => {
    const recent = renewing();
    vi.advanceTimersByTime(4_999);
    expect(get(recent)).toEqual({ total: 1_200 });
    vi.advanceTimersByTime(1);
    expect(get(recent)).toBeUndefined();
    expect(renewals).toEqual(["s"]);
  });

  it("asks no second renewal when facets join the estimate being renewed", () => {
    const recent = renewing();
    recent.keep("s", { lists: LISTS });
    expect(get(recent)).toEqual({ total: 1_200, lists: LISTS });
    expect(renewals).toEqual(["s"]);
  });

  it("keeps a new total without the facets of the old one", () => {
    const recent = createRecentEstimates(5_000);
    recent.keep("s", { total: 1_200, lists: LISTS });
    recent.keep("s", { total: 1_300 });
    expect(get(recent)).toEqual({ total: 1_300 });
  });

  it("keeps nothing with an age of 0", () => {
    const recent = createRecentEstimates(0);
    recent.keep("s", { total: 1_200 });
    expect(get(recent)).toBeUndefined();
  });

  it("keeps at most 1,000 searches, dropping the oldest first", () => {
    const recent = createRecentEstimates(5_000);
    for (let i = 0; i <= 1_000; i++) recent.keep(`search ${i}`, { total: i });
    expect(get(recent, "search 0")).toBeUndefined();
    expect(get(recent, "search 1")).toEqual({ total: 1 });
    expect(get(recent, "search 1000")).toEqual({ total: 1_000 });
  });
});
