// The clients the live-update attacks use: plain HTTP requests (from a chosen source address, on a
// chosen agent), a raw graphql-transport-ws socket that sends whatever it is told and records
// every answer and how it was closed, and a Server-Sent Events subscription that is never read.
// Every wait is bounded: a server that stalls or refuses shows as an outcome, never as a hang.
import http from "node:http";
import type { Socket } from "node:net";
import WebSocket from "ws";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };

export type RequestOptions = {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Keep-alive agent to go through; without one, a connection of its own closed after the answer. */
  agent?: http.Agent;
  localAddress?: string;
  timeoutMs?: number;
};

/** Bytes of an answer's body kept (the rest is read and dropped). */
const BODY_KEPT = 256 * 1024;

/** One HTTP request; resolves with status 0 and the error as body when it fails or times out. */
export function request(url: string, options: RequestOptions = {}): Promise<Answer> {
  const { method = "GET", body, agent, localAddress, timeoutMs = 30_000 } = options;
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  if (!agent) headers.connection = "close";
  return new Promise((resolve) => {
    // The timeout counts from now, whether the request waits for the agent's socket, the answer's
    // headers or its body: a stalled server shows as timeoutMs, never as a hang.
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const done = (answer: Answer) => {
      clearTimeout(timer);
      resolve(answer);
    };
    const req = http.request(url, { method, headers, agent: agent ?? false, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on("data", (chunk: Buffer) => {
        if (kept < BODY_KEPT) chunks.push(chunk);
        kept += chunk.length;
      });
      res.on("end", () =>
        done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", (error) => done({ status: 0, headers: {}, body: `response failed: ${error.message}` }));
    });
    req.on("error", (error) => done({ status: 0, headers: {}, body: `request failed: ${error.message}` }));
    req.end(body);
  });
}

/** The `extensions.code` of the first GraphQL or REST error in an answer's body, if any. */
export function errorCode(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as {
      errors?: { extensions?: { code?: string } }[];
      code?: string;
      error?: { code?: string };
    };
    return parsed.errors?.[0]?.extensions?.code ?? parsed.error?.code ?? parsed.code;
  } catch {
    return undefined;
  }
}

export type Closed = { code: number; reason: string };

/** A graphql-transport-ws protocol message as received. */
export type Message = { id?: string; type: string; payload?: unknown };

/**
 * A raw graphql-transport-ws socket: no client library, so it can send what a well-behaved
 * client never would (pings before connection_init, subscribe/complete/subscribe bursts), and
 * stop reading. Records the messages it got by type and id, and the close code and reason.
 */
export class GraphqlSocket {
  readonly ws: WebSocket;
  /** Set once the socket is closed (by either side, or because it failed). */
  closedWith: Closed | null = null;
  readonly closed: Promise<Closed>;
  /** Why the socket never opened (HTTP status of a refused upgrade, connection error), if it did not. */
  failure: string | null = null;
  readonly opened: Promise<boolean>;
  private readonly listeners = new Set<(message: Message) => void>();

  constructor(url: string, options: { localAddress?: string } = {}) {
    this.ws = new WebSocket(url, "graphql-transport-ws", {
      localAddress: options.localAddress,
      handshakeTimeout: 10_000,
    });
    this.ws.on("unexpected-response", (req, res) => {
      this.failure = `HTTP ${res.statusCode}`;
      res.resume();
      req.destroy();
    });
    this.closed = new Promise((resolve) =>
      this.ws.once("close", (code, reason) => {
        this.closedWith = { code, reason: reason.toString() };
        resolve(this.closedWith);
      }),
    );
    this.opened = new Promise((resolve) => {
      this.ws.once("open", () => resolve(true));
      this.ws.once("close", () => resolve(false));
    });
    this.ws.on("error", (error) => (this.failure ??= error.message));
    this.ws.on("message", (data: Buffer) => {
      if (this.listeners.size) for (const listener of [...this.listeners]) listener(parseMessage(data));
    });
  }

  get isOpen() {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** The TCP socket underneath (to pause reading). */
  get tcp(): Socket {
    return (this.ws as unknown as { _socket: Socket })._socket;
  }

  /** Calls `listener` with every message from now on; returns the function that stops it. */
  onMessage(listener: (message: Message) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  send(message: object) {
    if (this.isOpen) this.ws.send(JSON.stringify(message));
  }

  /** Opens the socket and sends connection_init; "ack", or what happened instead. */
  async init(payload: Record<string, unknown> = {}, ms = 10_000): Promise<string> {
    if (!(await withTimeout(this.opened, ms, false))) return this.outcome("did not open");
    let stop = () => {};
    const acked = new Promise<boolean>((resolve) => {
      stop = this.onMessage((message) => message.type === "connection_ack" && resolve(true));
      void this.closed.then(() => resolve(false));
    });
    this.send({ type: "connection_init", payload });
    const ok = await withTimeout(acked, ms, false);
    stop();
    return ok ? "ack" : this.outcome("no connection_ack");
  }

  /** How the socket ended, or `otherwise` while it is open: "closed 4408 Connection initialisation timeout", "HTTP 503". */
  outcome(otherwise: string): string {
    if (this.closedWith) return `closed ${describeClose(this.closedWith)}`;
    if (this.failure) return this.failure;
    return otherwise;
  }

  subscribe(id: string, query: string, variables?: Record<string, unknown>) {
    this.send({ id, type: "subscribe", payload: { query, variables } });
  }

  complete(id: string) {
    this.send({ id, type: "complete" });
  }

  /** Closes (1000) and waits for the close, at most `ms`; then cuts the connection. */
  async close(ms = 3_000): Promise<Closed> {
    if (this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
    else if (this.isOpen) this.ws.close(1000, "done");
    const closed = await withTimeout(this.closed, ms, null);
    if (!closed) this.ws.terminate();
    return closed ?? (await this.closed);
  }
}

/** Messages longer than this are not parsed whole: their id and type are read from the start. */
const PARSED_WHOLE = 4096;

/**
 * A message as received. A long one (an event of ~1 MB) only has its id and type read from its
 * start, where graphql-ws writes them: parsing every event whole would spend this process's CPU,
 * on cores it shares with the server, on payloads no attack looks into.
 */
function parseMessage(data: Buffer): Message {
  if (data.length > PARSED_WHOLE) {
    const head = data.subarray(0, 256).toString("utf8");
    const type = /"type":"(\w+)"/.exec(head)?.[1];
    if (type) return { type, id: /"id":"([^"]*)"/.exec(head)?.[1] };
  }
  try {
    return JSON.parse(data.toString()) as Message;
  } catch {
    return { type: "(not JSON)" };
  }
}

export const describeClose = (closed: Closed) => `${closed.code}${closed.reason ? ` ${closed.reason}` : ""}`;

/** `promise`, or `fallback` once `ms` have passed. */
export function withTimeout<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Waits until `done()` holds, checking every `everyMs`, at most `ms` in all, and giving up early
 * once `progress()` (when given) has not changed for `stallMs`. Returns whether `done()` held.
 */
export async function waitFor(
  done: () => boolean | Promise<boolean>,
  {
    ms,
    everyMs = 100,
    progress,
    stallMs = Infinity,
  }: { ms: number; everyMs?: number; progress?: () => number | Promise<number>; stallMs?: number },
): Promise<boolean> {
  const deadline = Date.now() + ms;
  let last = progress ? await progress() : 0;
  let lastChange = Date.now();
  for (;;) {
    if (await done()) return true;
    const now = Date.now();
    if (now >= deadline || now - lastChange >= stallMs) return false;
    await sleep(everyMs);
    if (progress) {
      const value = await progress();
      if (value !== last) {
        last = value;
        lastChange = Date.now();
      }
    }
  }
}

/**
 * A subscription over Server-Sent Events (graphql-sse, distinct connections) from a client that
 * never reads it: the request is sent on a connection of its own and, once the answer's headers
 * are in, the socket stops reading, so whatever the server sends stays in its buffers. `drain()`
 * reads it afterwards and reports what had been sent and how the stream ended.
 */
export class UnreadStream {
  /** HTTP status of the answer (0 until it came, or when the request failed). */
  status = 0;
  contentType = "";
  /** The body of an answer that is not a stream (a refusal), or the request's error. */
  refusal = "";
  /** Set when the stream was seen ending (only noticed while reading: at `drain()`). */
  ended: string | null = null;
  readonly answered: Promise<void>;
  private response: http.IncomingMessage | null = null;
  private readonly req: http.ClientRequest;

  constructor(url: string, token: string, query: string, variables: Record<string, unknown>) {
    const body = JSON.stringify({ query, variables });
    this.req = http.request(url, {
      method: "POST",
      agent: false,
      headers: {
        accept: "text/event-stream",
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        authorization: `Bearer ${token}`,
      },
    });
    this.answered = new Promise((resolve) => {
      this.req.on("response", (res) => {
        this.status = res.statusCode ?? 0;
        this.contentType = String(res.headers["content-type"] ?? "");
        this.response = res;
        if (this.isStream) {
          res.pause();
          res.socket.pause();
          resolve();
          return;
        }
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text = (text + chunk).slice(0, 2_000)));
        res.on("end", () => {
          this.refusal = text;
          this.ended = "answered";
          resolve();
        });
        res.on("error", () => resolve());
      });
      this.req.on("error", (error) => {
        this.refusal ||= error.message;
        this.ended ??= `error: ${error.message}`;
        resolve();
      });
    });
    this.req.end(body);
  }

  get isStream() {
    return this.status === 200 && this.contentType.startsWith("text/event-stream");
  }

  /** Reads what the server had sent, until the stream ends or nothing comes for `idleMs` (at most `ms`). */
  async drain(idleMs = 1_000, ms = 10_000): Promise<{ bytes: number; events: number; ended: string | null }> {
    const res = this.response;
    if (!res || !this.isStream) return { bytes: 0, events: 0, ended: this.ended };
    let bytes = 0;
    let events = 0;
    let tail = "";
    let lastData = Date.now();
    const finished = new Promise<void>((resolve) => {
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        lastData = Date.now();
        const text = tail + chunk.toString("latin1");
        events += text.split("event: next").length - 1;
        tail = text.slice(-("event: next".length - 1)); // a marker split across chunks counts once
      });
      res.once("end", () => {
        this.ended ??= "ended by the server";
        resolve();
      });
      res.once("error", (error) => {
        this.ended ??= `error: ${error.message}`;
        resolve();
      });
      res.once("close", () => {
        this.ended ??= "connection closed";
        resolve();
      });
    });
    res.socket.resume();
    res.resume();
    const deadline = Date.now() + ms;
    while (!this.ended && Date.now() < deadline && Date.now() - lastData < idleMs)
      await withTimeout(finished, 100, null);
    return { bytes, events, ended: this.ended };
  }

  destroy() {
    this.req.destroy();
  }
}
