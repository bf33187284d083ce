// What both gateway tests compose and ask: this service as a subgraph (FEDERATION_SUBGRAPH=true)
// with two users, alice (owner of two restaurants, with an order) and bob (nothing of his own),
// beside the delivery subgraph (delivery-subgraph.ts), which features alice's restaurants and
// names alice courier of the week. The gateway is the test's; `ask` posts to it as a client would.
import { startServer, type TestServer } from "./server.ts";
import { startDeliverySubgraph, type DeliverySubgraph } from "./delivery-subgraph.ts";

export type Scene = {
  server: TestServer;
  delivery: DeliverySubgraph;
  alice: { token: string; id: string; username: string };
  bob: { token: string; id: string; username: string };
  restaurants: { id: string; title: string }[];
  close(): Promise<void>;
};

export async function startScene(): Promise<Scene> {
  const server = await startServer({ FEDERATION_SUBGRAPH: "true" });
  const alice = await server.signUp("alice");
  const bob = await server.signUp("bob");
  const restaurants = [];
  for (const title of ["Trattoria Alice", "Alice's Noodles"]) {
    const r = await server.db.restaurant.create({
      data: { title, titleSearch: title.toLowerCase(), ownerId: alice.id },
    });
    restaurants.push({ id: r.id, title });
  }
  const ordered = await server.graphql(
    `mutation($input: OrderRecipeInput!) { orderRecipe(input: $input) { id } }`,
    { input: { restaurantId: restaurants[0].id, recipe: "Carbonara" } },
    alice.token,
  );
  if (!ordered.data) throw new Error(`orderRecipe failed: ${JSON.stringify(ordered.errors)}`);
  const delivery = await startDeliverySubgraph({ featured: restaurants.map((r) => r.id), courier: alice.id });
  return {
    server,
    delivery,
    alice,
    bob,
    restaurants,
    async close() {
      await delivery.close();
      await server.close();
    },
  };
}

/** Posts an operation to a gateway as a client would, with `token` as `Authorization: Bearer`. */
export async function ask(url: string, query: string, token?: string, variables?: Record<string, unknown>) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as {
    data?: any;
    errors?: { message: string; path?: unknown[]; extensions?: any }[];
  };
  return { status: response.status, ...body };
}

/** Operations both gateways are asked, and what they prove. */
export const OPERATIONS = {
  /** Entry in this service, `deliveryEstimate` from the delivery subgraph's `_entities`. */
  restaurantsWithEstimates: `{ restaurants(first: 10, sort: TITLE) { nodes { id title deliveryEstimate } } }`,
  /** Entry in the delivery subgraph, titles and owners from this service's `_entities`. */
  featured: `{ featuredRestaurants { id title owner { username } deliveryEstimate } }`,
  /** A User entity through this service's `_entities`: `role` is shown to the account itself only. */
  courier: `{ courierOfTheWeek { id username role } }`,
  /** The caller's own orders, whose restaurants are extended by the delivery subgraph. */
  myOrders: `{ myOrders { totalCount nodes { recipe restaurant { title deliveryEstimate } } } }`,
};
