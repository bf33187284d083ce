// Where rate-limit counts live when REDIS_URL is set: in Redis, so every instance counts against
// the same buckets, and in this process's memory whenever Redis cannot answer (down, or slower
// than the command timeout). While it is away the limits hold per instance, as without Redis
// (N instances then allow N x RATE_LIMIT_MAX), never not at all, and no request waits on it or
// fails because of it. The counting itself is @fastify/rate-limit's own (its Redis script and its
// in-memory LRU), loaded from the package.
import { createRequire } from "node:module";
import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { SharedRedis } from "../redis/connection.ts";

type Store = FastifyRateLimitStore & { read?: FastifyRateLimitStore["incr"] };
type Settings = FastifyRateLimitOptions & { continueExceeding?: boolean; exponentialBackoff?: boolean };

const require = createRequire(import.meta.url);
const RedisStore: new (continueExceeding: boolean, exponentialBackoff: boolean, redis: unknown, key?: string) => Store =
  require("@fastify/rate-limit/store/RedisStore.js");
const LocalStore: new (continueExceeding: boolean, exponentialBackoff: boolean) => Store = require("@fastify/rate-limit/store/LocalStore.js");

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
    return new SharedOrLocalStore(this.shared.child(routeOptions), this.local.child(routeOptions), this.redis, this.onFallback);
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
export function sharedRateLimitStore(redis: SharedRedis, onFallback: (error?: Error) => void): FastifyRateLimitStoreCtor {
  return class extends SharedOrLocalStore {
    constructor(settings: Settings) {
      const continueExceeding = settings.continueExceeding ?? false;
      const exponentialBackoff = settings.exponentialBackoff ?? false;
      super(new RedisStore(continueExceeding, exponentialBackoff, redis.client, KEY_PREFIX), new LocalStore(continueExceeding, exponentialBackoff), redis, onFallback);
    }
  };
}
