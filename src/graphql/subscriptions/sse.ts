// GraphQL over Server-Sent Events (the graphql-sse protocol, "distinct connections" mode) on
// /graphql/stream: subscriptions for networks that break WebSockets (proxies that buffer or drop
// upgrades), as plain HTTP responses that never end. One request per subscription: POST (or GET
// with ?query=) with `Accept: text/event-stream` and the token in the Authorization header.
//
// The stream is written here, over the admission path every transport shares (operation.ts): the
// request was charged on arrival like any HTTP request, then the document is parsed, validated
// and costed; the subscription is held by a LiveSubscription (its quota released exactly once).
// graphql-sse's own handler queued every result for a peer that did not read, without bound;
// here what waits in the socket is bounded by LIVE_MAX_BUFFERED_BYTES and a peer past it is cut
// off. Each stream counts against its client's live sockets and streams (quota.ts). A revoked
// or expired token (or a changed role) ends the stream within SESSION_CACHE_TTL; shutdown ends
// every stream, and cuts off those whose peer does not take the end.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { GraphQLError, GraphQLFormattedError } from "graphql";
import fp from "fastify-plugin";
import type { Config } from "../../config.ts";
import { signInRequired, tokenUncheckable } from "../../contract/errors.ts";
import type { Authentication } from "../../domain/accounts/tokens.ts";
import { statusForCode } from "../../contract/error-codes.ts";
import type { Metrics } from "../../http/observability/metrics.ts";
import { answeredWithError } from "../../http/observability/request-labels.ts";
import { tokenFromRequest } from "../../http/token.ts";
import type { ContextFactory } from "../data/context.ts";
import type { OperationRunner, OperationText } from "../execution/operation.ts";
import { delivered, inFlightTracker } from "./delivery.ts";
import { Outbox } from "./outbox.ts";
import { beginSubscription, LiveSubscription, type LiveStartDeps, type Started } from "./live-subscription.ts";
import { isRefusal, liveClientOf, type LiveQuota } from "./quota.ts";
import type { TokenWatch } from "./token-watch.ts";

export const SSE_PATH = "/graphql/stream";

/** Shutdown ends streams; a peer that does not take the end is cut off after this. */
const CLOSE_GRACE_MS = 2_000;

export type GraphqlSseOptions = {
  runner: OperationRunner;
  createContext: ContextFactory;
  config: Pick<Config, "live">;
  metrics: Metrics;
  /** Ends a stream whose token is revoked or whose role changed (shared with the WebSocket transport). */
  watchToken: TokenWatch;
  /** What one client may hold, shared with the WebSocket transport. */
  quota: LiveQuota;
  /** Errors as clients see them (the runner's formatting; internal ones logged). */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A GET parameter holding JSON (`variables`, `extensions`): its value, or the refusal of one that is not JSON. */
function jsonParameter(value: unknown, name: string): { value: unknown } | string {
  if (typeof value !== "string") return { value };
  try {
    return { value: JSON.parse(value) };
  } catch {
    return `\`${name}\` must be a JSON object.`;
  }
}

/** The operation a request carries: the JSON body of a POST, or GET's query string (variables and extensions as JSON text). */
function operationOf(request: FastifyRequest): OperationText | string {
  if (request.method === "POST")
    return isRecord(request.body) ? request.body : 'Send the subscription as a JSON body: {"query": ...}.';
  const query = (request.query ?? {}) as Record<string, unknown>;
  const variables = jsonParameter(query.variables, "variables");
  if (typeof variables === "string") return variables;
  const extensions = jsonParameter(query.extensions, "extensions");
  if (typeof extensions === "string") return extensions;
  return {
    query: query.query,
    operationName: query.operationName,
    variables: variables.value,
    extensions: extensions.value,
    documentId: query.documentId,
    doc_id: query.doc_id,
  };
}

async function graphqlSse(app: FastifyInstance, options: GraphqlSseOptions) {
  const { runner, createContext, config, metrics, quota } = options;
  const inFlight = inFlightTracker(metrics);
  const format = (errors: readonly GraphQLError[]) => errors.map((error) => options.formatError(error.toJSON(), error));
  const deps: LiveStartDeps = { runner, quota, createContext, metrics, format, track: inFlight.track };
  /** Open streams, ended by shutdown. */
  const streams = new Set<FastifyReply>();
  let closing = false;

  const answer = (reply: FastifyReply, errors: readonly GraphQLFormattedError[]) => {
    const code = String(errors[0]?.extensions?.code ?? "BAD_USER_INPUT");
    answeredWithError(reply, code);
    return reply.code(statusForCode(code)).header("content-type", "application/json; charset=utf-8").send({ errors });
  };
  const refusal = (code: string, message: string): GraphQLFormattedError[] => [{ message, extensions: { code } }];

  async function handle(request: FastifyRequest, reply: FastifyReply) {
    if (closing)
      return answer(reply, refusal("SERVICE_UNAVAILABLE", "The server is shutting down; subscribe again shortly."));
    if (!String(request.headers.accept ?? "").includes("text/event-stream")) {
      return answer(
        reply,
        refusal(
          "BAD_REQUEST",
          "Send `Accept: text/event-stream`: this path streams subscriptions (queries and mutations go to POST /graphql).",
        ),
      );
    }
    const token = tokenFromRequest(request, {});
    let auth: Authentication;
    try {
      auth = await createContext.authenticate(token);
    } catch (error) {
      return answer(reply, refusal("SERVICE_UNAVAILABLE", tokenUncheckable(error)));
    }
    if (token && auth.state !== "valid") {
      const { code, message } = signInRequired(true, auth.state === "invalid" ? auth.reason : undefined);
      return answer(reply, refusal(code, message));
    }
    const text = operationOf(request);
    if (typeof text === "string") return answer(reply, refusal("BAD_USER_INPUT", text));
    const viewer = auth.state === "valid" ? auth.viewer : null;
    const slot = quota.connect(liveClientOf(viewer, request.ip));
    if (isRefusal(slot)) return answer(reply, refusal("RATE_LIMITED", slot.refused));
    const subscription = new LiveSubscription();
    subscription.hold(slot);
    try {
      // Charged on arrival, as every HTTP request is.
      const caller = { chargeRequests: (units: number) => app.chargeRequests(request, units), prepaid: true };
      const admitted = await runner.admit(text, caller, {
        only: "subscription",
        transport: "Server-Sent Events",
        viewer,
      });
      if ("errors" in admitted) return answer(reply, format(admitted.errors));
      const started = await beginSubscription(deps, subscription, admitted.text, admitted, {
        token,
        auth,
        clientAddress: request.ip,
      });
      if ("ended" in started) return;
      if ("errors" in started && !started.byField) return answer(reply, started.errors);
      stream(reply, subscription, started, { token, auth });
    } finally {
      if (!streams.has(reply)) subscription.end();
    }
  }

  /** Writes the stream until the subscription ends; its events, then `complete`. */
  function stream(
    reply: FastifyReply,
    subscription: LiveSubscription,
    started: Started,
    who: { token: string | undefined; auth: Authentication },
  ) {
    const raw = reply.raw;
    reply.hijack();
    streams.add(reply);
    metrics.live.streams.inc();
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no", // nginx: pass events on as they come
    });
    // A peer that takes nothing while answers wait is cut off (outbox.ts).
    const peer = {
      buffered: () => raw.writableLength,
      send: (text: string) => void raw.write(text),
      open: () => !raw.destroyed && !raw.writableEnded,
      drop: () => raw.destroy(),
    };
    const outbox = new Outbox(peer, config.live.maxBufferedBytes, config.live.stallTimeoutMs, () =>
      metrics.live.dropped.inc({ reason: "not reading" }),
    );
    const write = (text: string) => outbox.sendNow(text);
    write(":\n\n"); // some browsers show nothing until a first chunk
    // A comment line every SSE_KEEPALIVE keeps proxies from closing a quiet stream.
    const keepAlive = config.live.sseKeepAliveMs
      ? setInterval(() => write(":\n\n"), config.live.sseKeepAliveMs)
      : undefined;
    keepAlive?.unref();
    const stopWatching = options.watchToken({ ...who, onEnd: () => subscription.end() });
    subscription.hold(() => {
      clearInterval(keepAlive);
      outbox.close();
      stopWatching();
      streams.delete(reply);
      metrics.live.streams.dec();
      if (!raw.writableEnded && !raw.destroyed) raw.end();
    });
    raw.once("close", () => subscription.end());
    void (async () => {
      if ("errors" in started) {
        // The subscription was refused by its field (auth, an unknown restaurant): one result with the errors.
        write(`event: next\ndata: ${JSON.stringify({ errors: started.errors })}\n\n`);
        write("event: complete\ndata:\n\n");
        return subscription.end();
      }
      if (!("answers" in started)) return subscription.end();
      const outcome = await subscription.pump(started.answers, async (answer) => {
        const sent = await outbox.send(`event: next\ndata: ${answer.payload}\n\n`);
        if (sent) delivered(metrics, answer.event);
        return sent;
      });
      if (outcome !== "ended") write("event: complete\ndata:\n\n");
      subscription.end();
    })();
  }

  app.route({ method: ["GET", "POST"], url: SSE_PATH, handler: handle });
  // Shutdown: open streams never end by themselves; end them so clients reconnect elsewhere, and
  // cut off peers that do not read the end.
  app.addHook("preClose", async () => {
    closing = true;
    await inFlight.settled(CLOSE_GRACE_MS);
    for (const reply of [...streams]) {
      reply.raw.end();
      setTimeout(() => reply.raw.destroy(), CLOSE_GRACE_MS).unref();
    }
  });
}

// Encapsulated: it only adds its route. Needs app.chargeRequests (rate-limit) and the server's
// UTF-8 JSON parser for its POST body.
export const graphqlSsePlugin = fp(graphqlSse, {
  name: "graphql-sse",
  fastify: "5.x",
  encapsulate: true,
  dependencies: ["rate-limit", "json-body"],
});
