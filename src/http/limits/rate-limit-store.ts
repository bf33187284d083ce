// Where rate-limit counts live when REDIS_URL is set: in Redis, so every instance counts against
// the same buckets, and in this process's memory whenever Redis cannot answer (down, or slower
// than the command timeout). While it is away the limits hold per instance, as without Redis
// (N instances then allow N x RATE_LIMIT_MAX), never not at all, and no request waits on it or
// fails because of it. The counting itself is @fastify/rate-limit's own (its Redis script and its
// in-memory LRU), loaded from the package; its in-memory answers are copied (SnapshotLocalStore).
import { createRequire } from "node:module";
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { SharedRedis } from "../../redis/connection.ts";

type Store = FastifyRateLimitStore & { read?: FastifyRateLimitStore["incr"] };
type Settings = FastifyRateLimitOptions & { continueExceeding?: boolean; exponentialBackoff?: boolean };

const require = createRequire(import.meta.url);
const RedisStore: new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: unknown,
  key?: string,
) => Store = require("@fastify/rate-limit/store/RedisStore.js");
const LocalStore: new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
) => Store = require("@fastify/rate-limit/store/LocalStore.js");

/**
 * @fastify/rate-limit's in-memory store answers with its own counter object, which the plugin
 * reads only after an await: charges made at once (a burst of WebSocket messages) all read the
 * last count, so the first of them were refused too. Each answer here is a copy, taken when it is made.
 */
class SnapshotLocalStore implements Store {
  constructor(private readonly local: Store) {}

  incr: Store["incr"] = (key, callback, timeWindow, max) =>
    this.local.incr(key, (error, result) => callback(error, result && { ...result }), timeWindow, max);

  read: Store["incr"] = (key, callback, timeWindow, max) =>
    this.local.read!(key, (error, result) => callback(error, result && { ...result }), timeWindow, max);

  child(routeOptions: Parameters<Store["child"]>[0]): Store {
    return new SnapshotLocalStore(this.local.child(routeOptions));
  }
}

const inMemory = (settings: Settings) =>
  new LocalStore(settings.continueExceeding ?? false, settings.exponentialBackoff ?? false);

/** The `store` option of @fastify/rate-limit for counts kept in this process. */
export function localRateLimitStore(): FastifyRateLimitStoreCtor {
  return class extends SnapshotLocalStore {
    constructor(settings: Settings) {
      super(inMemory(settings));
    }
  };
}

/** Keys in Redis start with this (several deployments may share one Redis with their own prefixes one day). */
const KEY_PREFIX = "gateway:rate-limit:";

/** Counts in Redis while it answers, else in this process; `onFallback` hears about each count Redis could not take. */
class SharedOrLocalStore implements Store {
  constructor(
    private readonly shared: Store,
    private readonly local: Store,
    private readonly redis: SharedRedis,
    private readonly onFallback: (error?: Error) => void,
  ) {}

  incr: Store["incr"] = (key, callback, timeWindow, max) => this.count("incr", key, callback, timeWindow, max);

  read: Store["incr"] = (key, callback, timeWindow, max) => this.count("read", key, callback, timeWindow, max);

  child(routeOptions: Parameters<Store["child"]>[0]): Store {
    return new SharedOrLocalStore(
      this.shared.child(routeOptions),
      this.local.child(routeOptions),
      this.redis,
      this.onFallback,
    );
  }

  private count(method: "incr" | "read", ...[key, callback, timeWindow, max]: Parameters<Store["incr"]>): void {
    const local = () => this.local[method]!(key, callback, timeWindow, max);
    // Not connected: ask nothing of Redis (ioredis would refuse at once anyway, without its offline queue).
    if (!this.redis.reachable()) {
      this.onFallback();
      return local();
    }
    this.shared[method]!(
      key,
      (error, result) => {
        if (!error) return callback(null, result);
        this.onFallback(error);
        local();
      },
      timeWindow,
      max,
    );
  }
}

/** The `store` option of @fastify/rate-limit for counts shared through `redis`. */
export function sharedRateLimitStore(
  redis: SharedRedis,
  onFallback: (error?: Error) => void,
): FastifyRateLimitStoreCtor {
  return class extends SharedOrLocalStore {
    constructor(settings: Settings) {
      const continueExceeding = settings.continueExceeding ?? false;
      const exponentialBackoff = settings.exponentialBackoff ?? false;
      super(
        new RedisStore(continueExceeding, exponentialBackoff, redis.client, KEY_PREFIX),
        new SnapshotLocalStore(inMemory(settings)),
        redis,
        onFallback,
      );
    }
  };
}
