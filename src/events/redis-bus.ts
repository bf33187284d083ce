// The live-update path over Redis pub/sub (REDIS_URL), for deployments that run several instances
// and have a Redis anyway. Each instance holds two connections: a publisher and a subscriber on
// one channel. Listeners on the publishing instance get the event at once, in process; other
// instances get it through Redis. Each message names the instance that sent it, so an instance
// drops its own when Redis hands it back: every event reaches each instance once.
// Redis pub/sub keeps nothing: an event published while Redis (or an instance's subscription) is
// away is lost for the other instances (at most once; a lost event costs an update, never a
// write). Both connections reconnect by themselves, and the subscriber subscribes again.
import { randomUUID } from "node:crypto";
import { InProcessBus, type EventBus } from "./bus.ts";
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
  return { origin, event: Object.fromEntries([["topic", topic], ...fields.map((f) => [f, values[f]])]) as LiveEvent };
}

export class RedisBus extends InProcessBus implements EventBus {
  /** This instance, in every message it sends. */
  private readonly origin = randomUUID();
  private readonly publisher: SharedRedis;
  private readonly subscriber: SharedRedis;

  constructor(url: string, log: Log, private readonly channel = DEFAULT_CHANNEL) {
    super();
    this.publisher = connectRedis(url, log, { purpose: "live events (publishing)", whileAway: "reach only this instance" });
    this.subscriber = connectRedis(url, log, { purpose: "live events (receiving)", whileAway: "from other instances are lost", subscriber: true });
    this.subscriber.client.on("message", (channel: string, text: string) => {
      if (channel !== this.channel) return;
      const received = eventFromMessage(text);
      if (received && received.origin !== this.origin) this.deliver(received.event);
    });
    // Queued until connected; ioredis subscribes again after every reconnect.
    this.subscriber.client.subscribe(this.channel).catch(() => {});
  }

  /** Delivered here at once; sent to the others unless the publisher is disconnected (then lost for them). */
  override publish(event: LiveEvent): void {
    super.publish(event);
    if (!this.publisher.reachable()) return;
    this.publisher.client.publish(this.channel, JSON.stringify({ origin: this.origin, event })).catch(() => {
      // Lost for the other instances (at most once); the connection logs the outage.
    });
  }

  /** True while both connections are up (events flow both ways). */
  connected(): boolean {
    return this.publisher.reachable() && this.subscriber.reachable();
  }

  override async close(): Promise<void> {
    await super.close();
    await Promise.all([this.publisher.close(), this.subscriber.close()]);
  }
}
