// What both gateway tests compose and ask: this service as a subgraph (FEDERATION_SUBGRAPH=true)
// with two users, alice (owner of two restaurants, with an order) and bob (nothing of his own),
// beside the delivery subgraph (delivery-subgraph.ts), which features alice's restaurants and
// names alice courier of the week. The gateway is the test file's; `ask` posts to it as a client would,
// and itAnswersAcrossSubgraphs holds what every gateway must answer.
import { startServer, type TestServer } from "./server.ts";
import { it, expect } from "vitest";
import { deliveryEstimate, startDeliverySubgraph, type DeliverySubgraph } from "./delivery-subgraph.ts";

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
    const r = await server.db.prisma.restaurant.create({
      data: { title, titleSearch: title.toLowerCase(), titleOrder: title.toLowerCase(), ownerId: alice.id },
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
const OPERATIONS = {
  /** Entry in this service, `deliveryEstimate` from the delivery subgraph's `_entities`. */
  restaurantsWithEstimates: `{ restaurants(first: 10, sort: TITLE) { nodes { id title deliveryEstimate } } }`,
  /** Entry in the delivery subgraph, titles and owners from this service's `_entities`. */
  featured: `{ featuredRestaurants { id title owner { username } deliveryEstimate } }`,
  /** A User entity through this service's `_entities`: `role` is shown to the account itself only. */
  courier: `{ courierOfTheWeek { id username role } }`,
  /** The caller's own orders, whose restaurants are extended by the delivery subgraph. */
  myOrders: `{ myOrders { totalCount nodes { recipe restaurant { title deliveryEstimate } } } }`,
};

/**
 * What every gateway must do with this service and the delivery subgraph (the test file starts
 * the gateway and hands its URL): queries across both subgraphs, through each one's `_entities`,
 * and the client's token reaching this service.
 */
export function itAnswersAcrossSubgraphs(gateway: () => { scene: Scene; url: string }) {
  it("resolves a query starting here through the delivery subgraph's _entities", async () => {
    const { scene, url } = gateway();
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
    const { scene, url } = gateway();
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
    const { scene, url } = gateway();
    const own = await ask(url, OPERATIONS.courier, scene.alice.token);
    expect(own.data.courierOfTheWeek).toEqual({ id: scene.alice.id, username: scene.alice.username, role: "USER" });
    const other = await ask(url, OPERATIONS.courier, scene.bob.token);
    expect(other.data.courierOfTheWeek).toEqual({ id: scene.alice.id, username: scene.alice.username, role: null });
    const anonymous = await ask(url, OPERATIONS.courier);
    expect(anonymous.data.courierOfTheWeek).toBeNull();
    expect(anonymous.errors?.map((e) => e.extensions?.code)).toEqual(["UNAUTHENTICATED"]);
  });

  it("keeps another user's orders hidden: each sees their own", async () => {
    const { scene, url } = gateway();
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
}
