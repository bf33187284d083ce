// Subscribers on one instance receive events of writes made on another (issue 15, item 3): two
// real servers on one database, a write through REST on instance A, a graphql-ws subscriber on
// instance B. On PostgreSQL the events travel through LISTEN/NOTIFY (no other infrastructure);
// with REDIS_URL they travel through Redis pub/sub (here: two SQLite servers sharing one file,
// the deployment REDIS_URL exists for when the database cannot carry events).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, shareTestDatabase, testProvider } from "../helpers/database.ts";
import { countListeners, liveClient, subscribe, type LiveClient } from "../helpers/live.ts";
import { redisServerInstalled, startRedis, type TestRedis } from "../helpers/redis.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const COMMENT_ADDED = `subscription($id: ID!) { commentAdded(restaurantId: $id) { id title rating author { id } restaurant { id commentCount } } }`;
const CHANGED = `subscription($id: ID!) { restaurantChanged(id: $id) { change restaurantId restaurant { id title } } }`;

/** The checks both deployments pass: `a` takes the writes, `b` holds the subscribers. */
function acrossInstances(servers: () => { a: TestServer; b: TestServer }) {
  const clients: LiveClient[] = [];
  let listeners: ReturnType<typeof countListeners>;
  let writer: { token: string; id: string };
  let reader: { token: string; id: string };

  beforeAll(async () => {
    const { a, b } = servers();
    listeners = countListeners(b.events);
    writer = await a.signUp("writer");
    reader = await a.signUp("reader");
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
  });

  /** Subscribes on B and waits until B listens for its events, so a write made next reaches it. */
  async function followOnB(query: string, variables: Record<string, unknown>) {
    const client = liveClient(servers().b, { authorization: `Bearer ${reader.token}` });
    clients.push(client);
    const before = listeners.listening();
    const sub = subscribe(client, query, variables);
    await listeners.untilListening(before + 1);
    return sub;
  }

  async function newRestaurant(title: string) {
    const created = await servers().a.fetch("/restaurants", { method: "POST", token: writer.token, json: { title } });
    expect(created.status).toBe(201);
    return ((await created.json()) as { _id: string })._id;
  }

  it("a comment posted through REST on A reaches commentAdded on B", async () => {
    const { a } = servers();
    const id = await newRestaurant("Across instances");
    const sub = await followOnB(COMMENT_ADDED, { id });
    const posted = await a.fetch(`/restaurants/${id}/comments`, {
      method: "PUT",
      token: writer.token,
      json: { title: "From A", body: "b", rating: 4 },
    });
    expect(posted.status).toBe(201);
    const event = await sub.next(10_000);
    expect(event.errors).toBeUndefined();
    expect(event.data.commentAdded).toMatchObject({
      title: "From A",
      rating: 4,
      author: { id: writer.id },
      restaurant: { id, commentCount: 1 },
    });
  });

  it("a restaurant updated through REST on A reaches restaurantChanged on B", async () => {
    const { a } = servers();
    const id = await newRestaurant("Before");
    const sub = await followOnB(CHANGED, { id });
    expect(
      (await a.fetch(`/restaurants/${id}`, { method: "PUT", token: writer.token, json: { title: "Renamed on A" } }))
        .status,
    ).toBe(200);
    const event = await sub.next(10_000);
    expect(event.errors).toBeUndefined();
    expect(event.data.restaurantChanged).toEqual({
      change: "UPDATED",
      restaurantId: id,
      restaurant: { id, title: "Renamed on A" },
    });
  });
}

describe.skipIf(testProvider() !== "postgres")(
  "two instances on one PostgreSQL (LISTEN/NOTIFY; runs with DATABASE_URL on PostgreSQL only)",
  () => {
    let a: TestServer;
    let b: TestServer;
    beforeAll(async () => {
      const [forA, forB] = shareTestDatabase(await createTestDatabase(), 2);
      a = await startServer({}, { database: forA });
      b = await startServer({}, { database: forB });
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });
    acrossInstances(() => ({ a, b }));
  },
);

describe.skipIf(testProvider() !== "sqlite" || !redisServerInstalled)(
  "two SQLite instances sharing a file with REDIS_URL (Redis pub/sub; needs redis-server; .ci/run installs it)",
  () => {
    let redis: TestRedis;
    let a: TestServer;
    let b: TestServer;
    beforeAll(async () => {
      redis = await startRedis();
      a = await startServer({ REDIS_URL: redis.url });
      b = await startServer({ REDIS_URL: redis.url }, { alongside: a });
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
      await redis?.close();
    });
    acrossInstances(() => ({ a, b }));
  },
);
