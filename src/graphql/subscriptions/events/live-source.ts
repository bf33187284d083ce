// The events one subscription follows, as the async iterator a Subscription field's `subscribe`
// returns: the bus's events of one topic that pass the subscription's filter, queued until the
// transport asks for them. Ending it (`return`, when the client completes or disconnects) stops
// listening at once, even while a `next` is waiting: an async generator function would wait for
// the next event before it noticed, keeping dead subscriptions listening.
import { DomainError } from "../../../contract/errors.ts";
import type { EventBus } from "../../../events/bus.ts";
import type { LiveTopic, PublishedEvent } from "../../../events/live-event.ts";

/** Events a subscriber may fall behind by; past that its subscription ends with an error (it can resubscribe). */
export const MAX_QUEUED_EVENTS = 1000;

/** RATE_LIMITED: the client asked for more than it takes in. */
export class SubscriberTooSlow extends DomainError {
  constructor() {
    super("RATE_LIMITED", `The subscriber fell more than ${MAX_QUEUED_EVENTS} events behind; subscribe again.`);
  }
}

export type LiveOf<T extends LiveTopic> = Extract<PublishedEvent, { topic: T }>;

export function liveEvents<T extends LiveTopic>(
  bus: EventBus,
  topic: T,
  accept: (event: LiveOf<T>) => boolean,
): AsyncGenerator<LiveOf<T>> {
  const queue: LiveOf<T>[] = [];
  const waiting: ((result: IteratorResult<LiveOf<T>>) => void)[] = [];
  let ended = false;
  let failure: Error | undefined;

  const stop = bus.listen((event) => {
    if (ended || event.topic !== topic || !accept(event as LiveOf<T>)) return;
    const next = waiting.shift();
    if (next) return next({ value: event as LiveOf<T>, done: false });
    if (queue.length >= MAX_QUEUED_EVENTS) {
      failure = new SubscriberTooSlow();
      queue.length = 0;
      return end();
    }
    queue.push(event as LiveOf<T>);
  });

  function end() {
    ended = true;
    stop();
    for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
  }

  const iterator: AsyncGenerator<LiveOf<T>> = {
    async next() {
      if (failure) {
        const error = failure;
        failure = undefined;
        throw error;
      }
      if (queue.length > 0) return { value: queue.shift()!, done: false };
      if (ended) return { value: undefined, done: true };
      return new Promise((resolve) => waiting.push(resolve));
    },
    async return() {
      queue.length = 0;
      end();
      return { value: undefined, done: true };
    },
    async throw(error) {
      queue.length = 0;
      end();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
