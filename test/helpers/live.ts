// GraphQL over WebSocket clients for tests: graphql-ws's own client (what Apollo Client, urql and
// Relay use underneath) with the `ws` package, against a real server, and a raw socket for
// protocol-level checks. Every wait is bounded ("does it arrive at all"), never a speed assertion.
import http from "node:http";
import { createClient, type Client, type ExecutionResult } from "graphql-ws";
import WebSocket from "ws";
import { InProcessBus, type EventBus, type LiveListener } from "../../src/events/bus.ts";
import type { TestServer } from "./server.ts";

/** The in-process bus, counting its listeners: a test writes only once its subscriptions listen. */
export class CountingBus extends InProcessBus {
  listening = 0;
  override listen(listener: LiveListener): () => void {
    this.listening++;
    const stop = super.listen(listener);
    let stopped = false;
    return () => {
      if (!stopped) this.listening--;
      stopped = true;
      stop();
    };
  }
  /** Waits (at most `ms`) until `n` subscriptions listen. */
  async untilListening(n: number, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.listening < n) {
      if (Date.now() > deadline) throw new Error(`${this.listening} of ${n} subscriptions listening after ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/**
 * Counts the listeners of a server's own bus (PostgreSQL, Redis, ...) without changing what it
 * does: cross-instance tests write only once the other instance's subscriptions listen.
 */
export function countListeners(bus: EventBus): {
  listening(): number;
  untilListening(n: number, ms?: number): Promise<void>;
} {
  let listening = 0;
  const listen = bus.listen.bind(bus);
  bus.listen = (listener) => {
    listening++;
    const stop = listen(listener);
    let stopped = false;
    return () => {
      if (!stopped) listening--;
      stopped = true;
      stop();
    };
  };
  return {
    listening: () => listening,
    async untilListening(n, ms = 5000) {
      const deadline = Date.now() + ms;
      while (listening < n) {
        if (Date.now() > deadline) throw new Error(`${listening} of ${n} subscriptions listening after ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}

export const wsUrl = (server: TestServer) => `${server.url.replace(/^http/, "ws")}/graphql`;

export type LiveClient = Client & { closes: { code: number; reason: string }[] };

/** A client that connects at once and never retries (a refusal must show, not be retried). */
export function liveClient(server: TestServer, connectionParams?: Record<string, unknown>): LiveClient {
  const closes: { code: number; reason: string }[] = [];
  const client = createClient({
    url: wsUrl(server),
    webSocketImpl: WebSocket,
    connectionParams,
    lazy: false,
    retryAttempts: 0,
    onNonLazyError: () => {},
    on: {
      closed: (event) => void closes.push({ code: (event as CloseEvent).code, reason: (event as CloseEvent).reason }),
    },
  });
  return Object.assign(client, { closes });
}

export type Sub = {
  /** Results received so far. */
  results: ExecutionResult<any>[];
  /** The next result not yet taken (waits at most `ms`). */
  next(ms?: number): Promise<ExecutionResult<any>>;
  /** Resolves with the error (an `error` message's errors, or a close event) or "complete". */
  ended: Promise<unknown>;
  stop(): void;
};

export function subscribe(
  client: Client,
  query: string,
  variables?: Record<string, unknown>,
  extensions?: Record<string, unknown>,
): Sub {
  const results: ExecutionResult<any>[] = [];
  let taken = 0;
  const waiters: (() => void)[] = [];
  let finish!: (outcome: unknown) => void;
  const ended = new Promise<unknown>((resolve) => (finish = resolve));
  const stop = client.subscribe(
    { query, variables, extensions },
    {
      next: (result) => {
        results.push(result as ExecutionResult<any>);
        waiters.splice(0).forEach((wake) => wake());
      },
      error: (error) => finish(error),
      complete: () => finish("complete"),
    },
  );
  return {
    results,
    ended,
    stop,
    async next(ms = 5000) {
      const deadline = Date.now() + ms;
      while (results.length <= taken) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no result within ${ms} ms (received ${results.length})`);
        await Promise.race([
          new Promise<void>((wake) => waiters.push(wake)),
          new Promise((r) => setTimeout(r, Math.min(left, 100))),
        ]);
      }
      return results[taken++];
    },
  };
}

/** Waits at most `ms` for a promise, else fails naming what was awaited. */
export async function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls (at most `ms`) until `check` holds: for what happens within a stated bound, never a speed. */
export async function eventually(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Lets events already published be delivered (or not) before asserting that none arrived. */
export const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

/** A raw graphql-transport-ws socket, for what a well-behaved client never sends. */
export function rawSocket(server: TestServer, options: WebSocket.ClientOptions = {}) {
  const socket = new WebSocket(wsUrl(server), "graphql-transport-ws", options);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const opened = new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return { socket, opened, closed };
}

/**
 * A value of the server's /metrics (Prometheus text): the sample of `name` whose labels include
 * `labels`, 0 when there is none yet (a counter never incremented has no labelled sample).
 */
export async function metricValue(
  server: TestServer,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await (await server.fetch("/metrics")).text();
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name} `) && !line.startsWith(`${name}{`)) continue;
    if (wanted.every((pair) => line.includes(pair))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return 0;
}

/** A raw graphql-sse stream (POST /graphql/stream) for `token`, answered but not read: for peers a client library would not be. */
export function rawStream(server: TestServer, token: string, body: Record<string, unknown>) {
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    const request = http.request(new URL(`${server.url}/graphql/stream`), {
      method: "POST",
      headers: { accept: "text/event-stream", "content-type": "application/json", authorization: `Bearer ${token}` },
    });
    request.on("response", resolve).on("error", reject);
    request.end(JSON.stringify(body));
  });
}
