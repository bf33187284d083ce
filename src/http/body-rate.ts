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
// is too large) closes the connection, so the unread rest neither lingers nor is parsed as the
// next request.
import { Socket } from "node:net";
import fp from "fastify-plugin";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { answerAndClose } from "./errors.ts";

export type BodyRateOptions = { minBytesPerSecond: number; windowMs: number };

function watchBody(request: FastifyRequest, socket: Socket, { minBytesPerSecond, windowMs }: BodyRateOptions) {
  const needed = (minBytesPerSecond * windowMs) / 1000;
  let before = socket.bytesRead;
  const check = () => {
    if (request.raw.complete || socket.destroyed) return;
    const arrived = socket.bytesRead - before;
    before = socket.bytesRead;
    if (arrived >= needed || socket.isPaused()) return void setTimeout(check, windowMs).unref();
    request.log.info({ bytesPerSecond: Math.round((arrived * 1000) / windowMs) }, "request body too slow; closing the connection");
    answerAndClose(socket, 408, "REQUEST_TIMEOUT", `The request body arrived slower than ${minBytesPerSecond} bytes per second.`);
  };
  setTimeout(check, windowMs).unref();
}

export const bodyRatePlugin = fp(async (app: FastifyInstance, options: BodyRateOptions) => {
  app.addHook("onRequest", async (request) => {
    const socket = request.raw.socket;
    // Only real connections (an injected request has a stand-in socket with no byte count).
    if (options.minBytesPerSecond > 0 && socket instanceof Socket && !request.raw.complete) watchBody(request, socket, options);
  });
  app.addHook("onSend", async (request, reply) => {
    if (!request.raw.complete) reply.header("connection", "close");
  });
});
