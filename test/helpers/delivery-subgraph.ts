// A small second subgraph for the gateway tests: a delivery service that adds
// `Restaurant.deliveryEstimate` to the restaurants this service owns (by `@key(fields: "id")`),
// and points at our restaurants and users from its own root fields, so a gateway must ask this
// service's `_entities` for them. Served on 127.0.0.1 with graphql-http; it records the operations
// it runs, so a test can see which of them went through its `_entities`.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { buildSubgraphSchema } from "@apollo/subgraph";
import { parse, print } from "graphql";
import { createHandler } from "graphql-http/lib/use/http";

export const DELIVERY_SDL = `
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

type Restaurant @key(fields: "id") {
  id: ID!
  "Minutes from order to door: 20, and 1 more for each letter of the id past 20."
  deliveryEstimate: Int!
}

type User @key(fields: "id", resolvable: false) {
  id: ID!
}

type Query {
  "The restaurants the delivery service puts forward (their other fields come from the restaurants subgraph)."
  featuredRestaurants: [Restaurant!]!
  "The courier of the week, a user of the restaurants subgraph."
  courierOfTheWeek: User
}
`;

export type DeliverySubgraph = {
  url: string;
  /** The documents this subgraph ran, in order (a gateway's `_entities` fetches among them). */
  operations: string[];
  close(): Promise<void>;
};

export const deliveryEstimate = (id: string) => 20 + Math.max(0, id.length - 20);

/** `featured`: the ids `featuredRestaurants` answers; `courier`: the id `courierOfTheWeek` answers. */
export async function startDeliverySubgraph(data: { featured: string[]; courier: string }): Promise<DeliverySubgraph> {
  const schema = buildSubgraphSchema([
    {
      typeDefs: parse(DELIVERY_SDL),
      resolvers: {
        Query: {
          featuredRestaurants: () => data.featured.map((id) => ({ id })),
          courierOfTheWeek: () => ({ id: data.courier }),
        },
        Restaurant: {
          __resolveReference: (reference: { id: string }) => ({ id: reference.id }),
          deliveryEstimate: (restaurant: { id: string }) => deliveryEstimate(restaurant.id),
        } as never,
      },
    },
  ]);
  const operations: string[] = [];
  const handler = createHandler({
    schema,
    onOperation: (_request, args) => void operations.push(print(args.document)),
  });
  const server: Server = createServer((request, response) => void handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    operations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
