// The stored counts a search's plan is chosen by are reused for a few seconds (src/db/search/stored-counts.ts).
// What bounds them: their age, and how many distinct sets one database handle keeps (a client can
// name as many list values and cities as it likes).
import { describe, expect, it } from "vitest";
import { createRecentCounts } from "../../src/db/search/stored-counts.ts";

const reader = () => {
  const reads: string[] = [];
  const read = (key: string) => () => {
    reads.push(key);
    return Promise.resolve(new Map([[key, 1]]));
  };
  return { reads, read };
};

describe("the counts a search's plan is chosen by", () => {
  it("keeps at most 1,000 sets per database, dropping the oldest first", async () => {
    const recentCounts = createRecentCounts(5_000); // one per database handle
    const { reads, read } = reader();
    for (let i = 0; i <= 1_000; i++) await recentCounts(`set ${i}`, read(`set ${i}`));
    expect(reads).toHaveLength(1_001);
    await recentCounts("set 1000", read("set 1000")); // the newest: still kept
    expect(reads).toHaveLength(1_001);
    await recentCounts("set 0", read("set 0")); // the oldest: dropped, read again
    expect(reads).toHaveLength(1_002);
  });

  it("does not keep a failed read", async () => {
    const recentCounts = createRecentCounts(5_000);
    let calls = 0;
    const failing = () => {
      calls++;
      return Promise.reject(new Error("database unavailable"));
    };
    await expect(recentCounts("k", failing)).rejects.toThrow("database unavailable");
    await expect(recentCounts("k", failing)).rejects.toThrow("database unavailable");
    expect(calls).toBe(2);
  });
});
