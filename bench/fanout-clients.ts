// One process of fan-out subscribers (fanout.ts forks several: 10,000 sockets and their
// messages are more than one process reads without falling behind, and the bench's own process
// must stay free to write comments on schedule). Each subscriber is its own connection, signed in
// as one of the bench's users, subscribed to one restaurant's commentAdded (one restaurant for all
// in fanout.ts, one of a few hundred in listeners.ts): over WebSocket it
// speaks graphql-transport-ws itself (connection_init, subscribe, pong: a few lines, lighter than
// a client library, so the figures are the server's), over Server-Sent Events it POSTs to
// /graphql/stream and reads the stream. Arrival times are kept per comment title; at the end the
// parent hands over when each write was acknowledged and gets back a latency histogram.
import http from "node:http";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";

export type ClientJob = {
  transport: "ws" | "sse";
  url: string;
  tokens: string[];
  /** Subscriber k (counted from 0 over all processes) follows restaurantIds[k % length]. */
  restaurantIds: string[];
  /** Subscribers in this process, and the index of its first (tokens and restaurants are spread by index). */
  count: number;
  first: number;
};

/** Messages between the parent (fanout.ts) and this process. */
export type ToClients =
  | { type: "start"; job: ClientJob }
  | { type: "probes" }
  | { type: "count" }
  /**
   * acks: when each comment's write was acknowledged, by title; restaurants: the restaurant of
   * each title (absent: every title is for every subscriber).
   */
  | { type: "finish"; acks: Record<string, number>; restaurants?: Record<string, string> };
export type FromClients =
  | { type: "connected"; problems: string[] }
  | { type: "probes"; listening: number }
  | { type: "count"; received: number }
  | {
      type: "result";
      received: number;
      latencies: [number, number][];
      max: number;
      problems: string[];
      /** Events a subscriber should have had and had not (summed), the subscribers short of one, and events beyond those expected. */
      missed: number;
      subscribersMissing: number;
      extra: number;
    };

export const SUBSCRIPTION = `subscription Fanout($id: ID!) { commentAdded(restaurantId: $id) { id title } }`;
const CONNECT_BATCH = 100;

const titleOf = (text: string) => /"title":"([^"]*)"/.exec(text)?.[1];

function run(job: ClientJob, send: (message: FromClients) => void) {
  const arrivals = new Map<string, number[]>();
  /** Events of the stream (not probes) each subscriber of this process received. */
  const streamed = new Uint32Array(job.count);
  const restaurantOf = (i: number) => job.restaurantIds[(job.first + i) % job.restaurantIds.length]!;
  const sawProbe = new Set<number>();
  const problems: string[] = [];
  const closers: (() => void)[] = [];
  let finishing = false;
  const problem = (text: string) => void (problems.length < 20 && problems.push(text));

  const arrived = (i: number, title: string | undefined) => {
    const at = Date.now();
    if (!title) return problem(`subscriber ${job.first + i}: an event without a title`);
    if (title.startsWith("probe")) sawProbe.add(i);
    else {
      streamed[i]!++;
      (arrivals.get(title) ?? arrivals.set(title, []).get(title)!).push(at);
    }
  };

  const subscribe = (i: number) =>
    JSON.stringify({
      id: "1",
      type: "subscribe",
      payload: { query: SUBSCRIPTION, variables: { id: restaurantOf(i) } },
    });
  const body = (i: number) => JSON.stringify({ query: SUBSCRIPTION, variables: { id: restaurantOf(i) } });

  function openWs(i: number, token: string): Promise<void> {
    return new Promise((ready) => {
      const ws = new WebSocket(`${job.url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws", {
        perMessageDeflate: false,
      });
      closers.push(() => ws.terminate());
      ws.on("open", () =>
        ws.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${token}` } })),
      );
      ws.on("message", (data) => {
        const text = data.toString();
        if (text.includes('"type":"next"')) return arrived(i, titleOf(text));
        const message = JSON.parse(text) as { type: string; payload?: unknown };
        if (message.type === "connection_ack") {
          ws.send(subscribe(i));
          ready();
        } else if (message.type === "ping") ws.send('{"type":"pong"}');
        else if (message.type !== "pong") problem(`subscriber ${job.first + i}: ${text.slice(0, 200)}`);
      });
      ws.on("error", (error) => problem(`subscriber ${job.first + i}: ${error.message}`));
      ws.on("close", (code, reason) => {
        if (!finishing) problem(`subscriber ${job.first + i} closed: ${code} ${reason.toString().slice(0, 100)}`);
        ready();
      });
    });
  }

  function openStream(i: number, token: string): Promise<void> {
    return new Promise((ready) => {
      const req = http.request(
        `${job.url}/graphql/stream`,
        {
          method: "POST",
          agent: false,
          headers: {
            accept: "text/event-stream",
            "content-type": "application/json",
            authorization: `Bearer ${token}`,
          },
        },
        (res) => {
          if (res.statusCode !== 200) problem(`stream ${job.first + i} answered ${res.statusCode}`);
          res.setEncoding("utf8");
          let pending = "";
          res.on("data", (chunk: string) => {
            pending += chunk;
            for (let end = pending.indexOf("\n\n"); end >= 0; end = pending.indexOf("\n\n")) {
              const event = pending.slice(0, end);
              pending = pending.slice(end + 2);
              if (event.startsWith("event: next")) arrived(i, titleOf(event));
            }
          });
          res.on("end", () => void (!finishing && problem(`stream ${job.first + i} ended`)));
          ready();
        },
      );
      closers.push(() => req.destroy());
      req.on("error", (error) => {
        if (!finishing) problem(`stream ${job.first + i}: ${error.message}`);
        ready();
      });
      req.end(body(i));
    });
  }

  return {
    async start() {
      for (let at = 0; at < job.count; at += CONNECT_BATCH) {
        const batch: Promise<void>[] = [];
        for (let i = at; i < Math.min(job.count, at + CONNECT_BATCH); i++) {
          const token = job.tokens[(job.first + i) % job.tokens.length]!;
          batch.push(job.transport === "ws" ? openWs(i, token) : openStream(i, token));
        }
        await Promise.all(batch);
      }
      send({ type: "connected", problems });
    },
    listening: () => sawProbe.size,
    received: () => [...arrivals.values()].reduce((n, times) => n + times.length, 0),
    finish(acks: Record<string, number>, restaurants: Record<string, string> | undefined, done: () => void) {
      finishing = true;
      // What each subscriber should have received: the acknowledged comments of its restaurant.
      const expectedOf = new Map<string, number>();
      for (const title of Object.keys(acks)) {
        const restaurant = restaurants?.[title] ?? "*";
        expectedOf.set(restaurant, (expectedOf.get(restaurant) ?? 0) + 1);
      }
      let missed = 0;
      let subscribersMissing = 0;
      let extra = 0;
      for (let i = 0; i < job.count; i++) {
        const expected = expectedOf.get(restaurants ? restaurantOf(i) : "*") ?? 0;
        if (streamed[i]! < expected) {
          missed += expected - streamed[i]!;
          subscribersMissing++;
        } else extra += streamed[i]! - expected;
      }
      const histogram = new Map<number, number>();
      let max = 0;
      let received = 0;
      for (const [title, times] of arrivals) {
        const ack = acks[title];
        if (ack === undefined) continue;
        for (const at of times) {
          const ms = Math.max(0, at - ack);
          histogram.set(ms, (histogram.get(ms) ?? 0) + 1);
          max = Math.max(max, ms);
          received++;
        }
      }
      for (const close of closers) close();
      send({ type: "result", received, latencies: [...histogram], max, problems, missed, subscribersMissing, extra });
      done();
    },
  };
}

// In the child: one job, driven by the parent's messages.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  let clients: ReturnType<typeof run> | undefined;
  let sent: Promise<void> = Promise.resolve();
  const reply = (message: FromClients) =>
    void (sent = new Promise((resolve) => process.send!(message, () => resolve())));
  process.on("message", (message: ToClients) => {
    if (message.type === "start") {
      clients = run(message.job, reply);
      void clients.start();
    } else if (message.type === "probes") reply({ type: "probes", listening: clients?.listening() ?? 0 });
    else if (message.type === "count") reply({ type: "count", received: clients?.received() ?? 0 });
    else if (message.type === "finish") {
      // Leave once the result has gone out (a disconnect right after send could lose it).
      clients?.finish(message.acks, message.restaurants, () => void sent.then(() => process.disconnect()));
    }
  });
}
