// Environment -> typed, validated settings. Every setting has a safe default so `npm start`
// needs no .env; a bad value stops start-up with a message naming the variable and the fix.
import path from "node:path";
import { z } from "zod";
import { dialectOf, type Dialect } from "./db/dialect.ts";
import {
  claimName,
  identityProviderOf,
  providerAddress,
  signingAlgorithms,
  type IdentityProviderSettings,
} from "./identity/settings.ts";

const DURATION = /^(\d+)\s*(ms|s|m|h|d)?$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "30d", "12h", "90m", "45s", "500ms" or a bare number of seconds -> milliseconds. */
export function parseDuration(text: string): number | undefined {
  if (text.length > 32) return undefined; // no duration is longer; never read a long text with a pattern
  const m = DURATION.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * UNIT_MS[(m[2] ?? "s") as keyof typeof UNIT_MS];
}

const duration = (fallback: string, { allowZero = false } = {}) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      const ms = parseDuration(v);
      if (ms === undefined || ms < 0 || (ms === 0 && !allowZero)) {
        ctx.addIssue({ code: "custom", message: `"${v}" is not a duration; use e.g. 30d, 12h, 15m or 3600` });
        return z.NEVER;
      }
      return ms;
    });

const wholeNumber = (min: number, max: number) =>
  z.coerce
    .number({ message: "must be a whole number" })
    .int({ message: "must be a whole number" })
    .min(min, { message: `must be at least ${min}` })
    .max(max, { message: `must be at most ${max}` });

const integer = (fallback: number, min: number, max: number) => wholeNumber(min, max).default(fallback);

/** A whole number with no default: unset stays undefined (a setting read under an older name too). */
const optionalInteger = (min: number, max: number) => wholeNumber(min, max).optional();

const databaseUrl = z
  .string()
  .default("file:./data/gateway.db")
  .refine((v) => dialectOf(v) !== undefined, {
    message: "must start with file: (SQLite) or postgres:// / postgresql:// (PostgreSQL)",
  });

/**
 * What a search reads at most, and how it chooses how to read (docs/limits.md, "Searches"):
 * `rankWindow`: matches ranked by relevance (the others follow unranked); `exactCountLimit`:
 * matches counted one by one (past it, totals and facets are estimated from a sample of about
 * `sampleRows` rows); `walkBudget`: rows a page may expect to test walking its order's index;
 * `shallowPageRows` (PostgreSQL): a page of the whole catalogue ending within this many rows reads
 * on Prisma's pool; `planCountsMaxAgeMs`: how long the stored counts a plan reads are reused;
 * `estimatesMaxAgeMs`: how long a search's estimated total and facets are reused by the same search.
 */
export type SearchLimits = {
  rankWindow: number;
  exactCountLimit: number;
  sampleRows: number;
  walkBudget: number;
  shallowPageRows: number;
  planCountsMaxAgeMs: number;
  estimatesMaxAgeMs: number;
};

/** The search limits of a database opened without them (commands, tests): the settings' defaults. */
export const DEFAULT_SEARCH_LIMITS: SearchLimits = {
  rankWindow: 2_000,
  exactCountLimit: 1_000,
  sampleRows: 10_000,
  walkBudget: 20_000,
  shallowPageRows: 200,
  planCountsMaxAgeMs: 5_000,
  estimatesMaxAgeMs: 5_000,
};

/** What S3_BUCKET and S3_PREFIX accept (and copy-data's --uploads-to s3://bucket/prefix/). */
export const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
export const KEY_PREFIX = /^([A-Za-z0-9_-]+\/)+$/;

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: integer(4000, 0, 65535),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATABASE_URL: databaseUrl,
  UPLOAD_DIR: z.string().min(1).default("./data/uploads"),
  UPLOAD_MAX_BYTES: integer(5 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  UPLOAD_MAX_FILES: integer(1, 1, 20),
  UPLOAD_SWEEP_AGE: duration("10m"),
  UPLOAD_QUOTA_BYTES: integer(100 * 1024 * 1024, 0, 2 ** 50),
  UPLOAD_DISK_RESERVE_BYTES: integer(256 * 1024 * 1024, 0, 2 ** 50),
  // Covers in an S3-compatible bucket instead of UPLOAD_DIR (issue 47; src/storage/bucket/s3-store.ts).
  UPLOAD_STORE: z.enum(["filesystem", "s3"]).default("filesystem"),
  UPLOAD_SERVE: z.enum(["proxy", "redirect"]).default("proxy"),
  S3_BUCKET: z
    .string()
    .regex(BUCKET_NAME, { message: "must be a bucket name: 3 to 63 of a-z, 0-9, . and -" })
    .optional(),
  S3_ENDPOINT: z
    .string()
    .refine((v) => /^https?:\/\/[^\s]+$/.test(v) && URL.canParse(v), {
      message: "must be a URL like https://s3.example.com or http://127.0.0.1:9000",
    })
    .optional(),
  S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]{2,40}$/, { message: "must be a region name such as us-east-1 or auto" })
    .optional(),
  AWS_REGION: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).default("false"),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_PREFIX: z.string().regex(KEY_PREFIX, { message: "must be folder names ending with /, e.g. covers/" }).optional(),
  S3_TIMEOUT: duration("10s").refine((ms) => ms <= 120_000, "must be at most 2m"),
  S3_PRESIGN_TTL: duration("5m").refine((ms) => ms >= 1000 && ms <= 7 * 86_400_000, "must be from 1s to 7d"),
  S3_MAX_UPLOADS: integer(16, 1, 10_000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  TOKEN_TTL: duration("30d"),
  SESSION_CACHE_TTL: duration("5s", { allowZero: true }),
  SHUTDOWN_TIMEOUT: duration("10s"),
  DB_POOL_SIZE: integer(10, 1, 200),
  DB_POOL_IDLE_TIMEOUT: duration("5m", { allowZero: true }),
  SEARCH_STATEMENT_TIMEOUT: duration("5s", { allowZero: true }),
  SQLITE_SYNCHRONOUS: z.enum(["FULL", "NORMAL"]).default("FULL"),
  SQLITE_READERS: integer(4, 0, 16),
  SEARCH_RANK_WINDOW: integer(DEFAULT_SEARCH_LIMITS.rankWindow, 1, 100_000),
  SEARCH_EXACT_COUNT_LIMIT: integer(DEFAULT_SEARCH_LIMITS.exactCountLimit, 1, 1_000_000),
  SEARCH_SAMPLE_ROWS: integer(DEFAULT_SEARCH_LIMITS.sampleRows, 100, 1_000_000),
  SEARCH_WALK_BUDGET: integer(DEFAULT_SEARCH_LIMITS.walkBudget, 100, 10_000_000),
  SEARCH_SHALLOW_PAGE_ROWS: integer(DEFAULT_SEARCH_LIMITS.shallowPageRows, 0, 100_000),
  SEARCH_PLAN_COUNTS_MAX_AGE: duration(`${DEFAULT_SEARCH_LIMITS.planCountsMaxAgeMs}ms`, { allowZero: true }),
  SEARCH_ESTIMATES_MAX_AGE: duration(`${DEFAULT_SEARCH_LIMITS.estimatesMaxAgeMs}ms`, { allowZero: true }).refine(
    (ms) => ms <= 60_000,
    "must be at most 1m: an estimate older than that may no longer be within its error",
  ),
  BODY_LIMIT_BYTES: integer(1024 * 1024, 1024, 100 * 1024 * 1024),
  RATE_LIMIT_MAX: integer(600, 0, 1_000_000),
  RATE_LIMIT_WINDOW: duration("1m"),
  RATE_LIMIT_ADDRESS_FACTOR: integer(10, 1, 1000),
  SIGNUP_RATE_LIMIT: integer(20, 0, 1_000_000),
  LOGIN_FREE_ATTEMPTS: integer(5, 1, 1000),
  LOGIN_BACKOFF_MAX: duration("15m", { allowZero: true }),
  PASSWORD_HASH_CONCURRENCY: integer(2, 1, 64),
  PASSWORD_HASH_QUEUE: integer(100, 0, 100_000),
  CORS_ORIGINS: z.string().default(""),
  TRUST_PROXY: z
    .string()
    .default("")
    .refine((v) => /^(|true|false|\d{1,2}|[0-9a-fA-F.:/,\s]+)$/.test(v), {
      message: "must be empty, true, a number of proxy hops, or comma-separated proxy addresses/CIDRs",
    }),
  GRAPHQL_MAX_DEPTH: integer(12, 2, 100),
  GRAPHQL_MAX_ALIASES: integer(30, 0, 1000),
  GRAPHQL_MAX_COST: integer(20_000, 100, 10_000_000),
  GRAPHQL_MAX_TOKENS: integer(3000, 100, 1_000_000),
  GRAPHQL_MAX_RESPONSE_OBJECTS: integer(50_000, 100, 10_000_000),
  GRAPHQL_COMPILE_AFTER: integer(2, 0, 1_000_000),
  GRAPHQL_COMPILES_PER_MINUTE: integer(60, 1, 100_000),
  GRAPHQL_INTROSPECTION: z.enum(["true", "false"]).default("true"),
  GRAPHQL_EXPLORER: z.enum(["true", "false"]).default("true"),
  // A Federation v2 subgraph behind a gateway (issue 46): `_service` and `_entities` on Query.
  FEDERATION_SUBGRAPH: z.enum(["true", "false"]).default("false"),
  FEDERATION_MAX_REPRESENTATIONS: integer(1000, 1, 100_000),
  METRICS_ENABLED: z.enum(["true", "false"]).default("true"),
  METRICS_TOKEN: z.string().min(16, { message: "must have at least 16 characters" }).optional(),
  TRACING: z.enum(["off", "otlp", "console"]).default("off"),
  TRACING_SAMPLE_RATIO: z.coerce
    .number({ message: "must be a number from 0 to 1" })
    .min(0, { message: "must be from 0 to 1" })
    .max(1, { message: "must be from 0 to 1" })
    .default(1),
  OTEL_SERVICE_NAME: z.string().min(1).default("restaurants-groceries-gateway"),
  // Slow clients (issue 13 item 4): how long a request may take to arrive, how fast its body must
  // come, and how many connections the server holds.
  REQUEST_TIMEOUT: duration("60s"),
  BODY_MIN_RATE: integer(1024, 0, 100 * 1024 * 1024),
  BODY_MIN_RATE_WINDOW: duration("10s"),
  MAX_CONNECTIONS: integer(1000, 1, 1_000_000),
  MAX_CONNECTIONS_PER_ADDRESS: integer(100, 0, 1_000_000),
  // Live updates over WebSocket (issue 15): subscriptions per connection, the connection_init
  // wait, the largest message, the keep-alive ping interval (0 = no pings), the messages a
  // socket may send at once and then each second.
  WS_MAX_SUBSCRIPTIONS_PER_CONNECTION: integer(50, 1, 10_000),
  WS_CONNECTION_INIT_TIMEOUT: duration("10s"),
  WS_MAX_MESSAGE_BYTES: integer(64 * 1024, 1024, 100 * 1024 * 1024),
  WS_KEEPALIVE: duration("15s", { allowZero: true }),
  WS_MESSAGE_BURST: integer(100, 1, 1_000_000),
  WS_MESSAGES_PER_SECOND: integer(20, 1, 1_000_000),
  // Server-Sent Events: how often a quiet stream gets a comment line, so proxies keep it (0 = never).
  SSE_KEEPALIVE: duration("12s", { allowZero: true }),
  // Live updates on both transports (issue 29): what one client (an account, or an address
  // without one) may hold, what the server keeps for a peer that does not read, idle sockets.
  LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT: optionalInteger(1, 1_000_000),
  /** The name this setting had before it counted per account: still read when the new one is not set. */
  WS_MAX_SUBSCRIPTIONS_PER_TOKEN: optionalInteger(1, 1_000_000),
  LIVE_MAX_COST_PER_CLIENT: integer(2_000, 1, 100_000_000),
  LIVE_MAX_CONNECTIONS_PER_CLIENT: integer(20, 1, 1_000_000),
  LIVE_MAX_BUFFERED_BYTES: integer(4 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
  LIVE_IDLE_TIMEOUT: duration("60s"),
  LIVE_STALL_TIMEOUT: duration("10s"),
  // Legacy clients of the original service (issue 14).
  ANONYMOUS_READS: z.enum(["true", "false"]).default("false"),
  REST_PREFIXES: z
    .string()
    .default("/v1")
    .transform((v, ctx) => {
      if (v === "none") return [];
      const prefixes = v.split(",");
      // Path segments of unreserved characters, none starting with a dot (no "." or ".."): no spaces, no trailing slash.
      const bad = prefixes.find((p) => !/^(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/.test(p));
      if (bad !== undefined) {
        ctx.addIssue({
          code: "custom",
          message: `${JSON.stringify(bad)} is not a path prefix; write e.g. /v1,/api (each starts with /, no trailing slash, no spaces), or none`,
        });
        return z.NEVER;
      }
      if (new Set(prefixes).size < prefixes.length) {
        ctx.addIssue({ code: "custom", message: "lists a prefix twice" });
        return z.NEVER;
      }
      return prefixes;
    }),
  // Sign-in with JWTs from an OpenID Connect provider (issue 46; src/identity/settings.ts).
  OIDC_ISSUER: providerAddress.optional(),
  OIDC_AUDIENCE: z.string().optional(),
  OIDC_JWKS_URL: providerAddress.optional(),
  OIDC_ALGORITHMS: signingAlgorithms,
  OIDC_ROLES_CLAIM: claimName.default("roles"),
  OIDC_ADMIN_ROLE: claimName.optional(),
  OIDC_USERNAME_CLAIM: claimName.default("preferred_username"),
  OIDC_CLOCK_TOLERANCE: duration("30s", { allowZero: true }).refine((ms) => ms <= 300_000, "must be at most 5m"),
  OIDC_JWKS_MAX_AGE: duration("10m"),
  OIDC_JWKS_COOLDOWN: duration("30s"),
  OIDC_FETCH_TIMEOUT: duration("5s").refine((ms) => ms <= 60_000, "must be at most 60s"),
  // HTTP caching (issue 42): the longest max-age any answer carries; 0 stores nothing.
  HTTP_CACHE_MAX_AGE: duration("60s", { allowZero: true }).refine((ms) => ms % 1000 === 0, {
    message: "must be whole seconds, e.g. 60s, 5m or 0",
  }),
  // Several instances as one (issue 17): Redis shares rate-limit counts (and can carry live events).
  REDIS_URL: z
    .string()
    .refine((v) => /^rediss?:\/\/[^\s]+$/.test(v) && URL.canParse(v), {
      message: "must be a URL like redis://host:6379 (rediss:// for TLS)",
    })
    .optional(),
  // Frontends in production (issue 42): trusted documents and automatic persisted queries.
  TRUSTED_DOCUMENTS: z.enum(["off", "allow", "enforce"]).default("off"),
  TRUSTED_DOCUMENTS_MANIFEST: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean),
    ),
  TRUSTED_DOCUMENTS_ADMIN_TEXT: z.enum(["true", "false"]).default("true"),
  APQ_MEMORY_BYTES: integer(4 * 1024 * 1024, 64 * 1024, 1024 * 1024 * 1024),
  APQ_REDIS_BYTES: integer(64 * 1024 * 1024, 64 * 1024, 64 * 1024 * 1024 * 1024),
  APQ_CLIENT_BYTES_PER_HOUR: integer(256 * 1024, 0, 1024 * 1024 * 1024),
});

/** How to reach an S3-compatible store (the S3_* settings), whichever bucket is meant. */
export type S3Connection = {
  /** Default: AWS's own endpoint for the region. */
  endpoint?: string;
  region: string;
  /** bucket in the path (http://host/bucket/key), as most self-hosted stores want. */
  forcePathStyle: boolean;
  /** Default: the AWS SDK's own chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, a role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** A call to the store that has not answered by then fails (STORAGE_UNAVAILABLE). */
  timeoutMs: number;
};

/** A bucket, and the prefix its covers' keys start with. */
export type BucketLocation = S3Connection & {
  bucket: string;
  /** Put before every key ("" = none). */
  prefix: string;
};

export type S3Settings = BucketLocation & {
  /** GET /uploads/:name streams the object through the service (proxy) or answers 302 to a presigned URL. */
  serve: "proxy" | "redirect";
  presignSeconds: number;
  /** Uploads this instance streams to the bucket at once (each may hold one 5 MiB part in memory). */
  maxUploads: number;
};

export type UploadStoreSettings = { kind: "filesystem" } | ({ kind: "s3" } & S3Settings);

export type Config = {
  env: "development" | "production" | "test";
  port: number;
  host: string;
  database: {
    dialect: Dialect;
    url: string;
    poolSize: number;
    poolIdleTimeoutMs: number;
    sqliteSynchronous: "FULL" | "NORMAL";
    sqliteReaders?: number;
    /** A search statement running longer is cancelled, on PostgreSQL (0: never). */
    searchStatementTimeoutMs?: number;
    /** What a search reads at most, and how it chooses (docs/limits.md, "Searches"); the defaults when absent. */
    search?: SearchLimits;
  };
  uploadDir: string;
  /** Largest accepted upload (one file), in bytes. */
  uploadMaxBytes: number;
  /** Most files one multipart request may carry. */
  uploadMaxFiles: number;
  /** Unreferenced upload files older than this are removed at start-up (and hourly). */
  uploadSweepAgeMs: number;
  /** Bytes of stored files one user's rows may reference in total (0 = no quota). */
  uploadQuotaBytes: number;
  /** Uploads are refused while UPLOAD_DIR's filesystem has less free space than this (0 = no reserve). */
  uploadDiskReserveBytes: number;
  /** Where covers are stored: UPLOAD_DIR (default) or an S3-compatible bucket. */
  uploadStore: UploadStoreSettings;
  /** The S3_* settings' store, also for a bucket the data commands name (copy-data --uploads-to s3://…). */
  s3: S3Connection;
  logLevel: string;
  tokenTtlMs: number;
  /** How long an authenticated token is remembered in-process (0 = look it up on every request). */
  sessionCacheTtlMs: number;
  shutdownTimeoutMs: number;
  bodyLimitBytes: number;
  /** Requests per window per access token (per client address without one); max 0 turns it off. */
  rateLimit: { max: number; windowMs: number; addressFactor: number };
  /**
   * Abuse of accounts: sign-ups per client address an hour (0 = off); failed logins per username
   * before back-off, and its longest lock (0 = off); scrypt calls at once and how many may wait.
   */
  accounts: {
    signUpsPerHour: number;
    loginFreeAttempts: number;
    loginBackoffMaxMs: number;
    hashConcurrency: number;
    hashQueue: number;
  };
  /** Origins allowed by CORS; empty = CORS off (no Access-Control-* headers). */
  corsOrigins: string[];
  /** Fastify's trustProxy: whose X-Forwarded-For to believe for the client address (rate limits, logs). */
  trustProxy: boolean | number | string[];
  /** `explorer`: the IDE at /explorer, and GET /graphql from a browser sending it there. */
  graphql: {
    maxDepth: number;
    maxAliases: number;
    maxCost: number;
    maxTokens: number;
    introspection: boolean;
    explorer: boolean;
    /** Most list items (objects) one response may hold; execution stops when it is crossed. */
    maxResponseObjects: number;
    /** Executions of the same document after which it runs compiled (0: never; compiled-execution.ts). */
    compileAfter: number;
    /** Most compilations a minute (each blocks the event loop for a few ms). */
    compilesPerMinute: number;
  };
  /**
   * Federation: `subgraph` adds `_service { sdl }` and `_entities(representations:)` for a gateway;
   * one operation's `_entities` take at most `maxRepresentations` representations in all.
   */
  federation: { subgraph: boolean; maxRepresentations: number };
  /** /metrics: on by default; with a token, only for `Authorization: Bearer <token>`. */
  metrics: { enabled: boolean; token?: string };
  /**
   * OpenTelemetry spans (request, GraphQL root field, SQL statement). "off" loads nothing; "otlp"
   * exports over OTLP/HTTP (OTEL_EXPORTER_OTLP_* variables); "console" prints spans (development).
   */
  tracing: { exporter: "off" | "otlp" | "console"; sampleRatio: number; serviceName: string };
  /**
   * Slow clients: `requestTimeoutMs` for the whole request (headers and body) to arrive; a body
   * must bring `bodyMinRate` bytes/s (0 = off) in every `bodyMinRateWindowMs`; open connections
   * are capped in total and per client address (0 = no cap per address), with a reserve for health checks.
   */
  slowClients: {
    requestTimeoutMs: number;
    bodyMinRate: number;
    bodyMinRateWindowMs: number;
    maxConnections: number;
    maxConnectionsPerAddress: number;
  };
  /**
   * Legacy clients of the original service: `anonymousReads` lets requests without a token call
   * the reads declared @requireAuth(anonymousReads: true), as an anonymous viewer. Every legacy
   * route also answers under each of `restPrefixes` (e.g. ["/v1", "/api"]).
   */
  legacy: { anonymousReads: boolean; restPrefixes: string[] };
  /** Sign-in with JWTs from an OpenID Connect provider (OIDC_*); unset: only this service's own tokens. */
  identityProvider?: IdentityProviderSettings;
  /**
   * The longest max-age (seconds) a GraphQL or REST answer may carry; the schema's @cacheControl
   * hints choose up to it. 0: every answer is no-store (docs/http-caching.md).
   */
  httpCacheMaxAgeSeconds: number;
  /** Redis shared by every instance (rate-limit counts, persisted queries); unset = per process. */
  redisUrl?: string;
  /**
   * Documents known by id (src/graphql/persisted). `trust`: `off` admits any text; `allow` also
   * serves the manifests' documents by id; `enforce` runs only those (by id or identical text),
   * except any text from a signed-in admin when `adminsSendText`. Automatic persisted queries
   * keep each registered text once: at most `memoryBytes` in each process, `redisBytes` in Redis
   * (least recently used out first), and a client registers at most `clientBytesPerHour` of new
   * text an hour; each text counts its UTF-8 bytes plus an allowance for its bookkeeping.
   */
  persisted: {
    trust: "off" | "allow" | "enforce";
    manifests: string[];
    adminsSendText: boolean;
    apq: { memoryBytes: number; redisBytes: number; clientBytesPerHour: number };
  };
  /**
   * GraphQL subscriptions (WebSocket and Server-Sent Events). Per WebSocket: most active
   * subscriptions, how long it may take to send connection_init, the largest message accepted
   * (bytes), how often it is pinged (0 = never; one that misses a pong for that long is dropped),
   * the messages it may send at once, then each second (past that it is closed 1008),
   * how long it may stay open without a subscription. Per client on this instance (an account
   * when signed in, else an address): most subscriptions, their summed cost, open sockets and
   * streams. Per socket or stream: most bytes waiting for the peer, and how long answers may wait
   * for room before a peer that does not read is dropped.
   */
  live: {
    maxSubscriptionsPerConnection: number;
    connectionInitTimeoutMs: number;
    maxMessageBytes: number;
    keepAliveMs: number;
    messageBurst: number;
    messagesPerSecond: number;
    /** How often a quiet event stream gets a comment line (0 = never). */
    sseKeepAliveMs: number;
    idleTimeoutMs: number;
    maxSubscriptionsPerClient: number;
    maxCostPerClient: number;
    maxConnectionsPerClient: number;
    maxBufferedBytes: number;
    stallTimeoutMs: number;
  };
};

function trustProxyOf(value: string): boolean | number | string[] {
  if (value === "" || value === "false") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);
}

/** The S3_* settings that reach a store; both keys or neither. */
function s3ConnectionOf(s: z.infer<typeof schema>, problems: string[]): S3Connection {
  if (!s.S3_ACCESS_KEY_ID !== !s.S3_SECRET_ACCESS_KEY)
    problems.push(
      `${s.S3_ACCESS_KEY_ID ? "S3_SECRET_ACCESS_KEY" : "S3_ACCESS_KEY_ID"}="": set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (the AWS SDK's own chain)`,
    );
  return {
    endpoint: s.S3_ENDPOINT,
    region: s.S3_REGION ?? s.AWS_REGION ?? "us-east-1",
    forcePathStyle: s.S3_FORCE_PATH_STYLE === "true",
    credentials:
      s.S3_ACCESS_KEY_ID && s.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: s.S3_ACCESS_KEY_ID, secretAccessKey: s.S3_SECRET_ACCESS_KEY }
        : undefined,
    timeoutMs: s.S3_TIMEOUT,
  };
}

/** UPLOAD_STORE and the S3_* settings, which only go together. */
function uploadStoreOf(s: z.infer<typeof schema>): { uploadStore: UploadStoreSettings; s3: S3Connection } {
  const problems: string[] = [];
  const s3 = s3ConnectionOf(s, problems);
  if (s.UPLOAD_STORE === "filesystem") {
    if (s.UPLOAD_SERVE === "redirect")
      problems.push('UPLOAD_SERVE="redirect": needs UPLOAD_STORE=s3 (a filesystem store has no URL to redirect to)');
    if (problems.length) throw new ConfigError(problems);
    return { uploadStore: { kind: "filesystem" }, s3 };
  }
  if (!s.S3_BUCKET) problems.push('S3_BUCKET="": UPLOAD_STORE=s3 needs the bucket\'s name');
  if (problems.length) throw new ConfigError(problems);
  const uploadStore: UploadStoreSettings = {
    kind: "s3",
    ...s3,
    bucket: s.S3_BUCKET!,
    prefix: s.S3_PREFIX ?? "",
    serve: s.UPLOAD_SERVE,
    presignSeconds: Math.floor(s.S3_PRESIGN_TTL / 1000),
    maxUploads: s.S3_MAX_UPLOADS,
  };
  return { uploadStore, s3 };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Reads settings from an environment (process.env by default); throws ConfigError listing every bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (i) => `${i.path.join(".")}=${JSON.stringify(present[String(i.path[0])] ?? "")}: ${i.message}`,
      ),
    );
  }
  const s = parsed.data;
  // Settings that only mean something together.
  if (s.TRUSTED_DOCUMENTS === "off" && s.TRUSTED_DOCUMENTS_MANIFEST.length > 0)
    throw new ConfigError([
      `TRUSTED_DOCUMENTS_MANIFEST=${JSON.stringify(present.TRUSTED_DOCUMENTS_MANIFEST)}: a manifest is read only with TRUSTED_DOCUMENTS=allow or enforce (it is off)`,
    ]);
  if (s.TRUSTED_DOCUMENTS !== "off" && s.TRUSTED_DOCUMENTS_MANIFEST.length === 0)
    throw new ConfigError([
      `TRUSTED_DOCUMENTS=${s.TRUSTED_DOCUMENTS}: name the manifest(s) in TRUSTED_DOCUMENTS_MANIFEST (comma-separated paths of persisted-documents JSON files)`,
    ]);
  // A gateway sends the query plans it writes, never the apps' documents: trust is the gateway's to enforce.
  if (s.TRUSTED_DOCUMENTS === "enforce" && s.FEDERATION_SUBGRAPH === "true")
    throw new ConfigError([
      "TRUSTED_DOCUMENTS=enforce: a subgraph (FEDERATION_SUBGRAPH=true) runs the gateway's query plans, which no manifest holds; enforce trusted documents at the gateway and run the subgraph with TRUSTED_DOCUMENTS=off or allow",
    ]);
  const identity = identityProviderOf(
    {
      issuer: s.OIDC_ISSUER,
      audience: s.OIDC_AUDIENCE,
      jwksUrl: s.OIDC_JWKS_URL,
      algorithms: s.OIDC_ALGORITHMS,
      rolesClaim: s.OIDC_ROLES_CLAIM,
      adminRole: s.OIDC_ADMIN_ROLE,
      usernameClaim: s.OIDC_USERNAME_CLAIM,
      clockToleranceMs: s.OIDC_CLOCK_TOLERANCE,
      keysMaxAgeMs: s.OIDC_JWKS_MAX_AGE,
      keysCooldownMs: s.OIDC_JWKS_COOLDOWN,
      fetchTimeoutMs: s.OIDC_FETCH_TIMEOUT,
    },
    present,
  );
  if (identity.problems.length) throw new ConfigError(identity.problems);
  const { uploadStore, s3 } = uploadStoreOf(s);
  return {
    env: s.NODE_ENV,
    port: s.PORT,
    host: s.HOST,
    database: {
      dialect: dialectOf(s.DATABASE_URL)!,
      url: s.DATABASE_URL,
      poolSize: s.DB_POOL_SIZE,
      poolIdleTimeoutMs: s.DB_POOL_IDLE_TIMEOUT,
      sqliteSynchronous: s.SQLITE_SYNCHRONOUS,
      sqliteReaders: s.SQLITE_READERS,
      searchStatementTimeoutMs: s.SEARCH_STATEMENT_TIMEOUT,
      search: {
        rankWindow: s.SEARCH_RANK_WINDOW,
        exactCountLimit: s.SEARCH_EXACT_COUNT_LIMIT,
        sampleRows: s.SEARCH_SAMPLE_ROWS,
        walkBudget: s.SEARCH_WALK_BUDGET,
        shallowPageRows: s.SEARCH_SHALLOW_PAGE_ROWS,
        planCountsMaxAgeMs: s.SEARCH_PLAN_COUNTS_MAX_AGE,
        estimatesMaxAgeMs: s.SEARCH_ESTIMATES_MAX_AGE,
      },
    },
    uploadDir: path.resolve(s.UPLOAD_DIR),
    uploadMaxBytes: s.UPLOAD_MAX_BYTES,
    uploadMaxFiles: s.UPLOAD_MAX_FILES,
    uploadSweepAgeMs: s.UPLOAD_SWEEP_AGE,
    uploadQuotaBytes: s.UPLOAD_QUOTA_BYTES,
    uploadDiskReserveBytes: s.UPLOAD_DISK_RESERVE_BYTES,
    uploadStore,
    s3,
    logLevel: s.LOG_LEVEL,
    tokenTtlMs: s.TOKEN_TTL,
    sessionCacheTtlMs: s.SESSION_CACHE_TTL,
    shutdownTimeoutMs: s.SHUTDOWN_TIMEOUT,
    bodyLimitBytes: s.BODY_LIMIT_BYTES,
    rateLimit: { max: s.RATE_LIMIT_MAX, windowMs: s.RATE_LIMIT_WINDOW, addressFactor: s.RATE_LIMIT_ADDRESS_FACTOR },
    accounts: {
      signUpsPerHour: s.SIGNUP_RATE_LIMIT,
      loginFreeAttempts: s.LOGIN_FREE_ATTEMPTS,
      loginBackoffMaxMs: s.LOGIN_BACKOFF_MAX,
      hashConcurrency: s.PASSWORD_HASH_CONCURRENCY,
      hashQueue: s.PASSWORD_HASH_QUEUE,
    },
    corsOrigins: s.CORS_ORIGINS.split(",")
      .map((o) => o.trim())
      .filter(Boolean),
    trustProxy: trustProxyOf(s.TRUST_PROXY),
    graphql: {
      maxDepth: s.GRAPHQL_MAX_DEPTH,
      maxAliases: s.GRAPHQL_MAX_ALIASES,
      maxCost: s.GRAPHQL_MAX_COST,
      maxTokens: s.GRAPHQL_MAX_TOKENS,
      maxResponseObjects: s.GRAPHQL_MAX_RESPONSE_OBJECTS,
      compileAfter: s.GRAPHQL_COMPILE_AFTER,
      compilesPerMinute: s.GRAPHQL_COMPILES_PER_MINUTE,
      introspection: s.GRAPHQL_INTROSPECTION === "true",
      explorer: s.GRAPHQL_EXPLORER === "true",
    },
    federation: { subgraph: s.FEDERATION_SUBGRAPH === "true", maxRepresentations: s.FEDERATION_MAX_REPRESENTATIONS },
    metrics: { enabled: s.METRICS_ENABLED === "true", token: s.METRICS_TOKEN },
    tracing: { exporter: s.TRACING, sampleRatio: s.TRACING_SAMPLE_RATIO, serviceName: s.OTEL_SERVICE_NAME },
    slowClients: {
      requestTimeoutMs: s.REQUEST_TIMEOUT,
      bodyMinRate: s.BODY_MIN_RATE,
      bodyMinRateWindowMs: s.BODY_MIN_RATE_WINDOW,
      maxConnections: s.MAX_CONNECTIONS,
      maxConnectionsPerAddress: s.MAX_CONNECTIONS_PER_ADDRESS,
    },
    legacy: { anonymousReads: s.ANONYMOUS_READS === "true", restPrefixes: s.REST_PREFIXES },
    httpCacheMaxAgeSeconds: s.HTTP_CACHE_MAX_AGE / 1000,
    redisUrl: s.REDIS_URL,
    persisted: {
      trust: s.TRUSTED_DOCUMENTS,
      manifests: s.TRUSTED_DOCUMENTS_MANIFEST.map((file) => path.resolve(file)),
      adminsSendText: s.TRUSTED_DOCUMENTS_ADMIN_TEXT === "true",
      apq: {
        memoryBytes: s.APQ_MEMORY_BYTES,
        redisBytes: s.APQ_REDIS_BYTES,
        clientBytesPerHour: s.APQ_CLIENT_BYTES_PER_HOUR,
      },
    },
    identityProvider: identity.settings,
    live: {
      maxSubscriptionsPerConnection: s.WS_MAX_SUBSCRIPTIONS_PER_CONNECTION,
      connectionInitTimeoutMs: s.WS_CONNECTION_INIT_TIMEOUT,
      maxMessageBytes: s.WS_MAX_MESSAGE_BYTES,
      keepAliveMs: s.WS_KEEPALIVE,
      messageBurst: s.WS_MESSAGE_BURST,
      messagesPerSecond: s.WS_MESSAGES_PER_SECOND,
      sseKeepAliveMs: s.SSE_KEEPALIVE,
      idleTimeoutMs: s.LIVE_IDLE_TIMEOUT,
      maxSubscriptionsPerClient: s.LIVE_MAX_SUBSCRIPTIONS_PER_CLIENT ?? s.WS_MAX_SUBSCRIPTIONS_PER_TOKEN ?? 200,
      maxCostPerClient: s.LIVE_MAX_COST_PER_CLIENT,
      maxConnectionsPerClient: s.LIVE_MAX_CONNECTIONS_PER_CLIENT,
      maxBufferedBytes: s.LIVE_MAX_BUFFERED_BYTES,
      stallTimeoutMs: s.LIVE_STALL_TIMEOUT,
    },
  };
}
