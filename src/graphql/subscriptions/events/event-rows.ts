// The row an event names is the same for every subscriber on this instance: it is read once per
// event and shared, and each subscriber then applies its own rights to it (the auth directives
// and the fields' resolvers run per subscriber). Without this, 1,000 subscribers of one restaurant
// made 1,000 reads of each new comment, and on PostgreSQL the writes queued behind them.
// Every subscriber receives the very same event object from the bus, so it keys the cache; the
// cache goes with the event once no subscription holds it any more.
const loaded = new WeakMap<object, Map<string, Promise<unknown>>>();

/** `load()` once for `event` and `key`; later callers for the same event get the same promise. */
export function onceForEvent<T>(event: object, key: string, load: () => Promise<T>): Promise<T> {
  let rows = loaded.get(event);
  if (!rows) loaded.set(event, (rows = new Map()));
  let pending = rows.get(key) as Promise<T> | undefined;
  if (!pending) rows.set(key, (pending = load()));
  return pending;
}

/**
 * Starts `load()` for `event` as soon as the event arrives (a subscription's filter calls it), so
 * the read is under way while subscribers are still busy with the events before it. Each
 * subscriber takes its events in order, so a read started only when they reach the event put one
 * database round trip per event on the path of every later event: on PostgreSQL, at 20 events a
 * second, the round trips alone fell behind (issue 48; docs/performance.md). Returns true (for use
 * in a filter). A failed read is seen by the resolver that awaits it, never as an unhandled rejection.
 */
export function readAhead(event: object, key: string, load: () => Promise<unknown>): true {
  onceForEvent(event, key, load).catch(() => {});
  return true;
}
