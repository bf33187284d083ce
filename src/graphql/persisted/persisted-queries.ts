// Automatic persisted queries: texts clients registered under their SHA-256 (document-id.ts), so
// that later requests may send the hash alone (a short GET a cache can keep). A text is
// registered only once it has been admitted (parsed, trusted, validated, costed: operation.ts)
// and its hash checked, so the store holds valid documents only.
//
// Bounded three ways, each text counting its UTF-8 bytes plus ENTRY_OVERHEAD for the bookkeeping
// around it (so a flood of tiny documents is bounded too):
// - each process keeps at most `memoryBytes` (APQ_MEMORY_BYTES), least recently used out first;
// - with REDIS_URL every instance shares one store of at most `redisBytes` (APQ_REDIS_BYTES),
//   least recently looked up in Redis out first, and each process keeps what it used in memory;
// - one client (an account, else an address) registers at most `clientBytesPerHour` of new text
//   an hour (APQ_CLIENT_BYTES_PER_HOUR, counted in Redis when shared): past it its texts still run,
//   but are not kept, so a client registering hashes in a flood takes at most that share of the
//   store an hour instead of evicting everybody else's. A text over MAX_TEXT_BYTES is never kept.
//   At most MAX_CLIENTS_COUNTED clients are counted an hour (per process; in Redis, one hash per
//   hour for all instances), so the counts are bounded too; later clients keep nothing that hour.
//
// While Redis cannot answer, each process keeps and counts for itself (as rate limits do), and
// an evicted text costs its client one round trip: the PersistedQueryNotFound answer, then the text.
import type { SharedRedis } from "../../redis/connection.ts";

/** Bytes charged per text beyond the text itself: its hash (64 characters) twice in Redis, the map and sorted-set entries. */
export const ENTRY_OVERHEAD = 256;
/** The longest text kept: an app's operations are a few KiB; a larger one runs from its text every time. */
export const MAX_TEXT_BYTES = 64 * 1024;
/** Distinct clients counted per hour (in one process, or in Redis for all); past it, new clients' texts are not kept until the next hour. */
const MAX_CLIENTS_COUNTED = 10_000;
const HOUR_MS = 3_600_000;

const KEY_PREFIX = "gateway:apq:";
const KEYS = { texts: `${KEY_PREFIX}texts`, used: `${KEY_PREFIX}used`, bytes: `${KEY_PREFIX}bytes` };
/** This hour's allowances in Redis, one hash field per client (gone an hour after the hour). */
const clientsKey = (now: number) => `${KEY_PREFIX}clients:${Math.floor(now / HOUR_MS)}`;

// Looks a text up and marks it used (its place in the eviction order).
const LOOKUP = `
local text = redis.call('HGET', KEYS[1], ARGV[1])
if text then redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[1]) end
return text`;

// Keeps a text unless the client's allowance is spent or this hour counts too many clients (0),
// then evicts the least recently used ones past the bound. Returns 1 kept, 2 already there, 0 not kept.
const REGISTER = `
local texts, used, bytes, clients = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local hash, text, now, bound, allowance, overhead = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local client, maxClients = ARGV[7], tonumber(ARGV[8])
if redis.call('HEXISTS', texts, hash) == 1 then
  redis.call('ZADD', used, now, hash)
  return 2
end
local size = string.len(text) + overhead
local spent = redis.call('HGET', clients, client)
if not spent and redis.call('HLEN', clients) >= maxClients then return 0 end
if tonumber(spent or '0') + size > allowance then return 0 end
redis.call('HINCRBY', clients, client, size)
if redis.call('TTL', clients) < 0 then redis.call('EXPIRE', clients, 7200) end
redis.call('HSET', texts, hash, text)
redis.call('ZADD', used, now, hash)
local total = redis.call('INCRBY', bytes, size)
while total > bound do
  local oldest = redis.call('ZPOPMIN', used)
  if #oldest == 0 then
    redis.call('SET', bytes, 0)
    break
  end
  local gone = redis.call('HSTRLEN', texts, oldest[1])
  redis.call('HDEL', texts, oldest[1])
  total = redis.call('DECRBY', bytes, gone + overhead)
end
return 1`;

type ApqCommands = {
  apqLookup(texts: string, used: string, hash: string, now: number): Promise<string | null>;
  apqRegister(
    texts: string,
    used: string,
    bytes: string,
    clients: string,
    hash: string,
    text: string,
    now: number,
    bound: number,
    allowance: number,
    overhead: number,
    client: string,
    maxClients: number,
  ): Promise<number>;
};

export type PersistedQueriesOptions = {
  memoryBytes: number;
  redisBytes: number;
  clientBytesPerHour: number;
  /** REDIS_URL's connection: the store every instance shares. */
  redis?: SharedRedis;
  /** Distinct clients counted an hour (MAX_CLIENTS_COUNTED unless a test says fewer). */
  maxClientsPerHour?: number;
  now?: () => number;
};

/** What became of a registration. */
export type Registration = "kept" | "known" | "over-allowance" | "too-large";

const sizeOf = (text: string) => Buffer.byteLength(text) + ENTRY_OVERHEAD;

/** Texts by hash in this process, least recently used first out past `maxBytes`. */
class RecentTexts {
  private readonly texts = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(hash: string): string | undefined {
    const text = this.texts.get(hash);
    if (text !== undefined) {
      this.texts.delete(hash);
      this.texts.set(hash, text);
    }
    return text;
  }

  has(hash: string): boolean {
    return this.texts.has(hash);
  }

  set(hash: string, text: string): void {
    if (this.texts.has(hash)) return;
    this.texts.set(hash, text);
    this.bytes += sizeOf(text);
    for (const [oldest, gone] of this.texts) {
      if (this.bytes <= this.maxBytes) break;
      this.texts.delete(oldest);
      this.bytes -= sizeOf(gone);
    }
  }

  get size(): number {
    return this.texts.size;
  }
}

/** What each client registered this hour in this process (used while there is no Redis to count in). */
class HourlyAllowance {
  private readonly spent = new Map<string, number>();
  private hourStarted: number;

  constructor(
    private readonly bytesPerHour: number,
    private readonly maxClients: number,
    private readonly now: () => number,
  ) {
    this.hourStarted = now();
  }

  /** Spends `bytes` of the client's allowance; false (nothing spent) when it does not have them. */
  take(client: string, bytes: number): boolean {
    if (this.now() - this.hourStarted >= HOUR_MS) {
      this.spent.clear();
      this.hourStarted = this.now();
    }
    const already = this.spent.get(client);
    if (already === undefined && this.spent.size >= this.maxClients) return false;
    if ((already ?? 0) + bytes > this.bytesPerHour) return false;
    this.spent.set(client, (already ?? 0) + bytes);
    return true;
  }
}

export class PersistedQueries {
  private readonly recent: RecentTexts;
  private readonly allowance: HourlyAllowance;
  private readonly redis?: SharedRedis & { client: SharedRedis["client"] & ApqCommands };
  private readonly now: () => number;
  private readonly maxClients: number;

  constructor(private readonly options: PersistedQueriesOptions) {
    this.now = options.now ?? Date.now;
    this.maxClients = options.maxClientsPerHour ?? MAX_CLIENTS_COUNTED;
    this.recent = new RecentTexts(options.memoryBytes);
    this.allowance = new HourlyAllowance(options.clientBytesPerHour, this.maxClients, this.now);
    if (options.redis) {
      const client = options.redis.client;
      if (!("apqLookup" in client)) {
        client.defineCommand("apqLookup", { numberOfKeys: 2, lua: LOOKUP });
        client.defineCommand("apqRegister", { numberOfKeys: 4, lua: REGISTER });
      }
      this.redis = options.redis as NonNullable<PersistedQueries["redis"]>;
    }
  }

  /** The text registered under `hash` (lower-case hex): this process's copy, else Redis's. */
  async get(hash: string): Promise<string | undefined> {
    const kept = this.recent.get(hash);
    if (kept !== undefined || !this.redis?.reachable()) return kept;
    try {
      const text = await this.redis.client.apqLookup(KEYS.texts, KEYS.used, hash, this.now());
      if (text === null) return undefined;
      this.recent.set(hash, text);
      return text;
    } catch {
      return undefined; // Redis slow or gone: as if not registered, the client sends the text
    }
  }

  /** Keeps `text` under `hash` (already checked to be its SHA-256) for `client`, within the bounds. */
  async register(hash: string, text: string, client: string): Promise<Registration> {
    const size = sizeOf(text);
    if (size - ENTRY_OVERHEAD > MAX_TEXT_BYTES) return "too-large";
    if (this.redis?.reachable()) {
      try {
        const now = this.now();
        const outcome = await this.redis.client.apqRegister(
          KEYS.texts,
          KEYS.used,
          KEYS.bytes,
          clientsKey(now),
          hash,
          text,
          now,
          this.options.redisBytes,
          this.options.clientBytesPerHour,
          ENTRY_OVERHEAD,
          client,
          this.maxClients,
        );
        if (outcome === 0) return "over-allowance";
        this.recent.set(hash, text);
        return outcome === 2 ? "known" : "kept";
      } catch {
        // Redis slow or gone: kept (and counted) in this process, as without Redis.
      }
    }
    if (this.recent.has(hash)) return "known";
    if (!this.allowance.take(client, size)) return "over-allowance";
    this.recent.set(hash, text);
    return "kept";
  }

  /** Texts this process holds (metrics, tests). */
  get size(): number {
    return this.recent.size;
  }
}
