// One subscription from its first message to its end, for either transport. Whatever it acquires
// (a quota slot, a metrics count) is held by the subscription itself, never by its id, and is
// released exactly once, whichever way it ends: completed by the client, ended by the server,
// refused, its socket gone, or completed while it was still being set up (then each grant made
// after the end is released at once). So an id reused in a burst (subscribe, complete,
// subscribe) cannot leave a subscription running with nobody to end it.
import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from "graphql";
import type { Authentication } from "../../domain/accounts/tokens.ts";
import type { Metrics } from "../../http/observability/metrics.ts";
import type { Context, ContextFactory } from "../data/context.ts";
import type { Admitted, OperationRunner } from "../execution/operation.ts";
import { executeSubscription, type LiveAnswer, type SubscriptionHooks } from "./execute.ts";
import { isRefusal, liveClientOf, type LiveQuota } from "./quota.ts";
import { shareKey } from "./events/shared-events.ts";

export class LiveSubscription {
  #ended = false;
  #releases: (() => void)[] = [];
  #answers: AsyncIterator<LiveAnswer> | undefined;

  get ended(): boolean {
    return this.#ended;
  }

  /** Keeps `release` until the end; runs it at once when the subscription has ended already. */
  hold(release: () => void): void {
    if (this.#ended) release();
    else this.#releases.push(release);
  }

  /** Ends it (from outside or inside): stops its events and releases what it holds, once. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    void this.#answers?.return?.().catch(() => {});
    for (const release of this.#releases.splice(0)) release();
  }

  /**
   * Hands each answer to `send` until the events end, the subscription is ended, or `send`
   * answers false (the peer was dropped). The next event is pulled only once `send` is done, so a
   * peer that has no room makes its subscription wait, not the server keep answers. Resolves
   * with how it ended.
   */
  async pump(
    answers: AsyncIterator<LiveAnswer>,
    send: (answer: LiveAnswer) => Promise<boolean>,
  ): Promise<"completed" | "ended" | { failed: unknown }> {
    this.#answers = answers;
    if (this.#ended) {
      void answers.return?.().catch(() => {});
      return "ended";
    }
    try {
      for (;;) {
        const step = await answers.next();
        if (this.#ended) return "ended";
        if (step.done) return "completed";
        if (!(await send(step.value))) return "ended";
      }
    } catch (failure) {
      return this.#ended ? "ended" : { failed: failure };
    }
  }
}

/**
 * What each event of one subscription runs (subscriptions/execute.ts): a class, so 10,000 idle
 * subscriptions hold one small object each rather than four closures (issue 48).
 */
class SubscriptionEvents implements SubscriptionHooks {
  constructor(
    private readonly deps: LiveStartDeps,
    private readonly admitted: Admitted,
    private readonly who: Subscriber,
  ) {}

  eventContext(): Promise<Context> {
    const { token, clientAddress, auth } = this.who;
    return this.deps.createContext(token, { clientAddress, known: auth });
  }

  execute(eventContext: Context, event: unknown): Promise<ExecutionResult> {
    const { document, operationName, variables } = this.admitted;
    return this.deps.runner.execute(document, operationName, variables, eventContext, event);
  }

  serialise(result: ExecutionResult): string {
    return JSON.stringify(result.errors?.length ? { ...result, errors: this.deps.format(result.errors) } : result);
  }

  track<T>(work: Promise<T>): Promise<T> {
    return this.deps.track(work);
  }
}

/** What a transport knows of the subscriber once the subscription is admitted. */
export type Subscriber = { token: string | undefined; auth: Authentication; clientAddress: string };

export type LiveStartDeps = {
  runner: OperationRunner;
  quota: LiveQuota;
  createContext: ContextFactory;
  metrics: Metrics;
  /** Errors as clients see them (the runner's formatting, internal errors logged). */
  format(errors: readonly GraphQLError[]): GraphQLFormattedError[];
  /** Sees each event's execution (shutdown waits for those under way). */
  track<T>(work: Promise<T>): Promise<T>;
};

/**
 * How a start went: its answers; or refused, with the errors (`byField`: by the subscription
 * field itself, e.g. auth or an unknown restaurant, rather than a limit or the server); or ended
 * (by the client) while it was being set up.
 */
export type Started =
  { answers: AsyncIterator<LiveAnswer> } | { errors: GraphQLFormattedError[]; byField?: true } | { ended: true };

const refusalOf = (code: string, message: string) => [new GraphQLError(message, { extensions: { code } })];

/**
 * Steps after admission, shared by both transports: the client's quota (count and cost), the
 * context, the subscription's start (its `subscribe`: auth and ownership). `query` is the text
 * the subscriber sent (with the variables and viewer, it keys the shared executions).
 */
export async function beginSubscription(
  deps: LiveStartDeps,
  subscription: LiveSubscription,
  query: string,
  admitted: Admitted,
  who: Subscriber,
): Promise<Started> {
  const { runner, quota, metrics } = deps;
  if (subscription.ended) return { ended: true };
  const viewer = who.auth.state === "valid" ? who.auth.viewer : null;
  const grant = quota.subscribe(liveClientOf(viewer, who.clientAddress), admitted.cost);
  if (isRefusal(grant)) return { errors: deps.format(refusalOf("RATE_LIMITED", grant.refused)) };
  subscription.hold(grant);
  metrics.live.subscriptions.inc();
  subscription.hold(() => metrics.live.subscriptions.dec());
  const events = new SubscriptionEvents(deps, admitted, who);
  let source: Awaited<ReturnType<typeof executeSubscription>>;
  try {
    const context = await events.eventContext();
    if (subscription.ended) return { ended: true };
    source = await executeSubscription(
      {
        schema: runner.schema,
        document: admitted.document,
        operationName: admitted.operationName,
        variables: admitted.variables,
        context,
        shareKey: shareKey(query, admitted.operationName, admitted.variables, viewer),
      },
      events,
    );
  } catch (error) {
    // A database failure answers 503/507 (client-errors.ts); anything else is logged as internal.
    return {
      errors: deps.format([
        error instanceof GraphQLError
          ? error
          : new GraphQLError("The subscription could not start.", { originalError: error as Error }),
      ]),
    };
  }
  if (!(Symbol.asyncIterator in source)) return { errors: deps.format(source.errors ?? []), byField: true };
  return { answers: source };
}
