// The live-update path over Redis pub/sub (REDIS_URL), for deployments that run several instances
// and have a Redis anyway. Each instance holds two connections: a publisher and a subscriber on
// one channel. Listeners on the publishing instance get the event at once, in process; other
// instances get it through Redis. Each message names the instance that sent it, so an instance
// drops its own when Redis hands it back: every event reaches each instance once.
// Redis pub/sub keeps nothing: an event published while Redis (or an instance's subscription) is
// away is lost for the other instances (at most once; a lost event costs an update, never a
// write). Both connections reconnect by themselves, and the subscriber subscribes again.
import { randomUUID } from "node:crypto";
import { InProcessBus, stamped, type BusLogger, type EventBus } from "./bus.ts";
import type { LiveEvent, LiveTopic } from "./live-event.ts";
import { connectRedis, type SharedRedis } from "../redis/connection.ts";

export const DEFAULT_CHANNEL = "gateway:live-events";

type Log = { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };

/** What each topic carries besides its name (ids, and one enum); anything else on the channel is dropped. */
const FIELDS: Record<LiveTopic, string[]> = {
  commentAdded: ["restaurantId", "commentId"],
  restaurantChanged: ["restaurantId", "change"],
  orderPlaced: ["restaurantId", "orderId"],
  reportFiled: ["reportId"],
  shoppingListChanged: ["userId"],
  sessionRevoked: ["userId", "sessionId"],
  userChanged: ["userId"],
};

/** The event in a message from the channel, or undefined when it is not one (bad JSON, unknown topic, missing id). */
export function eventFromMessage(text: string): { origin: string; event: LiveEvent } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof message !== "object" || message === null) return undefined;
  const { origin, event } = message as { origin?: unknown; event?: unknown };
  if (typeof origin !== "string" || typeof event !== "object" || event === null) return undefined;
  const { topic } = event as { topic?: unknown };
  if (typeof topic !== "string" || !Object.hasOwn(FIELDS, topic)) return undefined;
  const fields = FIELDS[topic as LiveTopic];
  const values = event as Record<string, unknown>;
  if (!fields.every((field) => typeof values[field] === "string")) return undefined;
  if (topic === "restaurantChanged" && values.change !== "UPDATED" && values.change !== "REMOVED") return undefined;
  // Only the known fields travel on: nothing else a message carried reaches a subscriber.
  const stamp = typeof values.publishedAt === "number" && Number.isFinite(values.publishedAt) ? [["publishedAt", values.publishedAt]] : [];
  return { origin, event: Object.fromEntries([["topic", topic], ...fields.map((f) => [f, values[f]]), ...stamp]) as LiveEvent };
}

export type RedisBusOptions = {
  /** Publish only (the admin command line): no subscriber connection, nothing delivered here. */
  publishOnly?: boolean;
  channel?: string;
};

export class RedisBus extends InProcessBus implements EventBus {
  /** This instance, in every message it sends. */
  private readonly origin = randomUUID();
  private readonly publisher: SharedRedis;
  private readonly subscriber?: SharedRedis;
  private readonly channel: string;
  private readonly gapListeners = new Set<() => void>();
  /** Log lines go to the server's logger once it hands it over (useLogger). */
  private log: Log;

  constructor(url: string, log?: Log, { publishOnly = false, channel = DEFAULT_CHANNEL }: RedisBusOptions = {}) {
    super();
    this.channel = channel;
    this.log = log ?? { warn() {}, info() {} };
    const forward: Log = { warn: (o, m) => this.log.warn(o, m), info: (o, m) => this.log.info(o, m) };
    this.publisher = connectRedis(url, forward, { purpose: "live events (publishing)", whileAway: "reach only this instance" });
    if (publishOnly) return;
    const subscriber = connectRedis(url, forward, { purpose: "live events (receiving)", whileAway: "from other instances are lost", subscriber: true });
    this.subscriber = subscriber;
    subscriber.client.on("message", (channel: string, text: string) => {
      if (channel !== this.channel) return;
      const received = eventFromMessage(text);
      if (received && received.origin !== this.origin) this.deliver(stamped(received.event));
    });
    // Every "ready" after the first ends a gap: what was published meanwhile never arrives here.
    let readyBefore = false;
    subscriber.client.on("ready", () => {
      if (readyBefore) for (const listener of [...this.gapListeners]) listener();
      readyBefore = true;
    });
    // Queued until connected; ioredis subscribes again after every reconnect.
    subscriber.client.subscribe(this.channel).catch(() => {});
  }

  useLogger(log: BusLogger): void {
    this.log = log;
  }

  listenForGaps(listener: () => void): () => void {
    this.gapListeners.add(listener);
    return () => this.gapListeners.delete(listener);
  }

  /** Resolves once the publisher is connected, or after `ms` (a publisher that must not lose its first event waits). */
  async whenConnected(ms: number): Promise<void> {
    const started = Date.now();
    while (!this.publisher.reachable() && Date.now() - started < ms) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Delivered here at once; sent to the others unless the publisher is disconnected (then lost for them). */
  override publish(event: LiveEvent): void {
    const sent = stamped(event);
    super.publish(sent);
    if (!this.publisher.reachable()) return;
    this.publisher.client.publish(this.channel, JSON.stringify({ origin: this.origin, event: sent })).catch(() => {
      // Lost for the other instances (at most once); the connection logs the outage.
    });
  }

  /** True while both connections are up (events flow both ways). */
  connected(): boolean {
    return this.publisher.reachable() && (this.subscriber?.reachable() ?? true);
  }

  override async close(): Promise<void> {
    await super.close();
    this.gapListeners.clear();
    await Promise.all([this.publisher.close(), this.subscriber?.close()]);
  }
}
