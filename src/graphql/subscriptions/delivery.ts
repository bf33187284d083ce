// What both transports report of the events they send (events delivered, publish-to-send lag) and
// of the executions they run (shutdown waits for those under way).
import type { PublishedEvent } from "../../events/live-event.ts";
import type { Metrics } from "../../http/observability/metrics.ts";

/** One answer sent to one subscriber. */
export function delivered(metrics: Metrics, event: PublishedEvent | undefined): void {
  if (!event) return;
  metrics.live.delivered.inc({ topic: event.topic });
  metrics.live.lag.observe({ topic: event.topic }, Math.max(0, Date.now() - event.publishedAt) / 1000);
}

/** Counts event executions (metrics) and those under way, which shutdown waits for. */
export function inFlightTracker(metrics: Metrics) {
  let inFlight = 0;
  return {
    async track<T>(work: Promise<T>): Promise<T> {
      inFlight++;
      metrics.live.executions.inc();
      try {
        return await work;
      } finally {
        inFlight--;
      }
    },
    /** Resolves once no execution is under way, or after `ms`. */
    async settled(ms: number): Promise<void> {
      const deadline = Date.now() + ms;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}
