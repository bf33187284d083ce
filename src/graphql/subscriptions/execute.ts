// Runs an admitted subscription, whatever carries it (WebSocket, Server-Sent Events): graphql-js's
// createSourceEventStream calls the root field's `subscribe` (auth and ownership are checked
// there, through the schema's wrappers), then each event is executed by the admission path's
// execution step (operation.ts: the response ceiling included) with a fresh context from
// `eventContext` (per-request DataLoaders would otherwise cache rows across events, and the
// ceiling would count objects across the whole subscription). Each event's answer is formatted
// and serialised once per share key (events/shared-events.ts) and handed over as text: a transport only
// wraps it in its own framing.
import { createSourceEventStream, type ExecutionResult, type GraphQLSchema } from "graphql";
import type { PublishedEvent } from "../../events/live-event.ts";
import type { Context } from "../data/context.ts";
import type { Admitted } from "../execution/operation.ts";
import { sharedAnswer } from "./events/shared-events.ts";

/** Thrown by a subscription's resolver when the event's row is gone, or is not one the subscription follows: the event is skipped. */
export class GoneEvent extends Error {
  constructor() {
    super("The event's row no longer exists or is not one this subscription follows.");
  }
}

export type LiveOperation = Pick<Admitted, "document" | "operationName" | "variables"> & {
  schema: GraphQLSchema;
  /** The context the subscription starts with (its `subscribe` runs with it). */
  context: Context;
  /** Subscriptions with the same key get one execution per event (events/shared-events.ts). */
  shareKey: string;
};

export type SubscriptionHooks = {
  /** A new context for one event (fresh loaders and response tally), for the subscriber's viewer. */
  eventContext(): Promise<Context>;
  /** The execution step (operation.ts), with the event as the root value. */
  execute(context: Context, event: unknown): Promise<ExecutionResult>;
  /** The result as the payload text a transport sends (errors formatted for clients). */
  serialise(result: ExecutionResult): string;
  /** Sees each event's execution (graceful shutdown waits for the ones under way; metrics count them). */
  track<T>(work: Promise<T>): Promise<T>;
};

const isGone = (result: ExecutionResult) =>
  !!result.errors?.length && result.errors.every((e) => e.originalError instanceof GoneEvent);

export type LiveAnswer = { payload: string; event: PublishedEvent | undefined };

function isLiveEvent(value: unknown): value is PublishedEvent {
  return typeof value === "object" && value !== null && typeof (value as PublishedEvent).publishedAt === "number";
}

/** One event's answer as payload text, or null when its row is gone. */
const answer = (hooks: SubscriptionHooks, event: unknown): Promise<string | null> =>
  hooks.track(
    hooks.eventContext().then(async (eventContext) => {
      const result = await hooks.execute(eventContext, event);
      return isGone(result) ? null : hooks.serialise(result);
    }),
  );

/**
 * The subscription's answers, one per event, as payload text: an async iterator (the transport
 * ends it with `return()` when the client completes or leaves), or, when it could not start
 * (refused, unknown restaurant), the single result with the errors.
 */
export async function executeSubscription(
  operation: LiveOperation,
  hooks: SubscriptionHooks,
): Promise<AsyncIterableIterator<LiveAnswer> | ExecutionResult> {
  const { schema, document, operationName, variables, context, shareKey } = operation;
  const source = await createSourceEventStream({
    schema,
    document,
    operationName,
    variableValues: variables,
    contextValue: context,
  });
  if (!(Symbol.asyncIterator in source)) return source;
  const events = source as AsyncGenerator<unknown>;
  const answers: AsyncIterableIterator<LiveAnswer> = {
    async next() {
      for (;;) {
        const step = await events.next();
        if (step.done) return { value: undefined, done: true };
        const event = step.value;
        const payload =
          typeof event === "object" && event !== null
            ? await sharedAnswer(event, shareKey, () => answer(hooks, event))
            : await answer(hooks, event);
        if (payload === null) continue;
        return { value: { payload, event: isLiveEvent(event) ? event : undefined }, done: false };
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
      return answers;
    },
  };
  return answers;
}
