// A backup's hold on removed covers, kept alive the same way in a folder (local-covers.ts) and in a
// bucket (bucket-covers.ts): the hold is written before the backup's snapshot, refreshed every
// HOLD_REFRESH_MS, and taken by other instances for a dead backup's once it has not been refreshed
// for HOLD_LAPSES_MS. A backup that stalled long enough for that, or whose hold vanished, fails
// on release rather than risk a missing cover.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { CoverHold } from "./cover-store.ts";

/**
 * A removed cover is kept at least this long. In a folder, a backup's hold, made before its
 * snapshot, must be seen by every instance before a cover its snapshot names can be this old in
 * .removed (a network filesystem may show a new file to other machines a minute late: NFS
 * attribute caching); in a bucket it is room for the store's clock against the instance's.
 */
export const KEEP_REMOVED_MS = 15 * 60_000;
export const HOLD_REFRESH_MS = 30_000;
/** A hold not refreshed for this long is a dead backup's. */
export const HOLD_LAPSES_MS = 10 * 60_000;

/** A new hold's name: which machine and process holds, and a random part. */
export const holdName = () => `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}.hold`;

/** What keeping one hold takes in a store. */
export type HoldRecord = {
  /** Marks the hold as alive now. */
  refresh(): Promise<void>;
  /** Whether the hold is still there (no other instance took it for a dead backup's). */
  exists(): Promise<boolean>;
  /** Removes the hold (and what only it needed). */
  remove(): Promise<void>;
  /** Removes it without waiting, for a process being stopped (at worst it lapses). */
  removeNow(): void;
};

/** Refreshes `record` until released; see CoverHold. */
export function keepHold(record: HoldRecord): CoverHold {
  let refreshedAt = Date.now();
  let longestGap = 0;
  let failure: unknown;
  const timer = setInterval(() => {
    const now = Date.now();
    record.refresh().then(
      () => {
        longestGap = Math.max(longestGap, now - refreshedAt);
        refreshedAt = now;
      },
      (error) => (failure ??= error),
    );
  }, HOLD_REFRESH_MS);
  timer.unref();
  return {
    releaseNow() {
      clearInterval(timer);
      record.removeNow();
    },
    async release() {
      clearInterval(timer);
      const lapsed = !(await record.exists()); // another instance took it for a dead backup's
      await record.remove();
      const gap = Math.max(longestGap, Date.now() - refreshedAt);
      if (lapsed || failure)
        throw new Error(
          `the backup's hold on removed covers lapsed${failure ? ` (${(failure as Error).message})` : ""}: a cover it needed may be gone`,
        );
      if (gap > HOLD_LAPSES_MS / 2)
        throw new Error(
          `the backup stalled for ${Math.round(gap / 1000)} s, long enough for its hold on removed covers to lapse`,
        );
    },
  };
}
