// The live-update path: writes publish events after their transaction committed; every
// subscriber on every instance receives them. One implementation per deployment shape:
// in-process (SQLite: one process owns the database) and PostgreSQL LISTEN/NOTIFY (postgres-bus.ts).
import type { LiveEvent, PublishedEvent } from "./live-event.ts";

export type LiveListener = (event: PublishedEvent) => void;

export interface EventBus {
  /**
   * Sends `event` to every listener on every instance. Call it only after the write's transaction
   * committed, never inside it. Never throws and never waits for delivery: a lost event costs a
   * subscriber an update, never the write that caused it.
   */
  publish(event: LiveEvent): void;
  /** Calls `listener` for every event from now on; returns the function that stops it. */
  listen(listener: LiveListener): () => void;
  /** Stops delivering and releases connections (on shutdown). */
  close(): Promise<void>;
}

/** Delivery within this process, on a later tick so a publisher never runs a subscriber's code. */
export class InProcessBus implements EventBus {
  private readonly listeners = new Set<LiveListener>();

  publish(event: LiveEvent): void {
    const published = { ...event, publishedAt: Date.now() };
    queueMicrotask(() => this.deliver(published));
  }

  listen(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  /** Hands `event` to each listener; one listener's failure never stops the others. */
  protected deliver(event: PublishedEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // A subscriber's own failure is its own; it is logged where the subscription runs.
      }
    }
  }
}
