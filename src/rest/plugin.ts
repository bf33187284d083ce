// Serves the route table: one Fastify route per method + path (as written and under each of
// REST_PREFIXES, /v1 by default), picking the first row whose `when` accepts the request when
// several operations share a method + path.
// A known path asked with another method answers 405 with Allow. Runs in its own encapsulated
// scope, so multipart parsing applies to these routes only.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { Kind } from "graphql";
import type { ContextFactory } from "../graphql/data/context.ts";
import { toClientError } from "../graphql/execution/client-errors.ts";
import { tokenFromRequest } from "../http/token.ts";
import { checkedAuthentication, tokenBeforeBody } from "../http/token-before-body.ts";
import { legacyBodyParsers } from "./requests/body-parsers.ts";
import { statusForCode } from "../contract/error-codes.ts";
import { answeredWithError } from "../http/observability/request-labels.ts";
import { errorBody } from "../contract/errors.ts";
import { compileRoutes, runRoute, type CompiledRoute } from "./execute.ts";
import type { OperationRunner } from "../graphql/execution/operation.ts";
import { DEFAULT_MAX_FILE_BYTES, readMultipart, registerMultipart, SpooledFiles } from "./requests/multipart.ts";
import { bodyProblem, queryProblem, restRequest } from "./requests/request.ts";
import { releaseAfterAnswer } from "../graphql/transport/release-after-answer.ts";
import type { HttpMethod, RestRoute } from "./route-row.ts";
import { httpCaching } from "../http/answers/http-caching.ts";

export type RestPluginOptions = {
  /** The admission path every transport shares (graphql/operation.ts): validates, costs and runs each route's document. */
  runner: OperationRunner;
  routes: RestRoute[];
  createContext: ContextFactory;
  /** Largest accepted file part (a grocery cover); 5 MB when not configured. */
  maxFileBytes?: number;
  /** Where a multipart file waits (as a dot-file) until its route has run: UPLOAD_DIR. */
  spoolDir: string;
  /** UPLOAD_DISK_RESERVE_BYTES: no file is spooled while the disk has less free space. */
  diskReserveBytes?: number;
  /** REST_PREFIXES: every path also answers under each of these (e.g. /v1, /api). */
  prefixes: string[];
};

/**
 * A route's status and legacy body; `retryAfter` (seconds) for a limit the client must wait out;
 * `cacheControl` for a clean answer, from its document (the runner's, as on /graphql).
 */
type RouteAnswer = { status: number; body?: unknown; retryAfter?: number; cacheControl?: string };

/** Every path is served as written and under each configured prefix (docs/rest-contract.md, "Requests"). */
export const servedPrefixes = (prefixes: string[]) => ["", ...prefixes];
const METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

function groupByMethodAndPath(routes: CompiledRoute[]): Map<string, CompiledRoute[]> {
  const groups = new Map<string, CompiledRoute[]>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    groups.set(key, [...(groups.get(key) ?? []), route]);
  }
  return groups;
}

const segments = (path: string) => path.split("/").filter(Boolean);

/** Whether a request for `path` (itself a pattern) would be routed to `pattern`. */
function routesTo(pattern: string, path: string): boolean {
  const a = segments(pattern);
  const b = segments(path);
  return a.length === b.length && a.every((s, i) => s.startsWith(":") || s === b[i]);
}

/** For each table path, the methods that answer it; the others get a 405 route. */
export function allowedMethods(routes: RestRoute[]): Map<string, HttpMethod[]> {
  const allowed = new Map<string, HttpMethod[]>();
  for (const { path } of routes) {
    allowed.set(
      path,
      METHODS.filter((m) => routes.some((r) => r.method === m && routesTo(r.path, path))),
    );
  }
  return allowed;
}

async function rest(app: FastifyInstance, options: RestPluginOptions) {
  const limits = { maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES };
  await registerMultipart(app, limits);
  legacyBodyParsers(app);
  const compiled = compileRoutes(options.runner, options.routes);
  const prefixes = servedPrefixes(options.prefixes);
  // A legacy answer depends on its token (header or access_token, in the URL) and on nothing else sent.
  httpCaching(app, { vary: ["authorization"] });

  for (const rows of groupByMethodAndPath(compiled).values()) {
    const { method, path } = rows[0];
    /** The route's answer; a multipart file it received waits in `spooled` meanwhile. */
    const answer = async (request: FastifyRequest, spooled: SpooledFiles | undefined): Promise<RouteAnswer> => {
      let sentBody: unknown = request.body;
      if (spooled) {
        try {
          sentBody = await readMultipart(request, limits, spooled);
        } catch (error) {
          const known = toClientError(error)!;
          return { status: statusForCode(known.code), body: errorBody(known) };
        }
      }
      const problem = queryProblem(request) ?? bodyProblem(request, sentBody);
      if (problem) return { status: 400, body: errorBody({ code: "BAD_REQUEST", message: problem }) };
      const req = restRequest(request, sentBody);
      const row = rows.find((r) => !r.when || r.when(req)) ?? rows[rows.length - 1];
      const token = tokenFromRequest(request, req.body);
      const context = await options.createContext(token, {
        clientAddress: request.ip,
        known: checkedAuthentication(request, token),
        legacyRest: true,
      });
      releaseAfterAnswer(request, context);
      const outcome = await runRoute(options.runner, row, req, context);
      if (!outcome.ok) {
        if (outcome.internal)
          request.log.error({ err: outcome.internal, operation: row.operation }, "REST operation failed");
        const retryAfter = outcome.error.details?.retryAfterSeconds;
        return {
          status: outcome.status,
          body: errorBody(outcome.error),
          retryAfter: typeof retryAfter === "number" ? retryAfter : undefined,
        };
      }
      return {
        status: outcome.status,
        body: outcome.body,
        cacheControl: options.runner.cacheControl(row.compiled, undefined, context),
      };
    };
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      // Only a multipart request can spool a file (a grocery's cover): the others skip its bookkeeping.
      const spooled = request.isMultipart() ? new SpooledFiles(options.spoolDir, options.diskReserveBytes) : undefined;
      // Also when the connection is lost mid-upload: a partial file never stays behind.
      if (spooled) reply.raw.once("close", () => void spooled.removeAll());
      let result: RouteAnswer;
      try {
        result = await answer(request, spooled);
      } finally {
        await spooled?.removeAll(); // before answering: the client never sees the file still there
      }
      reply.code(result.status);
      const code =
        result.status >= 400 ? (result.body as { error?: { code?: string } } | undefined)?.error?.code : undefined;
      if (code) answeredWithError(reply, code);
      if (result.retryAfter !== undefined) reply.header("retry-after", result.retryAfter);
      if (result.cacheControl) reply.header("cache-control", result.cacheControl);
      return result.body === undefined ? reply.send() : reply.send(result.body);
    };
    // Routes that need a token check one sent in the header or query string before reading the body.
    const onRequest = rows.some((r) => r.access === "public")
      ? []
      : [tokenBeforeBody(options.createContext.authenticate)];
    // A GET that changes something (GET /signout) gets no automatic HEAD route: a HEAD must change nothing.
    const exposeHeadRoute = !rows.some((r) =>
      r.compiled.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === "mutation"),
    );
    for (const prefix of prefixes) app.route({ method, url: prefix + path, onRequest, handler, exposeHeadRoute });
  }

  for (const [path, allowed] of allowedMethods(options.routes)) {
    const refused = METHODS.filter((m) => !allowed.includes(m));
    if (!refused.length) continue;
    const allow = [...allowed, ...(allowed.includes("GET") ? ["HEAD"] : [])].join(", ");
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      answeredWithError(reply, "METHOD_NOT_ALLOWED");
      return reply
        .code(405)
        .header("allow", allow)
        .send(
          errorBody({ code: "METHOD_NOT_ALLOWED", message: `${request.method} is not allowed here; use ${allow}.` }),
        );
    };
    for (const prefix of prefixes) app.route({ method: refused, url: prefix + path, handler });
  }
}

// Encapsulated: its body parsers (multipart, JSON with empty = none, no text/plain) apply to these
// routes only. Urlencoded forms are the server's (form-body); parse errors are shaped by error-handling.
export const restPlugin = fp(rest, {
  name: "rest",
  fastify: "5.x",
  encapsulate: true,
  dependencies: ["error-handling", "form-body"],
});
