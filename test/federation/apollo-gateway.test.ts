// This service in a supergraph behind Apollo's @apollo/gateway (served by Apollo Server), which
// composes at start-up from each subgraph's `_service { sdl }` (IntrospectAndCompose), beside a
// delivery subgraph that extends Restaurant: queries across both resolve through each one's
// `_entities`, and the client's token reaches this service, whose rules apply. One gateway for
// the whole file (the cores are shared).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApolloServer } from "@apollo/server";
import { startStandaloneServer } from "@apollo/server/standalone";
import { ApolloGateway, IntrospectAndCompose, RemoteGraphQLDataSource } from "@apollo/gateway";
import { deliveryEstimate } from "../helpers/delivery-subgraph.ts";
import { ask, OPERATIONS, startScene, type Scene } from "../helpers/supergraph-scene.ts";

type GatewayContext = { authorization?: string };

let scene: Scene;
let apollo: ApolloServer<GatewayContext>;
let url: string;

beforeAll(async () => {
  scene = await startScene();
  const gateway = new ApolloGateway({
    supergraphSdl: new IntrospectAndCompose({
      subgraphs: [
        { name: "restaurants", url: `${scene.server.url}/graphql` },
        { name: "delivery", url: scene.delivery.url },
      ],
    }),
    // The client's Authorization goes to each subgraph request.
    buildService: ({ url }) =>
      new RemoteGraphQLDataSource<GatewayContext>({
        url,
        willSendRequest({ request, context }) {
          if (context.authorization) request.http?.headers.set("authorization", context.authorization);
        },
      }),
  });
  // @apollo/gateway 2 implements Apollo Server 4's gateway interface, which Apollo Server 5 runs as it is.
  apollo = new ApolloServer<GatewayContext>({ gateway: gateway as never });
  ({ url } = await startStandaloneServer(apollo, {
    listen: { port: 0, host: "127.0.0.1" },
    context: async ({ req }) => ({ authorization: req.headers.authorization }),
  }));
});
afterAll(async () => {
  await apollo?.stop();
  await scene?.close();
});

describe("@apollo/gateway", () => {
  it("composes this service with another subgraph extending Restaurant", async () => {
    const res = await ask(url, `{ __type(name: "Restaurant") { fields { name } } }`);
    const fields = res.data.__type.fields.map((f: { name: string }) => f.name);
    expect(fields).toContain("title");
    expect(fields).toContain("deliveryEstimate");
  });

  it("resolves a query starting here through the delivery subgraph's _entities", async () => {
    const before = scene.delivery.operations.length;
    const res = await ask(url, OPERATIONS.restaurantsWithEstimates, scene.bob.token);
    expect(res.errors).toBeUndefined();
    expect(res.data.restaurants.nodes).toEqual(
      [...scene.restaurants]
        .sort((a, b) => a.title.localeCompare(b.title))
        .map((r) => ({ ...r, deliveryEstimate: deliveryEstimate(r.id) })),
    );
    expect(scene.delivery.operations.slice(before).some((op) => op.includes("_entities"))).toBe(true);
  });

  it("resolves a query starting in the delivery subgraph through this service's _entities", async () => {
    const res = await ask(url, OPERATIONS.featured, scene.bob.token);
    expect(res.errors).toBeUndefined();
    expect(res.data.featuredRestaurants).toEqual(
      scene.restaurants.map((r) => ({
        ...r,
        owner: { username: scene.alice.username },
        deliveryEstimate: deliveryEstimate(r.id),
      })),
    );
  });

  it("hands the client's token to this service, whose rules apply to the entities it resolves", async () => {
    const own = await ask(url, OPERATIONS.courier, scene.alice.token);
    expect(own.data.courierOfTheWeek).toEqual({ id: scene.alice.id, username: scene.alice.username, role: "USER" });
    const other = await ask(url, OPERATIONS.courier, scene.bob.token);
    expect(other.data.courierOfTheWeek).toEqual({ id: scene.alice.id, username: scene.alice.username, role: null });
    const anonymous = await ask(url, OPERATIONS.courier);
    expect(anonymous.data.courierOfTheWeek).toBeNull();
    expect(anonymous.errors?.map((e) => e.extensions?.code)).toEqual(["UNAUTHENTICATED"]);
  });

  it("keeps another user's orders hidden: each sees their own", async () => {
    const alices = await ask(url, OPERATIONS.myOrders, scene.alice.token);
    expect(alices.data.myOrders).toEqual({
      totalCount: 1,
      nodes: [
        {
          recipe: "Carbonara",
          restaurant: {
            title: scene.restaurants[0].title,
            deliveryEstimate: deliveryEstimate(scene.restaurants[0].id),
          },
        },
      ],
    });
    const bobs = await ask(url, OPERATIONS.myOrders, scene.bob.token);
    expect(bobs.data.myOrders).toEqual({ totalCount: 0, nodes: [] });
    const anonymous = await ask(url, OPERATIONS.myOrders);
    expect(anonymous.data).toBeNull();
    expect(anonymous.errors?.map((e) => e.extensions?.code)).toEqual(["UNAUTHENTICATED"]);
  });

  it("runs no subscription (Apollo Router does; @apollo/gateway says so)", async () => {
    const res = await ask(
      url,
      `subscription($id: ID!) { commentAdded(restaurantId: $id) { title } }`,
      scene.bob.token,
      {
        id: scene.restaurants[0].id,
      },
    );
    expect(res.errors?.[0].message).toMatch(/subscriptions not supported/i);
  });
});
