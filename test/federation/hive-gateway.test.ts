// This service in a supergraph behind Hive Gateway (@graphql-hive/gateway's runtime, composing
// locally with @theguild/federation-composition, which it brings), beside a delivery subgraph
// that extends Restaurant: queries across both subgraphs resolve through each one's `_entities`,
// the client's token reaches this service and its rules apply, and a subscription reaches the
// client over Server-Sent Events (Hive Gateway subscribes to this service on /graphql/stream).
// One gateway for the whole file (the cores are shared).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "graphql";
import { createClient, type Client } from "graphql-sse";
import { composeServices } from "@theguild/federation-composition";
import { createGatewayRuntime, type GatewayRuntime } from "@graphql-hive/gateway";
import { DELIVERY_SDL, deliveryEstimate } from "../helpers/delivery-subgraph.ts";
import { countListeners } from "../helpers/live.ts";
import { itAnswersAcrossSubgraphs, startScene, type Scene } from "../helpers/supergraph-scene.ts";

let scene: Scene;
let gateway: GatewayRuntime;
let http: Server;
let url: string;
let supergraphSdl: string;
let listeners: ReturnType<typeof countListeners>;

beforeAll(async () => {
  scene = await startScene();
  listeners = countListeners(scene.server.events);
  // Composed from what this service answers to `_service { sdl }`, as a schema registry would.
  const sdl = (await scene.server.graphql("{ _service { sdl } }")).data._service.sdl;
  const composed = composeServices([
    { name: "restaurants", typeDefs: parse(sdl), url: `${scene.server.url}/graphql` },
    { name: "delivery", typeDefs: parse(DELIVERY_SDL), url: scene.delivery.url },
  ]);
  expect(composed.errors ?? []).toEqual([]);
  supergraphSdl = composed.supergraphSdl!;
  gateway = createGatewayRuntime({
    supergraph: supergraphSdl,
    logging: false,
    // The client's Authorization goes to every subgraph fetch, subscriptions included.
    propagateHeaders: {
      fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get("authorization") }),
    },
    // Subscriptions to this service over its Server-Sent Events endpoint (graphql-sse).
    transportEntries: { restaurants: { options: { subscriptions: { kind: "http", location: "/graphql/stream" } } } },
  });
  http = createServer(gateway);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
}, 120_000); // the gateway loads and composes
afterAll(async () => {
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
  await gateway?.dispose();
  await scene?.close();
});

describe("Hive Gateway", () => {
  it("composes this service with another subgraph extending Restaurant", () => {
    expect(supergraphSdl).toMatch(/join__graph\(name: "restaurants"/);
    expect(supergraphSdl).toMatch(/type Restaurant[^{]*@join__type\(graph: RESTAURANTS, key: "id"\)/);
    expect(supergraphSdl).toMatch(/deliveryEstimate: Int! @join__field\(graph: DELIVERY\)/);
  });

  itAnswersAcrossSubgraphs(() => ({ scene, url }));

  it("passes a subscription (commentAdded) from this service to the client over Server-Sent Events", async () => {
    const restaurant = scene.restaurants[1];
    const client: Client = createClient({
      url,
      singleConnection: false,
      retryAttempts: 0,
      headers: { authorization: `Bearer ${scene.bob.token}` },
    });
    try {
      const listening = listeners.listening();
      const first = new Promise<any>((resolve, reject) =>
        client.subscribe(
          {
            query: `subscription($id: ID!) { commentAdded(restaurantId: $id) {
              title author { username } restaurant { title deliveryEstimate } } }`,
            variables: { id: restaurant.id },
          },
          { next: resolve, error: reject, complete: () => reject(new Error("completed before any event")) },
        ),
      );
      await listeners.untilListening(listening + 1, 30_000); // the gateway's stream to this service is open
      const comment = await scene.server.graphql(
        `mutation($id: ID!) { addComment(restaurantId: $id, input: { title: "Al dente", body: "b", rating: 5 }) { id } }`,
        { id: restaurant.id },
        scene.alice.token,
      );
      expect(comment.errors).toBeUndefined();
      expect(await first).toEqual({
        data: {
          commentAdded: {
            title: "Al dente",
            author: { username: scene.alice.username },
            restaurant: { title: restaurant.title, deliveryEstimate: deliveryEstimate(restaurant.id) },
          },
        },
      });
    } finally {
      client.dispose();
    }
  }, 60_000);
});
