// The live-update path over Redis pub/sub (REDIS_URL), for deployments that run several instances
// and have a Redis anyway. Each instance holds two connections: a publisher and a subscriber on
// one channel. As with PostgreSQL's NOTIFY, there is one delivery path: an instance hears its own
// events when Redis hands them back, so every instance sees every event in the channel's one
// order (Redis hands a channel's messages to every subscriber in the order it took them), whoever
// published them. While this instance's subscriber is away, its own events are delivered here at
// once instead (the order between instances is then not kept, and other instances' events are
// lost). Each message names its instance and a sequence number, so an event delivered here that
// way is never delivered again when Redis hands it back.
// Redis pub/sub keeps nothing: an event published while Redis (or an instance's subscription) is
// away is lost for the other instances (at most once; a lost event costs an update, never a
// write). Both connections reconnect by themselves, and the subscriber subscribes again.
import { randomUUID } from "node:crypto";
import { InProcessBus, stamped, type BusLogger, type EventBus } from "./bus.ts";
import { liveEventFrom, type LiveEvent } from "./live-event.ts";
import { connectRedis, type SharedRedis } from "../redis/connection.ts";

export const DEFAULT_CHANNEL = "gateway:live-events";

type Log = { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };

/** The event in a message from the channel, or undefined when it is not one (bad JSON, unknown topic, missing id). */
export function eventFromMessage(text: string): { origin: string; seq?: number; event: LiveEvent } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof message !== "object" || message === null) return undefined;
  const { origin, seq, event } = message as { origin?: unknown; seq?: unknown; event?: unknown };
  const known = liveEventFrom(event);
  if (typeof origin !== "string" || !known) return undefined;
  return { origin, ...(Number.isSafeInteger(seq) ? { seq: seq as number } : {}), event: known };
}

export type RedisBusOptions = {
  /** Publish only (the admin command line): no subscriber connection, nothing delivered here. */
  publishOnly?: boolean;
  channel?: string;
};

export class RedisBus extends InProcessBus implements EventBus {
  /** This instance, in every message it sends. */
  private readonly origin = randomUUID();
  /** Numbers this instance's messages. */
  private seq = 0;
  /** Own events delivered here at once (the subscriber was away): not again when Redis hands them back. */
  private readonly deliveredHere = new Set<number>();
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
    this.publisher = connectRedis(url, forward, {
      purpose: "live events (publishing)",
      whileAway: "reach only this instance",
    });
    if (publishOnly) return;
    const subscriber = connectRedis(url, forward, {
      purpose: "live events (receiving)",
      whileAway: "from other instances are lost",
      subscriber: true,
    });
    this.subscriber = subscriber;
    subscriber.client.on("message", (channel: string, text: string) => {
      if (channel !== this.channel) return;
      const received = eventFromMessage(text);
      if (!received) return;
      if (received.origin === this.origin && received.seq !== undefined && this.deliveredHere.delete(received.seq))
        return;
      this.deliver(stamped(received.event));
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
    while (!this.publisher.reachable() && Date.now() - started < ms)
      await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /**
   * Sent through Redis, which hands it back to this instance too. Delivered here at once instead
   * when this instance would not hear it back (its subscriber is away, or the publisher cannot
   * send: then it is lost for the others).
   */
  override publish(event: LiveEvent): void {
    const sent = stamped(event);
    const seq = ++this.seq;
    const hearsBack = this.subscriber?.reachable() ?? false;
    if (!this.publisher.reachable()) return super.publish(sent);
    if (!hearsBack) this.deliverHere(sent, seq);
    this.publisher.client.publish(this.channel, JSON.stringify({ origin: this.origin, seq, event: sent })).catch(() => {
      // Lost for the other instances (at most once); here, delivered now unless it was already.
      if (hearsBack) this.deliverHere(sent, seq);
    });
  }

  private deliverHere(event: ReturnType<typeof stamped>, seq: number): void {
    this.deliveredHere.add(seq);
    // Forgotten once Redis could no longer hand it back.
    setTimeout(() => this.deliveredHere.delete(seq), 60_000).unref();
    super.publish(event);
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
