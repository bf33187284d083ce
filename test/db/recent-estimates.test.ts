// The estimates a search answered, given again to the same search for a few seconds
// (src/db/search/recent-estimates.ts): what bounds them is their age and how many searches one
// database handle keeps (a client can send as many distinct searches as it likes).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createRecentEstimates } from "../../src/db/search/recent-estimates.ts";

const LISTS = { cuisines: [{ value: "Tapas", count: 40 }] };

/** An estimate of 1,200 kept 5 s ago, just expired: the search that asked for it now reads it anew. */
function renewing() {
  const recent = createRecentEstimates(5_000);
  recent.keep("s", { total: 1_200 });
  vi.advanceTimersByTime(5_000);
  expect(recent.get("s")).toBeUndefined();
  return recent;
}

describe("the estimates searches answered lately", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["Date"] }));
  afterEach(() => vi.useRealTimers());

  it("gives a total and its facets until they are older than the age, then nothing", () => {
    const recent = createRecentEstimates(5_000);
    recent.keep("s", { total: 1_200 });
    vi.advanceTimersByTime(1_000);
    recent.keep("s", { lists: LISTS }); // the facets join the total, of its age
    expect(recent.get("s")).toEqual({ total: 1_200, lists: LISTS });
    vi.advanceTimersByTime(3_999);
    expect(recent.get("s")).toEqual({ total: 1_200, lists: LISTS });
    vi.advanceTimersByTime(1);
    expect(recent.get("s")).toBeUndefined();
  });

  it("gives the old estimate to the others while one search reads it anew, for at most as long again", () => {
    const recent = renewing();
    expect(recent.get("s")).toEqual({ total: 1_200 });
    recent.keep("s", { total: 1_300 });
    expect(recent.get("s")).toEqual({ total: 1_300 });
    vi.advanceTimersByTime(5_000);
    expect(recent.get("s")).toBeUndefined();
    vi.advanceTimersByTime(5_000); // the search that read anew never answered an estimate (now exact)
    expect(recent.get("s")).toBeUndefined();
    expect(recent.get("s")).toBeUndefined();
  });

  it("lets no second search read anew when facets join the estimate being renewed", () => {
    const recent = renewing();
    recent.keep("s", { lists: LISTS });
    expect(recent.get("s")).toEqual({ total: 1_200, lists: LISTS });
  });

  it("keeps a new total without the facets of the old one", () => {
    const recent = createRecentEstimates(5_000);
    recent.keep("s", { total: 1_200, lists: LISTS });
    recent.keep("s", { total: 1_300 });
    expect(recent.get("s")).toEqual({ total: 1_300 });
  });

  it("keeps nothing with an age of 0", () => {
    const recent = createRecentEstimates(0);
    recent.keep("s", { total: 1_200 });
    expect(recent.get("s")).toBeUndefined();
  });

  it("keeps at most 1,000 searches, dropping the oldest first", () => {
    const recent = createRecentEstimates(5_000);
    for (let i = 0; i <= 1_000; i++) recent.keep(`search ${i}`, { total: i });
    expect(recent.get("search 0")).toBeUndefined();
    expect(recent.get("search 1")).toEqual({ total: 1 });
    expect(recent.get("search 1000")).toEqual({ total: 1_000 });
  });
});
