// The live-update path: writes publish events after their transaction committed; every
// subscriber on every instance receives them. One implementation per deployment shape:
// in-process (for SQLite, whose database one process owns) and over PostgreSQL's LISTEN/NOTIFY (postgres-bus.ts).
import type { LiveEvent, PublishedEvent } from "./live-event.ts";

export type LiveListener = (event: PublishedEvent) => void;

/** Where a bus reports trouble; pino's signature, so Fastify's `app.log` fits. */
export type BusLogger = {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
};

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
  /**
   * Calls `listener` after a gap in delivery (a lost connection came back): events published
   * during the gap never arrive, so a listener that keeps state derived from events (a cache)
   * should drop it. Absent on buses that never have gaps (in-process).
   */
  listenForGaps?(listener: () => void): () => void;
  /** Takes the server's logger (buildServer hands it over); a bus built before the server logs nothing until then. */
  useLogger?(log: BusLogger): void;
}

/** The event as sent: stamped with the time it was published, unless it already was. */
export const stamped = (event: LiveEvent): PublishedEvent =>
  event.publishedAt === undefined ? { ...event, publishedAt: Date.now() } : (event as PublishedEvent);

/** Delivery within this process, on a later tick so a publisher never runs a subscriber's code. */
export class InProcessBus implements EventBus {
  private readonly listeners = new Set<LiveListener>();

  publish(event: LiveEvent): void {
    const sent = stamped(event);
    queueMicrotask(() => this.deliver(sent));
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
