// What one client may hold on this instance, whatever the transport and however many sockets or
// tokens it uses: a client is an account when signed in (a new login is the same client), else
// an address (request.ip: the peer's, or X-Forwarded-For's behind TRUST_PROXY). Three bounds:
// open sockets and streams, active subscriptions, and the summed cost of those subscriptions,
// which bounds the work one event can make the server do for one client (each subscription is
// executed per event; subscriptions that ask the same thing share one execution, see
// events/shared-events.ts). Every grant returns its release: calling it more than once does nothing.
import { clientKeyOf } from "../data/context.ts";

export type LiveLimits = {
  maxConnectionsPerClient: number;
  maxSubscriptionsPerClient: number;
  maxCostPerClient: number;
};

/** The client a live socket or subscription counts against. */
export const liveClientOf = clientKeyOf;

type Held = { connections: number; subscriptions: number; cost: number };

export type Refusal = { refused: string };

export class LiveQuota {
  private readonly held = new Map<string, Held>();

  constructor(private readonly limits: LiveLimits) {}

  private of(client: string): Held {
    let held = this.held.get(client);
    if (!held) this.held.set(client, (held = { connections: 0, subscriptions: 0, cost: 0 }));
    return held;
  }

  private releaser(client: string, take: (held: Held) => void): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const held = this.of(client);
      take(held);
      if (held.connections <= 0 && held.subscriptions <= 0) this.held.delete(client);
    };
  }

  /** Whether `client` may open one more socket or stream (checked before a WebSocket upgrade). */
  mayConnect(client: string): boolean {
    return (this.held.get(client)?.connections ?? 0) < this.limits.maxConnectionsPerClient;
  }

  /** One more open socket or stream for `client`: its release, or why not. */
  connect(client: string): (() => void) | Refusal {
    if (!this.mayConnect(client)) {
      return {
        refused: `At most ${this.limits.maxConnectionsPerClient} live-update sockets and streams may be open for one client (LIVE_MAX_CONNECTIONS_PER_CLIENT); close some first.`,
      };
    }
    this.of(client).connections++;
    return this.releaser(client, (held) => held.connections--);
  }

  /** One more subscription of `cost` for `client`: its release, or why not. */
  subscribe(client: string, cost: number): (() => void) | Refusal {
    const held = this.of(client);
    const { maxSubscriptionsPerClient, maxCostPerClient } = this.limits;
    if (held.subscriptions >= maxSubscriptionsPerClient) {
      return {
        refused: `At most ${maxSubscriptionsPerClient} subscriptions may run for one client (LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT); complete some first.`,
      };
    }
    if (held.cost + cost > maxCostPerClient) {
      return {
        refused: `This subscription (cost ${cost}) would bring the cost of this client's subscriptions to ${held.cost + cost}, above ${maxCostPerClient} (LIVE_MAX_COST_PER_CLIENT): each runs on every event it follows; complete some or ask for less.`,
      };
    }
    held.subscriptions++;
    held.cost += cost;
    return this.releaser(client, (h) => {
      h.subscriptions--;
      h.cost -= cost;
    });
  }

  /** Subscriptions held now, over every client (metrics and tests: it must return to 0). */
  activeSubscriptions(): number {
    let total = 0;
    for (const held of this.held.values()) total += held.subscriptions;
    return total;
  }
}

export const isRefusal = (grant: (() => void) | Refusal): grant is Refusal => typeof grant !== "function";
