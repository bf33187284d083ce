// Whether writes currently succeed. The drivers report each write that failed for the server's
// reasons (storage full, files not writable, database unreachable) and each write that committed;
// /readyz reads the outcome. A flag, not a write per readiness check: while the last write
// succeeded, readiness costs nothing. Once a write failed, readiness tries a small write of its
// own (a probe) so that an instance taken out of rotation, which gets no writes, still notices
// when the disk has room again.
import { databaseFailure, type DatabaseFailure } from "./failures.ts";

export type WriteFailure = { kind: DatabaseFailure; since: Date };

/** A probe's answer is reused this long: a balancer polling /readyz often costs one probe a second. */
const PROBE_REUSE_MS = 1000;

/**
 * Outcomes are told in the order statements end, which is not the order they began: a probe that
 * began before the disk was freed may fail after a write that began later succeeded. Each
 * statement takes a ticket when it begins (`begin`), and an outcome changes the state only when
 * its statement began after the one whose outcome set the state, so a stale failure never
 * undoes a newer success (nor a stale success a newer failure).
 */
export class WriteHealth {
  #failure: WriteFailure | null = null;
  #probe: { at: number; outcome: Promise<void> } | null = null;
  #tickets = 0;
  /** The ticket of the statement whose outcome set the current state. */
  #stateTicket = 0;

  /** The failure since which writes have not succeeded, or null. */
  get failure(): WriteFailure | null {
    return this.#failure;
  }

  /** A statement begins: its ticket, for the outcome it will report. */
  begin(): number {
    return ++this.#tickets;
  }

  /** Records a failed statement or commit; errors that are the request's fault (constraints, ...) change nothing. */
  failed(error: unknown, ticket: number): void {
    const kind = databaseFailure(error);
    if (!kind || ticket < this.#stateTicket) return;
    this.#stateTicket = ticket;
    this.#failure = { kind, since: this.#failure?.since ?? new Date() };
  }

  /** A write committed: writes work again. */
  succeeded(ticket: number): void {
    if (ticket < this.#stateTicket) return;
    this.#stateTicket = ticket;
    this.#failure = null;
  }

  /**
   * With a failure on record, runs `probe` (a write that keeps nothing; it reports its own outcome
   * through `failed`/`succeeded`) at most once per PROBE_REUSE_MS, and answers the failure still on
   * record afterwards. Without one, answers null at once.
   */
  async check(probe: () => Promise<void>): Promise<WriteFailure | null> {
    if (!this.#failure) return null;
    if (!this.#probe || Date.now() - this.#probe.at > PROBE_REUSE_MS) {
      const ticket = this.begin();
      this.#probe = { at: Date.now(), outcome: probe().catch((error) => this.failed(error, ticket)) };
    }
    await this.#probe.outcome;
    return this.#failure;
  }
}
