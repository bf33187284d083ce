// A fair share of something scarce among clients (requester.ts names them): at most `capacity`
// tasks run at once, one client runs at most `perClient` of them, and waiting tasks queue per
// client, started client by client in turn. Used for the database's long reads (searches): SQLite's
// reader threads and, on PostgreSQL, the pool connections searches may take. Without it one client
// sending the most expensive search over many connections held every reader (or most of the pool),
// and every other client's search waited behind seconds of its work.
import { availableParallelism } from "node:os";

type Waiting = { start: () => void };

/**
 * How many of `units` (reader threads, search connections) one client may hold: half of them, and
 * no more than half of this machine's cores. The units' statements run on the cores, not in the
 * units: on 2 cores a flooder holding 2 of 4 readers kept both cores busy, and another client's
 * cheap search ran at a third of a core (docs/performance.md, "One client, half of the cores").
 */
export function clientShare(units: number, cores = availableParallelism()): number {
  return Math.max(1, Math.min(Math.floor(units / 2), Math.floor(cores / 2)));
}

export type FairShare = {
  /** Runs `task` when its client's turn comes; `client`'s running tasks count against its share. */
  run<T>(client: string, task: () => Promise<T>): Promise<T>;
};

export function createFairShare(capacity: number, perClient: number): FairShare {
  /** Waiting tasks by client; the Map's order is the turn order (a client served goes to the back). */
  const queues = new Map<string, Waiting[]>();
  const running = new Map<string, number>();
  let inFlight = 0;

  /**
   * The next task: the first client in turn under its share. Even a client alone keeps to it: a
   * slot left free is what another client's task finds at once.
   */
  function next(): [string, Waiting] | undefined {
    for (const [client, queue] of queues) {
      if ((running.get(client) ?? 0) >= perClient) continue;
      const task = queue.shift()!;
      queues.delete(client);
      if (queue.length > 0) queues.set(client, queue); // to the back of the turn
      return [client, task];
    }
    return undefined;
  }

  function dispatch() {
    while (inFlight < capacity) {
      const picked = next();
      if (!picked) return;
      const [client, task] = picked;
      inFlight++;
      running.set(client, (running.get(client) ?? 0) + 1);
      task.start();
    }
  }

  function done(client: string) {
    inFlight--;
    const held = (running.get(client) ?? 1) - 1;
    if (held > 0) running.set(client, held);
    else running.delete(client);
    dispatch();
  }

  return {
    run(client, task) {
      return new Promise((resolve, reject) => {
        const start = () => {
          let pending: Promise<unknown>;
          try {
            pending = task();
          } catch (error) {
            pending = Promise.reject(error);
          }
          pending.then(resolve as (value: unknown) => void, reject).finally(() => done(client));
        };
        const queue = queues.get(client);
        if (queue) queue.push({ start });
        else queues.set(client, [{ start }]);
        dispatch();
      });
    },
  };
}
