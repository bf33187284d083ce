// One ioredis connection for what instances share through Redis (rate-limit counts, persisted
// queries, live events),
// built so that Redis being slow or gone never holds a request: commands are not queued while
// disconnected (they fail at once), a command gets COMMAND_TIMEOUT_MS to answer, and the client
// keeps reconnecting in the background. Callers fall back to per-process behaviour meanwhile.
// One warning per outage and one line when Redis is back.
import { Redis } from "ioredis";

/** A command that has not answered by then fails (the caller falls back); Redis answers in well under 1 ms. */
export const COMMAND_TIMEOUT_MS = 250;
/** An unreachable Redis is noticed within this, and the callers fall back to memory. */
const CONNECT_TIMEOUT_MS = 2000;
/** Reconnection attempts back off 100 ms at a time up to this, so a recovered Redis is used again within 2 s. */
const MAX_RECONNECT_DELAY_MS = 2000;

type Log = { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };

export type SharedRedis = {
  client: Redis;
  /** True while connected and ready; false from the first failure until it is ready again. */
  reachable(): boolean;
  close(): Promise<void>;
};

export type RedisRole = {
  /** Named in log lines: "rate limits", "live events (subscriber)". */
  purpose: string;
  /** What happens meanwhile, for the warning: "counted per instance". */
  whileAway: string;
  /**
   * A subscriber connection: its SUBSCRIBE waits for the connection (and ioredis subscribes again
   * after each reconnect), and it sends no other commands, so no command timeout applies.
   */
  subscriber?: boolean;
};

const RATE_LIMITS: RedisRole = {
  purpose: "rate limits and persisted queries",
  whileAway: "counted and kept per instance",
};

/** Connects in the background (never waits): an unreachable Redis at start-up is the same as one lost later. */
export function connectRedis(url: string, log: Log, role: RedisRole = RATE_LIMITS): SharedRedis {
  const client = new Redis(url, {
    ...(role.subscriber
      ? { enableOfflineQueue: true, maxRetriesPerRequest: null }
      : { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: COMMAND_TIMEOUT_MS }),
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(100 * attempt, MAX_RECONNECT_DELAY_MS),
  });
  let up = false;
  let warned = false;
  client.on("ready", () => {
    up = true;
    if (warned) log.info({ redis: redactedUrl(url) }, `Redis reachable again: ${role.purpose} shared across instances`);
    warned = false;
  });
  // ioredis reports every failed reconnect as "error": one warning per outage, not one per attempt.
  const lost = (error?: Error) => {
    up = false;
    if (warned) return;
    warned = true;
    log.warn(
      { redis: redactedUrl(url), reason: error?.message ?? "connection closed" },
      `Redis unreachable: ${role.purpose} ${role.whileAway} until it returns`,
    );
  };
  client.on("error", lost);
  client.on("close", () => lost());
  return {
    client,
    reachable: () => up && client.status === "ready",
    async close() {
      client.removeAllListeners();
      client.on("error", () => {}); // a late socket error during shutdown is not news
      client.disconnect();
    },
  };
}

/** The URL without its password, for logs. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable REDIS_URL)";
  }
}
