// This service in a supergraph behind Apollo's @apollo/gateway (served by Apollo Server), which
// composes at start-up from each subgraph's `_service { sdl }` (IntrospectAndCompose), beside a
// delivery subgraph that extends Restaurant: queries across both resolve through each one's
// `_entities`, and the client's token reaches this service, whose rules apply. One gateway for
// the whole file (the cores are shared).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApolloServer } from "@apollo/server";
import { startStandaloneServer } from "@apollo/server/standalone";
import { ApolloGateway, IntrospectAndCompose, RemoteGraphQLDataSource } from "@apollo/gateway";
import { ask, itAnswersAcrossSubgraphs, startScene, type Scene } from "../helpers/supergraph-scene.ts";

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
}, 120_000); // the gateway loads and composes
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

  itAnswersAcrossSubgraphs(() => ({ scene, url }));

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
