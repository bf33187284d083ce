// One valid call for every GraphQL mutation (and query), with who may make it (docs/rest-contract.md "Who may
// do what"), shared by the bad-input corpus (which spoils these calls), the authorization matrix
// (which makes them as every kind of caller) and the concurrency tests. Each factory makes its own
// fresh target rows, owned by `owner`, straight in the database, so calls never depend on one another.
import { getNamedType, getNullableType, isCompositeType, type GraphQLField, type GraphQLSchema } from "graphql";
import { buildSchema } from "../../src/graphql/schema.ts";
import { issueToken, revokeToken, hashToken } from "../../src/domain/accounts/tokens.ts";
import type { TestServer } from "../helpers/server.ts";

export const PASSWORD = "correct-horse";

export type Account = { id: string; username: string; token: string };

export type World = { s: TestServer; owner: Account; other: Account; admin: Account };

/**
 * public: anyone, token or not. signedIn: any signed-in user. ownerOrAdmin: the target's owner or
 * an admin (others FORBIDDEN). admin: admins only.
 */
export type Access = "public" | "signedIn" | "ownerOrAdmin" | "admin";

export type Call = {
  variables: Record<string, unknown>;
  /** Reads the rows the call is about, to prove a refused call left them as they were. */
  target?: () => Promise<unknown>;
};

export type MutationCase = { access: Access; call: (w: World) => Promise<Call> };

let serial = 0;
const unique = (prefix: string) => `${prefix}${++serial}${Math.random().toString(36).slice(2, 6)}`;

export async function newRestaurant(w: World, ownerId = w.owner.id) {
  const title = unique("Target restaurant ");
  return w.s.db.prisma.restaurant.create({ data: { title, titleSearch: title.toLowerCase(), ownerId } });
}

export async function newGrocery(w: World, ownerId = w.owner.id) {
  const title = unique("Target grocery ");
  return w.s.db.prisma.grocery.create({ data: { title, titleSearch: title.toLowerCase(), ownerId } });
}

const restaurantRow = (w: World, id: string) =>
  w.s.db.prisma.restaurant.findUnique({
    where: { id },
    include: { tags: true, photos: true, openingHours: true, badges: true },
  });
const groceryRow = (w: World, id: string) =>
  w.s.db.prisma.grocery.findUnique({ where: { id }, include: { tags: true, shoppingList: true } });

/** The valid call of each mutation. A mutation missing here fails the coverage tests. */
export const MUTATIONS: Record<string, MutationCase> = {
  register: {
    access: "public",
    call: async () => ({
      variables: { input: { username: unique("newcomer"), password: PASSWORD, firstName: "New" } },
    }),
  },
  login: {
    access: "public",
    call: async (w) => ({ variables: { username: w.owner.username, password: PASSWORD } }),
  },
  logout: { access: "signedIn", call: async () => ({ variables: {} }) },
  createRestaurant: {
    access: "signedIn",
    call: async () => ({ variables: { input: { title: "Fresh place", categories: ["vegan"], starRating: 4 } } }),
  },
  updateRestaurant: {
    access: "ownerOrAdmin",
    call: async (w) => {
      const r = await newRestaurant(w);
      return {
        variables: { id: r.id, input: { title: "Changed title", cuisines: ["thai"] } },
        target: () => restaurantRow(w, r.id),
      };
    },
  },
  deleteRestaurant: {
    access: "ownerOrAdmin",
    call: async (w) => {
      const r = await newRestaurant(w);
      return { variables: { id: r.id }, target: () => restaurantRow(w, r.id) };
    },
  },
  reportRestaurant: {
    access: "signedIn",
    call: async (w) => {
      const r = await newRestaurant(w);
      return {
        variables: { id: r.id, input: { reasonType: "spam", reasonBody: "Fake menu" } },
        target: () => restaurantRow(w, r.id),
      };
    },
  },
  addComment: {
    access: "signedIn",
    call: async (w) => {
      const r = await newRestaurant(w);
      return {
        variables: { restaurantId: r.id, input: { title: "Nice", body: "Good soup", rating: 4 } },
        target: () => restaurantRow(w, r.id),
      };
    },
  },
  orderRecipe: {
    access: "signedIn",
    call: async (w) => {
      const r = await newRestaurant(w);
      return {
        variables: { input: { restaurantId: r.id, recipe: "Pho", quantity: 2 } },
        target: () => restaurantRow(w, r.id),
      };
    },
  },
  grantBadge: {
    access: "admin",
    call: async (w) => {
      const r = await newRestaurant(w);
      return { variables: { restaurantId: r.id, name: unique("Badge ") }, target: () => restaurantRow(w, r.id) };
    },
  },
  revokeBadge: {
    access: "admin",
    call: async (w) => {
      const r = await newRestaurant(w);
      const badge = await w.s.db.prisma.badge.create({ data: { name: unique("Held badge ") } });
      await w.s.db.prisma.restaurantBadge.create({ data: { restaurantId: r.id, badgeId: badge.id } });
      return { variables: { restaurantId: r.id, badgeId: badge.id }, target: () => restaurantRow(w, r.id) };
    },
  },
  createGrocery: {
    access: "signedIn",
    call: async () => ({ variables: { input: { title: "Fresh rice", metricUnits: ["kg"] } } }),
  },
  updateGrocery: {
    access: "ownerOrAdmin",
    call: async (w) => {
      const g = await newGrocery(w);
      return {
        variables: { id: g.id, input: { title: "Changed grocery", categories: ["grains"] } },
        target: () => groceryRow(w, g.id),
      };
    },
  },
  deleteGrocery: {
    access: "ownerOrAdmin",
    call: async (w) => {
      const g = await newGrocery(w);
      return { variables: { id: g.id }, target: () => groceryRow(w, g.id) };
    },
  },
  removeGrocery: {
    // Not on the caller's list, so the legacy rule removes it from the catalogue: owner or admin.
    access: "ownerOrAdmin",
    call: async (w) => {
      const g = await newGrocery(w);
      return { variables: { id: g.id }, target: () => groceryRow(w, g.id) };
    },
  },
  reportGrocery: {
    access: "signedIn",
    call: async (w) => {
      const g = await newGrocery(w);
      return { variables: { id: g.id, input: { reasonType: "wrong information" } }, target: () => groceryRow(w, g.id) };
    },
  },
  addToShoppingList: {
    access: "signedIn",
    call: async (w) => {
      const g = await newGrocery(w);
      return { variables: { groceryId: g.id, quantity: 3 }, target: () => groceryRow(w, g.id) };
    },
  },
  removeFromShoppingList: {
    access: "signedIn",
    call: async (w) => {
      // On everybody's list, so a call that went through would change something.
      const g = await newGrocery(w);
      const users = await w.s.db.prisma.user.findMany({ select: { id: true } });
      await w.s.db.prisma.shoppingListEntry.createMany({
        data: users.map((u) => ({ userId: u.id, groceryId: g.id, quantity: 1 })),
      });
      return { variables: { groceryId: g.id }, target: () => groceryRow(w, g.id) };
    },
  },
  resolveReport: {
    access: "admin",
    call: async (w) => {
      const r = await newRestaurant(w);
      const report = await w.s.db.prisma.report.create({
        data: { reporterId: w.other.id, targetKind: "RESTAURANT", targetId: r.id, reasonType: "spam" },
      });
      return {
        variables: { id: report.id, resolution: "Checked" },
        target: () => w.s.db.prisma.report.findUnique({ where: { id: report.id } }),
      };
    },
  },
};

/** Reads: any signed-in user, but the reports list, which is for admins. */
export const QUERIES: Record<string, MutationCase> = {
  me: { access: "signedIn", call: async () => ({ variables: {} }) },
  user: { access: "signedIn", call: async (w) => ({ variables: { id: w.owner.id } }) },
  restaurant: { access: "signedIn", call: async (w) => ({ variables: { id: (await newRestaurant(w)).id } }) },
  restaurants: { access: "signedIn", call: async () => ({ variables: { filter: { text: "target" }, first: 5 } }) },
  badges: { access: "signedIn", call: async () => ({ variables: {} }) },
  myOrders: { access: "signedIn", call: async () => ({ variables: { first: 5 } }) },
  grocery: { access: "signedIn", call: async (w) => ({ variables: { id: (await newGrocery(w)).id } }) },
  groceries: { access: "signedIn", call: async () => ({ variables: { filter: { title: "target" }, first: 5 } }) },
  myShoppingList: { access: "signedIn", call: async () => ({ variables: { first: 5 } }) },
  reports: { access: "admin", call: async () => ({ variables: { status: "OPEN", first: 5 } }) },
  // Each type by its own reader's rule: test/graphql/relay-nodes.test.ts.
  node: { access: "signedIn", call: async (w) => ({ variables: { id: (await newRestaurant(w)).id } }) },
  nodes: { access: "signedIn", call: async (w) => ({ variables: { ids: [(await newRestaurant(w)).id] } }) },
};

export const schema: GraphQLSchema = buildSchema();

export function mutationFields(): GraphQLField<unknown, unknown>[] {
  return Object.values(schema.getMutationType()!.getFields());
}

export function queryFields(): GraphQLField<unknown, unknown>[] {
  return Object.values(schema.getQueryType()!.getFields());
}

/** `mutation($a: T!, ...) { name(a: $a, ...) { __typename } }`: every argument as a variable. */
export function operationDocument(
  field: GraphQLField<unknown, unknown>,
  operation: "mutation" | "query" = "mutation",
): string {
  const declared = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(", ");
  const passed = field.args.map((a) => `${a.name}: $${a.name}`).join(", ");
  const selection = isCompositeType(getNamedType(getNullableType(field.type))) ? " { __typename }" : "";
  return `${operation} Call${declared ? `(${declared})` : ""} { ${field.name}${passed ? `(${passed})` : ""}${selection} }`;
}

export const mutationDocument = (field: GraphQLField<unknown, unknown>) => operationDocument(field, "mutation");

export async function signUpWorld(s: TestServer): Promise<World> {
  const [owner, other, admin] = [await s.signUp("owner"), await s.signUp("other"), await s.signUp("admin", "ADMIN")];
  return { s, owner, other, admin };
}

const DAY = 24 * 60 * 60 * 1000;

/** A fresh token for the account (logout revokes the one used, so every call gets its own). */
export const freshToken = async (w: World, userId: string) => (await issueToken(w.s.db, userId, DAY)).token;

/** A token that was valid and has been revoked. */
export async function revokedToken(w: World, userId: string) {
  const { token } = await issueToken(w.s.db, userId, DAY);
  const row = await w.s.db.prisma.accessToken.findUniqueOrThrow({ where: { tokenHash: hashToken(token) } });
  await revokeToken(w.s.db, row.id);
  return token;
}

/** A token whose lifetime is over. */
export const expiredToken = async (w: World, userId: string) => (await issueToken(w.s.db, userId, -DAY)).token;
