// A request body must keep arriving at BODY_MIN_RATE bytes/s, measured over every window of
// BODY_MIN_RATE_WINDOW from the end of its headers (the first window is the grace period). Node's
// timeouts cannot see this: `requestTimeout` bounds the whole request (REQUEST_TIMEOUT, set in
// server.ts) but a body dripping one byte every few seconds resets any idle timeout, so one
// client could otherwise hold a connection, a parser and a half-read body for the whole timeout.
// A body that falls below the rate gets 408 (when no answer has begun) and its connection closed;
// what was reading it fails as on any cut-short request, so nothing is stored.
//
// Windows in which the server itself is not reading (the socket is paused because the body's
// reader is behind, e.g. a resolver not yet streaming a file) do not count against the client.
//
// Also: an answer sent before the request's body has fully arrived (a refused token, a body that
// is too large, a 429) closes the connection when the body is large or of unknown length, so
// the server never reads megabytes it refused. The close lingers: the server stops writing, then
// reads and drops what the client is still sending for at most LINGER_MS before closing. Closing
// at once, with unread bytes in the kernel's buffer, sends a reset that can reach the client
// before it has read the answer (Node 24's fetch then reports EPIPE instead of the 413). Nothing
// read while lingering is kept.
//
// A small body (a Content-Length of at most KEEP_OPEN_BODY_BYTES, usually in the socket already)
// keeps its connection instead: Node reads and drops it after the answer and the next request
// follows on the same connection. Closing those turned a burst past the rate limit into a
// reconnect storm: each 429 cost a connection, the client's new ones arrived before the old ones
// had closed, the address went over MAX_CONNECTIONS_PER_ADDRESS and the connections past its
// reserve were dropped unread (reset sockets instead of 429s; test/hardening/rate-limit-burst.test.ts).
import type { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import fp from "fastify-plugin";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { answerAndClose } from "../answers/error-handling.ts";

export type BodyRateOptions = {
  /** BODY_MIN_RATE: bytes per second a body must keep arriving at; 0 = no check. Default 1024. */
  minBytesPerSecond?: number;
  /** BODY_MIN_RATE_WINDOW: the window the rate is measured over (and the grace period), in ms. Default 10 000. */
  windowMs?: number;
};

export const BODY_RATE_DEFAULTS = { minBytesPerSecond: 1024, windowMs: 10_000 } satisfies Required<BodyRateOptions>;

function watchBody(
  request: FastifyRequest,
  socket: Socket,
  { minBytesPerSecond, windowMs }: Required<BodyRateOptions>,
) {
  const needed = (minBytesPerSecond * windowMs) / 1000;
  let before = socket.bytesRead;
  const check = () => {
    if (request.raw.complete || socket.destroyed) return;
    const arrived = socket.bytesRead - before;
    before = socket.bytesRead;
    if (arrived >= needed || socket.isPaused()) return void (timer = setTimeout(check, windowMs).unref());
    request.log.info(
      { bytesPerSecond: Math.round((arrived * 1000) / windowMs) },
      "request body too slow; closing the connection",
    );
    // Answered already (early, keeping the connection for a small body): no second answer.
    if (answeredEarly.has(request.raw)) return void socket.destroy();
    answerAndClose(
      socket,
      408,
      "REQUEST_TIMEOUT",
      `The request body arrived slower than ${minBytesPerSecond} bytes per second.`,
    );
  };
  let timer = setTimeout(check, windowMs).unref();
  // Stop watching once the body is in: a pending check holds the request, and everything that
  // hangs off it, for a whole window, which under load outlives young-generation GC and turns
  // every request into old-generation garbage (long scavenges, the p99's tail).
  const stop = () => clearTimeout(timer);
  request.raw.once("end", stop);
  request.raw.once("close", stop);
}

/** Longest a connection answered before its body arrived keeps draining that body before it closes. */
export const LINGER_MS = 2_000;

/** Largest declared body an early answer reads and drops to keep the connection open (a TCP window's worth). */
export const KEEP_OPEN_BODY_BYTES = 64 * 1024;

/** Requests answered before their body arrived whose connection stays open (the watch must not answer them again). */
const answeredEarly = new WeakSet<IncomingMessage>();

/** A body of known, small length: cheaper to read and drop than to cost the client a new connection. */
function smallBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers["content-length"];
  return !incoming.headers["transfer-encoding"] && length !== undefined && Number(length) <= KEEP_OPEN_BODY_BYTES;
}

/**
 * Node ends such a connection with `destroySoon()` once the answer is written: here that becomes
 * "stop writing (FIN), let the rest of the body be read and dropped (Node dumps an unread body),
 * close once it has all arrived or after LINGER_MS, and never before the answer is flushed".
 */
function lingerOnClose(socket: Socket, incoming: IncomingMessage) {
  socket.destroySoon = function lingeringClose(this: Socket) {
    const close = () => (this.writableFinished ? this.destroy() : this.once("finish", () => this.destroy()));
    this.end();
    if (incoming.complete) return void close();
    const timer = setTimeout(close, LINGER_MS);
    timer.unref();
    incoming.once("end", close);
    this.once("close", () => clearTimeout(timer));
    incoming.resume();
    this.resume();
  };
}

async function bodyRate(app: FastifyInstance, given: BodyRateOptions) {
  const options = { ...BODY_RATE_DEFAULTS, ...given };
  app.addHook("onRequest", async (request) => {
    const socket = request.raw.socket;
    // Only real connections (an injected request has a stand-in socket with no byte count).
    if (options.minBytesPerSecond > 0 && socket instanceof Socket && !request.raw.complete)
      watchBody(request, socket, options);
  });
  app.addHook("onSend", async (request, reply) => {
    if (request.raw.complete) return;
    // A connection another plugin closes (the health reserve, a shutdown) lingers all the same.
    if (reply.getHeader("connection") !== "close" && smallBody(request.raw)) {
      answeredEarly.add(request.raw);
      return;
    }
    reply.header("connection", "close");
    const socket = request.raw.socket;
    if (socket instanceof Socket) lingerOnClose(socket, request.raw);
  });
}

// Global: every request's body is watched and every early answer closes its connection.
export const bodyRatePlugin = fp(bodyRate, { name: "body-rate", fastify: "5.x" });
