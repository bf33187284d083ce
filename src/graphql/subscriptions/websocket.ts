// GraphQL over WebSocket (the graphql-ws protocol, `graphql-transport-ws`) on /graphql: what
// Apollo Client, urql and Relay speak for subscriptions. The socket carries subscriptions only
// (queries and mutations stay on HTTP, with their status codes).
//
// The protocol's server side is ours, over graphql-ws's own message codec and close codes: its
// server kept a subscription's state by id, so a subscribe/complete/subscribe burst on one id left
// a subscription running that nobody could end; it answered pings before connection_init without
// bound; and it had no bound on what it queued for a peer that does not read. Here:
// - each subscribe message is charged, parsed, validated and costed by the admission path every
//   transport shares (operation.ts), then held by its own LiveSubscription (live-subscription.ts), which
//   releases what it holds exactly once, whatever the order of messages;
// - every message counts against a per-socket budget (WS_MESSAGE_BURST, then WS_MESSAGES_PER_SECOND);
//   past it the socket is closed (1008): pings and junk included, before connection_init too;
// - what waits to be sent is bounded (LIVE_MAX_BUFFERED_BYTES): a peer that does not read is
//   dropped (1008), not buffered for;
// - sockets count against their client's live quota (quota.ts: an address until connection_init
//   names an account), and a socket with no subscription for LIVE_IDLE_TIMEOUT is closed (1000);
// - the token is re-checked while the socket lives, so a revoked or expired token (or a changed
//   role) ends it within SESSION_CACHE_TTL (4403), as on every transport.
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import websocket, { type WebSocket } from "@fastify/websocket";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { CloseCode, GRAPHQL_TRANSPORT_WS_PROTOCOL, MessageType, parseMessage, type Message } from "graphql-ws";
import type { Config } from "../../config.ts";
import { tokenRefusal, tokenUncheckable } from "../../contract/errors.ts";
import type { Authentication } from "../../domain/accounts/tokens.ts";
import type { Metrics } from "../../http/observability/metrics.ts";
import { rememberConnectionToken } from "../../http/limits/rate-limit.ts";
import type { ContextFactory } from "../data/context.ts";
import type { OperationRunner } from "../execution/operation.ts";
import type { LiveAnswer } from "./execute.ts";
import { beginSubscription, LiveSubscription, type LiveStartDeps } from "./live-subscription.ts";
import { isRefusal, liveClientOf, type LiveQuota } from "./quota.ts";
import type { TokenWatch } from "./token-watch.ts";
import { delivered, inFlightTracker } from "./delivery.ts";
import { Outbox, type Peer } from "./outbox.ts";

/** Close codes this transport uses besides graphql-ws's own (4400, 4401, 4408, 4409, 4429, ...). */
export const CLOSE = {
  /** Idle: no subscription for LIVE_IDLE_TIMEOUT; a client reconnects when it subscribes again. */
  IDLE: 1000,
  /** The server is shutting down (RFC 6455 "going away"): reconnect, to another instance. */
  GOING_AWAY: 1001,
  /** Policy: too many messages, a peer that does not read, too many sockets for one client. */
  POLICY: 1008,
  /** The token could not be checked (database unreachable): try again later (RFC 6455 1013). */
  TRY_AGAIN_LATER: 1013,
  /** connection_init carried a bad token, or the token was revoked, expired or the account's role changed. */
  FORBIDDEN: 4403,
} as const;

/** How long shutdown waits for events being executed before closing the sockets. */
const SHUTDOWN_WAIT_MS = 5_000;
/** A peer that does not answer the close handshake is cut off after this. */
const CLOSE_GRACE_MS = 2_000;

export type GraphqlWebSocketOptions = {
  runner: OperationRunner;
  createContext: ContextFactory;
  /** Only the settings it reads: WS_* and LIVE_*, SHUTDOWN_TIMEOUT. */
  config: Pick<Config, "live" | "shutdownTimeoutMs">;
  metrics: Metrics;
  /** Ends a subscription whose token is revoked or whose role changed (shared with the other transport). */
  watchToken: TokenWatch;
  /** What one client may hold, shared with the other transport. */
  quota: LiveQuota;
  /** Errors as clients see them (the runner's formatting; internal ones logged). */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The token of connection_init: `authorization` in any letter case ("Bearer x"), or `token` ("x"),
 * at the top or inside a `headers` object (`{ headers: { Authorization } }`, as some clients nest them).
 */
export function tokenFromConnectionParams(params: unknown): string | undefined {
  if (!isObject(params)) return undefined;
  const headerName = Object.keys(params).find((key) => key.toLowerCase() === "authorization");
  const header = headerName === undefined ? undefined : params[headerName];
  if (typeof header === "string") return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? (header.trim() || undefined);
  if (typeof params.token === "string" && params.token.trim()) return params.token.trim();
  return isObject(params.headers) ? tokenFromConnectionParams(params.headers) : undefined;
}

/**
 * The token a subscribe message carries in `extensions.headers`: GraphiQL (and graphql-tools'
 * executors) send the Headers pane there, not in connection_init, whose payload stays empty.
 */
export function tokenFromSubscribeExtensions(extensions: unknown): string | undefined {
  return isObject(extensions) && isObject(extensions.headers)
    ? tokenFromConnectionParams(extensions.headers)
    : undefined;
}

/** A close frame's reason holds at most 123 bytes (RFC 6455, 5.5): a longer one is cut (whole characters), never refused by ws. */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= 123) return reason;
  let cut = "";
  let bytes = 0;
  for (const character of reason) {
    bytes += Buffer.byteLength(character);
    if (bytes > 120) break;
    cut += character;
  }
  return `${cut}...`;
}

const OTHER_TOKEN = "This connection is signed in with another access token; open a new connection to use this one.";

type Refusal = { code: string; message: string };

/** The socket as its outbox sees it (a class: 10,000 sockets share its methods instead of holding four closures each). */
class SocketPeer implements Peer {
  constructor(private readonly socket: WebSocket) {}

  buffered(): number {
    return this.socket.bufferedAmount;
  }

  send(text: string): void {
    this.socket.send(text);
  }

  open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  drop(): void {
    this.socket.close(CLOSE.POLICY, "The client is not reading what it is sent (LIVE_STALL_TIMEOUT); reconnect.");
    this.socket.terminate(); // its buffer is full: the close frame would wait behind it
  }
}

/** One socket: its caller, its subscriptions by id, its message budget and its timers. */
class LiveSocket {
  token: string | undefined;
  auth: Authentication = { state: "none" };
  /** connection_init received (a second one closes the socket), then acknowledged. */
  initialised = false;
  acknowledged = false;
  readonly subscriptions = new Map<string, LiveSubscription>();
  releaseSlot: () => void = () => {};
  stopWatching: () => void = () => {};
  idleTimer: NodeJS.Timeout | undefined;
  private budget: number;
  private budgetAt = Date.now();

  constructor(
    readonly socket: WebSocket,
    readonly request: FastifyRequest,
    /** What the socket sends, bounded (outbox.ts). */
    readonly outbox: Outbox,
    /** Messages it may send at once, then each second (a token bucket: WS_MESSAGE_BURST, WS_MESSAGES_PER_SECOND). */
    private readonly rate: { burst: number; perSecond: number },
  ) {
    this.budget = rate.burst;
  }

  /** Takes one message from the budget; false when it is spent. */
  spend(): boolean {
    const now = Date.now();
    this.budget = Math.min(this.rate.burst, this.budget + ((now - this.budgetAt) / 1000) * this.rate.perSecond);
    this.budgetAt = now;
    if (this.budget < 1) return false;
    this.budget--;
    return true;
  }
}

/**
 * Registers @fastify/websocket (largest message, shutdown with 1001) and returns the handler of
 * WebSocket upgrades on GET /graphql and the check to run before an upgrade (graphqlPlugin).
 * Register it before any route.
 */
export async function graphqlWebSocket(app: FastifyInstance, options: GraphqlWebSocketOptions) {
  const { runner, createContext, config, metrics, quota } = options;
  const limits = config.live;
  let closing = false;
  const inFlight = inFlightTracker(metrics);
  const format = (errors: readonly GraphQLError[]) => errors.map((error) => options.formatError(error.toJSON(), error));
  const deps: LiveStartDeps = { runner, quota, createContext, metrics, format, track: inFlight.track };

  await app.register(websocket, {
    options: {
      maxPayload: limits.maxMessageBytes,
      handleProtocols: (protocols) =>
        protocols.has(GRAPHQL_TRANSPORT_WS_PROTOCOL) ? GRAPHQL_TRANSPORT_WS_PROTOCOL : false,
    },
    // Shutdown: no new subscriptions, the events being executed are sent, then every socket is
    // closed with 1001 (going away) so clients reconnect (to another instance).
    preClose: async function closeSockets(this: FastifyInstance) {
      closing = true;
      await inFlight.settled(Math.min(SHUTDOWN_WAIT_MS, config.shutdownTimeoutMs / 2));
      for (const client of this.websocketServer.clients) {
        client.close(CLOSE.GOING_AWAY, "The server is shutting down; reconnect.");
        setTimeout(() => client.terminate(), CLOSE_GRACE_MS).unref();
      }
      await new Promise<void>((resolve) => this.websocketServer.close(() => resolve()));
    },
  });

  function close(live: LiveSocket, code: number, reason: string) {
    if (live.socket.readyState !== live.socket.OPEN && live.socket.readyState !== live.socket.CONNECTING) return;
    live.socket.close(code, closeReason(reason));
    // A peer that stopped reading never completes the close handshake.
    setTimeout(() => live.socket.terminate(), CLOSE_GRACE_MS).unref();
  }

  /** The socket's outbox: a peer that takes nothing while answers wait is dropped with 1008. */
  const outboxOf = (socket: WebSocket): Outbox =>
    new Outbox(new SocketPeer(socket), limits.maxBufferedBytes, limits.stallTimeoutMs, () =>
      metrics.live.dropped.inc({ reason: "not reading" }),
    );

  /** A protocol message (acknowledgement, pong, error, complete): small, sent at once. */
  const message = (live: LiveSocket, body: Record<string, unknown>) => live.outbox.sendNow(JSON.stringify(body));

  function armIdle(live: LiveSocket) {
    clearTimeout(live.idleTimer);
    if (!live.acknowledged || live.subscriptions.size > 0) return;
    live.idleTimer = setTimeout(
      () => close(live, CLOSE.IDLE, "No subscription for LIVE_IDLE_TIMEOUT; reconnect to subscribe."),
      limits.idleTimeoutMs,
    );
    live.idleTimer.unref();
  }

  function watch(live: LiveSocket) {
    live.stopWatching = options.watchToken({
      token: live.token,
      auth: live.auth,
      onEnd: (why) =>
        close(
          live,
          CLOSE.FORBIDDEN,
          why === "revoked"
            ? "The access token was revoked or has expired; sign in again."
            : "The account's role changed; reconnect.",
        ),
      onValid: (auth) => (live.auth = auth),
    });
  }

  /** The socket now counts against `client` (an account once connection_init names one). */
  function countAgainst(live: LiveSocket, client: string): boolean {
    const slot = quota.connect(client);
    if (isRefusal(slot)) {
      close(live, CLOSE.POLICY, slot.refused.slice(0, 120));
      return false;
    }
    live.releaseSlot();
    live.releaseSlot = slot;
    return true;
  }

  async function onInit(live: LiveSocket, payload: unknown) {
    if (live.initialised)
      return close(live, CloseCode.TooManyInitialisationRequests, "Too many initialisation requests");
    live.initialised = true;
    const token = tokenFromConnectionParams(payload);
    let auth: Authentication;
    try {
      auth = await createContext.authenticate(token);
    } catch (error) {
      return close(live, CLOSE.TRY_AGAIN_LATER, tokenUncheckable(error));
    }
    if (token && auth.state !== "valid")
      return close(live, CLOSE.FORBIDDEN, tokenRefusal(auth.state === "invalid" ? auth.reason : undefined));
    if (auth.state === "valid" && !signIn(live, token!, auth)) return;
    live.acknowledged = true;
    message(live, { type: MessageType.ConnectionAck });
    armIdle(live);
  }

  /** The socket is `token`'s from now on: counted against its account, its token watched. */
  function signIn(live: LiveSocket, token: string, auth: Authentication & { state: "valid" }): boolean {
    if (!countAgainst(live, liveClientOf(auth.viewer, live.request.ip))) return false;
    rememberConnectionToken(live.request, token);
    live.token = token;
    live.auth = auth;
    watch(live);
    return true;
  }

  /**
   * A token in a subscribe message's extensions.headers signs in a socket whose connection_init
   * carried none (GraphiQL's way); from then on the socket is that token's. A refusal for a bad
   * token or one other than the socket's.
   */
  async function adoptSubscribeToken(live: LiveSocket, token: string | undefined): Promise<Refusal | undefined> {
    if (!token || token === live.token) return undefined;
    if (live.token) return { code: "BAD_USER_INPUT", message: OTHER_TOKEN };
    let auth: Authentication;
    try {
      auth = await createContext.authenticate(token);
    } catch (error) {
      return { code: "SERVICE_UNAVAILABLE", message: tokenUncheckable(error) };
    }
    if (auth.state !== "valid")
      return { code: "UNAUTHENTICATED", message: tokenRefusal(auth.state === "invalid" ? auth.reason : undefined) };
    // Another subscribe on this socket may have signed it in while this one was checked.
    if (live.token === token) return undefined;
    if (live.token) return { code: "BAD_USER_INPUT", message: OTHER_TOKEN };
    return signIn(live, token, auth)
      ? undefined
      : { code: "RATE_LIMITED", message: "Too many live-update sockets for this account." };
  }

  const refuse = (live: LiveSocket, id: string, errors: GraphQLFormattedError[]) =>
    message(live, { id, type: MessageType.Error, payload: errors });
  const refuseWith = (live: LiveSocket, id: string, { code, message: text }: Refusal) =>
    refuse(live, id, [{ message: text, extensions: { code } }]);

  async function onSubscribe(
    live: LiveSocket,
    id: string,
    payload: {
      query: string;
      operationName?: string | null;
      variables?: Record<string, unknown> | null;
      extensions?: unknown;
    },
  ) {
    if (live.subscriptions.has(id))
      return close(live, CloseCode.SubscriberAlreadyExists, `Subscriber for ${id} already exists`);
    const subscription = new LiveSubscription();
    live.subscriptions.set(id, subscription);
    clearTimeout(live.idleTimer);
    subscription.hold(() => {
      if (live.subscriptions.get(id) === subscription) live.subscriptions.delete(id);
      armIdle(live);
    });
    try {
      await follow(live, id, payload, subscription);
    } finally {
      subscription.end();
    }
  }

  async function follow(
    live: LiveSocket,
    id: string,
    payload: Parameters<typeof onSubscribe>[2],
    subscription: LiveSubscription,
  ) {
    if (closing)
      return refuseWith(live, id, {
        code: "SERVICE_UNAVAILABLE",
        message: "The server is shutting down; subscribe again after reconnecting.",
      });
    if (live.subscriptions.size > limits.maxSubscriptionsPerConnection) {
      return refuseWith(live, id, {
        code: "RATE_LIMITED",
        message: `At most ${limits.maxSubscriptionsPerConnection} subscriptions may run on one connection (WS_MAX_SUBSCRIPTIONS_PER_CONNECTION); complete one first.`,
      });
    }
    const caller = { chargeRequests: (units: number) => app.chargeRequests(live.request, units), prepaid: false };
    const viewer = live.auth.state === "valid" ? live.auth.viewer : null;
    const admitted = await runner.admit(payload, caller, { only: "subscription", transport: "WebSocket", viewer });
    if (subscription.ended) return;
    if ("errors" in admitted) return refuse(live, id, format(admitted.errors));
    const adopted = await adoptSubscribeToken(live, tokenFromSubscribeExtensions(payload.extensions));
    if (subscription.ended) return;
    if (adopted) return refuseWith(live, id, adopted);
    const started = await beginSubscription(deps, subscription, admitted.text, admitted, {
      token: live.token,
      auth: live.auth,
      clientAddress: live.request.ip,
    });
    if ("ended" in started) return;
    const head = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
    if ("errors" in started) {
      if (!started.byField) return refuse(live, id, started.errors);
      // Refused by the field itself (auth, an unknown restaurant): one result with its errors, then complete.
      message(live, { id, type: MessageType.Next, payload: { errors: started.errors } });
      return message(live, { id, type: MessageType.Complete });
    }
    const outcome = await subscription.pump(started.answers, async (answer: LiveAnswer) => {
      const sent = await live.outbox.send(`${head}${answer.payload}}`);
      if (sent) delivered(metrics, answer.event);
      return sent;
    });
    if (outcome === "completed") message(live, { id, type: MessageType.Complete });
    else if (typeof outcome === "object") refuse(live, id, format([asGraphqlError(outcome.failed)]));
  }

  function onMessage(live: LiveSocket, data: unknown) {
    if (!live.spend()) {
      metrics.live.dropped.inc({ reason: "too many messages" });
      close(live, CLOSE.POLICY, `Too many messages (more than ${config.live.messagesPerSecond} a second).`);
      return;
    }
    let received: Message;
    try {
      received = parseMessage(String(data));
    } catch (error) {
      return close(live, CloseCode.BadRequest, (error as Error).message.slice(0, 120));
    }
    switch (received.type) {
      case MessageType.ConnectionInit:
        return void onInit(live, received.payload);
      case MessageType.Ping:
        return void message(live, { type: MessageType.Pong });
      case MessageType.Pong:
        return;
      case MessageType.Subscribe:
        if (!live.acknowledged) return close(live, CloseCode.Unauthorized, "Unauthorized");
        return void onSubscribe(live, received.id, received.payload).catch((error) =>
          live.request.log.error({ err: error }, "subscription failed"),
        );
      case MessageType.Complete: {
        const subscription = live.subscriptions.get(received.id);
        live.subscriptions.delete(received.id); // the id may be used again at once
        subscription?.end();
        return;
      }
      default:
        return close(live, CloseCode.BadRequest, `Unexpected message of type ${received.type} received`);
    }
  }

  function keepAlive(live: LiveSocket) {
    if (limits.keepAliveMs <= 0) return () => {};
    let answered = true;
    live.socket.on("pong", () => (answered = true));
    const timer = setInterval(() => {
      if (!answered) return live.socket.terminate();
      answered = false;
      live.socket.ping();
    }, limits.keepAliveMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Before the upgrade: an address over its live bound gets 429 instead of a socket. */
  async function beforeUpgrade(request: FastifyRequest, reply: FastifyReply) {
    if (!request.ws || quota.mayConnect(liveClientOf(null, request.ip))) return;
    metrics.live.dropped.inc({ reason: "too many sockets" });
    return reply.code(429).send({
      error: {
        code: "RATE_LIMITED",
        message: `Too many live-update sockets from this address (LIVE_MAX_CONNECTIONS_PER_CLIENT).`,
      },
    });
  }

  function handler(this: FastifyInstance, socket: WebSocket, request: FastifyRequest) {
    releaseUpgrade(socket, request.raw.socket, this.log);
    const live = new LiveSocket(socket, request, outboxOf(socket), {
      burst: config.live.messageBurst,
      perSecond: config.live.messagesPerSecond,
    });
    metrics.live.connections.inc();
    const stopPings = keepAlive(live);
    const initTimer = setTimeout(() => {
      if (!live.initialised)
        close(live, CloseCode.ConnectionInitialisationTimeout, "Connection initialisation timeout");
    }, limits.connectionInitTimeoutMs);
    initTimer.unref();
    socket.once("close", () => {
      metrics.live.connections.dec();
      live.outbox.close();
      clearTimeout(initTimer);
      clearTimeout(live.idleTimer);
      stopPings();
      live.stopWatching();
      for (const subscription of [...live.subscriptions.values()]) subscription.end();
      live.subscriptions.clear();
      live.releaseSlot();
    });
    if (socket.protocol !== GRAPHQL_TRANSPORT_WS_PROTOCOL)
      return close(live, CloseCode.SubprotocolNotAcceptable, "Subprotocol not acceptable");
    // Before connection_init the socket is its address's.
    if (!countAgainst(live, liveClientOf(null, request.ip))) return;
    socket.on("message", (data) => onMessage(live, data));
  }

  return { handler, beforeUpgrade };
}

/**
 * @fastify/websocket routes an upgrade as a request with a ServerResponse attached to the TCP
 * socket, never sent once the socket is upgraded, and held by it (with fastify's reply and their
 * listeners) for as long as the socket lives: about 1 KiB of each idle subscriber's memory
 * (docs/performance.md, "Ten thousand listeners"). Released, they are garbage.
 */
function releaseUpgrade(socket: WebSocket, tcp: Socket, log: FastifyInstance["log"]) {
  (tcp as Socket & { _httpMessage?: ServerResponse | null })._httpMessage?.detachSocket(tcp);
  // Its error listener's closure holds the reply too: the same log line, from a closure of ours.
  socket.removeAllListeners("error");
  socket.on("error", (error) => log.error(error));
}

const asGraphqlError = (failure: unknown) =>
  failure instanceof GraphQLError
    ? failure
    : new GraphQLError(failure instanceof Error ? failure.message : "The subscription failed.", {
        originalError: failure instanceof Error ? failure : undefined,
      });
