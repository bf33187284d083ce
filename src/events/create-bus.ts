// Which event bus this deployment needs, from its settings: PostgreSQL carries events between
// instances itself (LISTEN/NOTIFY); on SQLite one process owns the database, so in-process is all.
import type { Config } from "../config.ts";
import { InProcessBus, type EventBus } from "./bus.ts";
import { PostgresBus } from "./postgres-bus.ts";
import { RedisBus } from "./redis-bus.ts";

/** How long start-up waits for the first LISTEN before going on without it (it keeps retrying). */
const FIRST_LISTEN_WAIT_MS = 5_000;

export type BusOptions = {
  /** Publish only (the admin command line): no LISTEN connection, nothing is delivered to this process. */
  publishOnly?: boolean;
};

export async function createEventBus(config: Config, { publishOnly = false }: BusOptions = {}): Promise<EventBus> {
  // With REDIS_URL, events go through Redis pub/sub whatever the database (one shared path for
  // rate limits and events). Its publisher connects in the background; the admin command line
  // waits for it, since it publishes at once and then exits.
  if (config.redisUrl) {
    const bus = new RedisBus(config.redisUrl, undefined, { publishOnly });
    if (publishOnly) await bus.whenConnected(FIRST_LISTEN_WAIT_MS);
    return bus;
  }
  if (config.database.dialect === "postgres") {
    const bus = new PostgresBus(config.database.url, { listen: !publishOnly });
    // Events published before the LISTEN is in place would not reach this process's listeners:
    // wait for it, but never block start-up on it (the bus retries and logs on its own).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      bus.whenListening(),
      new Promise((resolve) => (timer = setTimeout(resolve, FIRST_LISTEN_WAIT_MS))),
    ]);
    clearTimeout(timer);
    return bus;
  }
  return new InProcessBus();
}
