// Runs a subscription operation, whatever carries it (WebSocket today, Server-Sent Events later):
// graphql-js's createSourceEventStream calls the root field's `subscribe` (auth and ownership are
// checked there, through the schema's wrappers), then each event is executed on its own, with a
// fresh context from `eventContext`: per-request DataLoaders would otherwise cache rows across
// events (stale data) and the response ceiling would count objects across the whole subscription.
import {
  createSourceEventStream,
  execute,
  GraphQLError,
  type ExecutionArgs,
  type ExecutionResult,
} from "graphql";
import type { PublishedEvent } from "../../events/live-event.ts";
import type { Context } from "../context.ts";
import { ceilingCrossed } from "../response-ceiling.ts";

/** Thrown by a subscription's resolver when the event's row is gone by the time it is read: the event is skipped. */
export class GoneEvent extends Error {
  constructor() {
    super("The event's row no longer exists.");
  }
}

export type SubscriptionHooks = {
  /** A new context for one event (fresh loaders and response tally), for the subscriber's viewer. */
  eventContext(): Promise<Context>;
  /** Called once per event sent (metrics: events delivered, delivery lag). */
  delivered?(event: PublishedEvent): void;
  /** Sees each event's execution (graceful shutdown waits for the ones under way). */
  track?<T>(work: Promise<T>): Promise<T>;
};

const isGone = (result: ExecutionResult) =>
  !!result.errors?.length && result.errors.every((e) => e.originalError instanceof GoneEvent);

function isLiveEvent(value: unknown): value is PublishedEvent {
  return typeof value === "object" && value !== null && typeof (value as PublishedEvent).publishedAt === "number";
}

/** One event's result: the ceiling's single error when it was crossed (as over HTTP), else what execution gave. */
async function executeEvent(args: ExecutionArgs, event: unknown, context: Context): Promise<ExecutionResult> {
  const result = await execute({ ...args, rootValue: event, contextValue: context });
  const crossed = ceilingCrossed(context);
  if (!crossed) return result;
  return { errors: [new GraphQLError(crossed.message, { extensions: { code: crossed.code } })] };
}

/**
 * The subscription's results: an async generator (the transport ends it with `return()` when the
 * client completes or leaves) or, when it could not start (refused, unknown restaurant), a single
 * result with the errors.
 */
export async function executeSubscription(
  args: ExecutionArgs,
  hooks: SubscriptionHooks,
): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  const events = source as AsyncGenerator<unknown>;
  const results: AsyncGenerator<ExecutionResult> = {
    async next() {
      for (;;) {
        const step = await events.next();
        if (step.done) return { value: undefined, done: true };
        const work = hooks.eventContext().then((context) => executeEvent(args, step.value, context));
        const result = await (hooks.track ? hooks.track(work) : work);
        if (isGone(result)) continue;
        if (isLiveEvent(step.value)) hooks.delivered?.(step.value);
        return { value: result, done: false };
      }
    },
    async return() {
      await events.return?.(undefined);
      return { value: undefined, done: true };
    },
    async throw(error) {
      await events.return?.(undefined);
      throw error;
    },
    [Symbol.asyncIterator]() {
      return results;
    },
  };
  return results;
}
