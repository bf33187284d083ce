// The authorization matrix: every GraphQL mutation (and query) and every REST route, made as a
// valid call by each kind of caller: the target's owner, another user, an admin, no token, a
// revoked token, an expired token. The outcome must be the one docs/rest-contract.md prescribes ("Who may do
// what"): owner or admin may edit and remove; any signed-in user may read, comment, rate, report,
// order and keep a shopping list; grantBadge, revokeBadge, resolveReport and the reports list are
// for admins; without a valid token: UNAUTHENTICATED (401). Register and sign-in need no token (a
// stale one does not stop anyone from signing in again). A refused call changes nothing: neither
// the database (row counts and aggregates) nor the row it was about.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RestRoute } from "../../src/rest/route-row.ts";
import { routes } from "../../src/rest/routes/index.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { databaseState, stateChanges } from "./database-state.ts";
import {
  expiredToken,
  freshToken,
  MUTATIONS,
  newGrocery,
  newRestaurant,
  operationDocument,
  PASSWORD,
  QUERIES,
  queryFields,
  mutationFields,
  revokedToken,
  signUpWorld,
  type Access,
  type World,
} from "./mutation-calls.ts";
import { send } from "./corpus.ts";

let s: TestServer;
let w: World;
const checked = { graphql: 0, rest: 0 };

beforeAll(async () => {
  s = await startServer();
  w = await signUpWorld(s);
});
afterAll(async () => {
  console.log(
    `authorization matrix: ${checked.graphql} GraphQL operation x caller cells, ${checked.rest} REST route x caller cells checked`,
  );
  await s?.close();
});

const CALLERS = ["owner", "other user", "admin", "no token", "revoked token", "expired token"] as const;
type Caller = (typeof CALLERS)[number];
type Outcome = "allowed" | "FORBIDDEN" | "UNAUTHENTICATED";

/** docs/rest-contract.md's rule for one access level and one caller. */
function prescribed(access: Access, caller: Caller): Outcome {
  if (access === "public") return "allowed";
  if (caller === "no token" || caller === "revoked token" || caller === "expired token") return "UNAUTHENTICATED";
  if (access === "signedIn") return "allowed";
  if (access === "ownerOrAdmin") return caller === "other user" ? "FORBIDDEN" : "allowed";
  return caller === "admin" ? "allowed" : "FORBIDDEN";
}

/** The token a caller presents (revoked and expired ones belonged to the owner: being the owner does not help). */
async function tokenOf(caller: Caller): Promise<string | undefined> {
  switch (caller) {
    case "owner":
      return freshToken(w, w.owner.id);
    case "other user":
      return freshToken(w, w.other.id);
    case "admin":
      return freshToken(w, w.admin.id);
    case "no token":
      return undefined;
    case "revoked token":
      return revokedToken(w, w.owner.id);
    case "expired token":
      return expiredToken(w, w.owner.id);
  }
}

/** Runs `call`, then checks that a refused call changed neither the database nor its target. */
async function checkUnchangedWhenRefused(
  outcome: Outcome,
  target: (() => Promise<unknown>) | undefined,
  call: () => Promise<void>,
) {
  const before = await databaseState(s.db);
  const targetBefore = target ? JSON.stringify(await target()) : undefined;
  await call();
  if (outcome === "allowed") return;
  expect(stateChanges(before, await databaseState(s.db))).toEqual([]);
  if (target) expect(JSON.stringify(await target())).toBe(targetBefore);
}

describe("GraphQL: every operation x every caller", () => {
  it("has a case for every mutation and query of the schema", () => {
    expect(
      mutationFields()
        .map((f) => f.name)
        .filter((n) => !MUTATIONS[n]),
    ).toEqual([]);
    expect(
      queryFields()
        .map((f) => f.name)
        .filter((n) => !QUERIES[n]),
    ).toEqual([]);
  });

  const cells = [
    ...mutationFields().map((f) => ["mutation", f, MUTATIONS[f.name]] as const),
    ...queryFields().map((f) => ["query", f, QUERIES[f.name]] as const),
  ].flatMap(([operation, field, entry]) =>
    CALLERS.map((caller) => [`${field.name} by ${caller}`, operation, field, entry, caller] as const),
  );

  it.each(cells)("%s", async (_name, operation, field, entry, caller) => {
    const expected = prescribed(entry.access, caller);
    const { variables, target } = await entry.call(w);
    const token = await tokenOf(caller);
    await checkUnchangedWhenRefused(expected, target, async () => {
      const res = await s.graphql(operationDocument(field, operation), variables, token);
      if (expected === "allowed") {
        expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
        expect(res.data?.[field.name]).not.toBeNull();
      } else {
        expect(res.errors?.[0]?.extensions?.code, JSON.stringify(res.body)).toBe(expected);
        expect(res.errors![0].message.length).toBeGreaterThan(10);
        expect(res.data?.[field.name] ?? null).toBeNull();
      }
    });
    checked.graphql++;
  });
});

/** A valid REST request: the path (ids filled in), query and JSON body. */
type RestCall = {
  path: string;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  target?: () => Promise<unknown>;
};
type RestCase = { access: Access; request: (w: World) => Promise<RestCall> };

const restaurantRow = (id: string) => s.db.prisma.restaurant.findUnique({ where: { id }, include: { tags: true } });
const groceryRow = (id: string) =>
  s.db.prisma.grocery.findUnique({ where: { id }, include: { tags: true, shoppingList: true } });

const withRestaurant = async (
  w: World,
  path: (id: string) => string,
  body?: Record<string, unknown>,
): Promise<RestCall> => {
  const r = await newRestaurant(w);
  return { path: path(r.id), body, target: () => restaurantRow(r.id) };
};
const withGrocery = async (
  w: World,
  path: (id: string) => string,
  rest: Omit<RestCall, "path" | "target"> = {},
): Promise<RestCall> => {
  const g = await newGrocery(w);
  return { path: path(g.id), ...rest, target: () => groceryRow(g.id) };
};

const routeKey = (r: Pick<RestRoute, "method" | "path" | "operation">) => `${r.method} ${r.path} (${r.operation})`;

/** One valid request per route of the table, keyed by route. */
const REST_CASES: Record<string, RestCase> = {
  "POST /users (Register)": {
    access: "public",
    request: async () => ({
      path: "/users",
      body: { username: `new${Math.random().toString(36).slice(2, 10)}`, password: PASSWORD, first_name: "New" },
    }),
  },
  "POST /auth/token (Sign in)": {
    access: "public",
    request: async (w) => ({ path: "/auth/token", body: { username: w.owner.username, password: PASSWORD } }),
  },
  "DELETE /auth/token (Sign out)": { access: "signedIn", request: async () => ({ path: "/auth/token" }) },
  "POST /signin (Sign in (alias))": {
    access: "public",
    request: async (w) => ({ path: "/signin", body: { username: w.owner.username, password: PASSWORD } }),
  },
  "GET /signout (Sign out (alias))": { access: "signedIn", request: async () => ({ path: "/signout" }) },
  "POST /restaurants (Add restaurant)": {
    access: "signedIn",
    request: async () => ({ path: "/restaurants", body: { title: "Added", categories: ["vegan"] } }),
  },
  "GET /restaurants (Search restaurants)": {
    access: "signedIn",
    request: async () => ({ path: "/restaurants", query: { q: "target", limit: "5" } }),
  },
  "PUT /restaurants/order (Order Recipe)": {
    access: "signedIn",
    request: async (w) => {
      const r = await newRestaurant(w);
      return {
        path: "/restaurants/order",
        body: { restaurant_id: r.id, recipe: "Pho", quantity: 2 },
        target: () => restaurantRow(r.id),
      };
    },
  },
  "GET /restaurants/:restaurant_id (Get Restaurant)": {
    access: "signedIn",
    request: (w) => withRestaurant(w, (id) => `/restaurants/${id}`),
  },
  "PUT /restaurants/:restaurant_id (Report Restaurant)": {
    access: "signedIn",
    request: (w) => withRestaurant(w, (id) => `/restaurants/${id}`, { reason_type: "spam", reason_body: "fake" }),
  },
  "PUT /restaurants/:restaurant_id (Edit Restaurant)": {
    access: "ownerOrAdmin",
    request: (w) => withRestaurant(w, (id) => `/restaurants/${id}`, { title: "Edited", serves_cuisine: ["thai"] }),
  },
  "DELETE /restaurants/:restaurant_id (Remove Restaurant)": {
    access: "ownerOrAdmin",
    request: (w) => withRestaurant(w, (id) => `/restaurants/${id}`),
  },
  "PUT /restaurants/:restaurant_id/comments (Comment Restaurant)": {
    access: "signedIn",
    request: (w) =>
      withRestaurant(w, (id) => `/restaurants/${id}/comments`, { title: "Nice", body: "Good", rating: 4 }),
  },
  "GET /restaurants/:restaurant_id/comments (Get Comments)": {
    access: "signedIn",
    request: (w) => withRestaurant(w, (id) => `/restaurants/${id}/comments`),
  },
  "POST /groceries (Add grocery)": {
    access: "signedIn",
    request: async () => ({ path: "/groceries", body: { title: "Added grocery", metric_units: ["kg"] } }),
  },
  "GET /groceries (Search groceries)": {
    access: "signedIn",
    request: async () => ({ path: "/groceries", query: { title: "target" } }),
  },
  "PATCH /groceries (Edit grocery)": {
    access: "ownerOrAdmin",
    request: async (w) => {
      const g = await newGrocery(w);
      return { path: "/groceries", body: { _id: g.id, title: "Edited grocery" }, target: () => groceryRow(g.id) };
    },
  },
  "GET /groceries/:grocery_id (Get grocery)": {
    access: "signedIn",
    request: (w) => withGrocery(w, (id) => `/groceries/${id}`),
  },
  "PUT /groceries/:grocery_id (Report grocery)": {
    access: "signedIn",
    request: (w) => withGrocery(w, (id) => `/groceries/${id}`, { body: { reason_type: "spam" } }),
  },
  "PUT /groceries/:grocery_id (Add grocery to shopping list)": {
    access: "signedIn",
    request: (w) => withGrocery(w, (id) => `/groceries/${id}`, { body: { quantity: 2 } }),
  },
  "DELETE /groceries/:grocery_id (Remove grocery from shopping list)": {
    access: "signedIn",
    request: async (w) => {
      // On everybody's list, so a call that went through would change something.
      const call = await withGrocery(w, (id) => `/groceries/${id}`, { query: { from: "shopping_list" } });
      const groceryId = call.path.split("/").pop()!;
      const users = await s.db.prisma.user.findMany({ select: { id: true } });
      await s.db.prisma.shoppingListEntry.createMany({
        data: users.map((u) => ({ userId: u.id, groceryId, quantity: 1 })),
      });
      return call;
    },
  },
  "DELETE /groceries/:grocery_id (Remove grocery)": {
    access: "ownerOrAdmin",
    request: (w) => withGrocery(w, (id) => `/groceries/${id}`, { query: { from: "catalogue" } }),
  },
};

const STATUS: Record<Exclude<Outcome, "allowed">, number> = { FORBIDDEN: 403, UNAUTHENTICATED: 401 };

/**
 * How the caller's token travels. Users send it as a header; the revoked one as the access_token
 * query parameter and the expired one as an access_token body field (or query parameter for a
 * bodiless request), so every place a token is read from is shown to refuse a dead token.
 */
function presented(caller: Caller, token: string | undefined, call: RestCall, method: string) {
  const query = new URLSearchParams(call.query);
  let body = call.body;
  let header: string | undefined;
  if (token && caller === "revoked token") query.set("access_token", token);
  else if (token && caller === "expired token") {
    if (method === "GET" || method === "DELETE") query.set("access_token", token);
    else body = { ...body, access_token: token };
  } else header = token;
  const q = query.toString();
  return { path: call.path + (q ? `?${q}` : ""), body, header };
}

describe("REST: every route x every caller", () => {
  it("has a case for every route of the table", () => {
    expect(routes.map(routeKey).filter((k) => !REST_CASES[k])).toEqual([]);
  });

  const cells = routes.flatMap((route) =>
    CALLERS.map((caller) => [`${routeKey(route)} by ${caller}`, route, caller] as const),
  );

  it.each(cells)("%s", async (_name, route, caller) => {
    const entry = REST_CASES[routeKey(route)];
    const expected = prescribed(entry.access, caller);
    const call = await entry.request(w);
    const token = await tokenOf(caller);
    await checkUnchangedWhenRefused(expected, call.target, async () => {
      const { path, body, header } = presented(caller, token, call, route.method);
      const answer = await send(s, path, {
        method: route.method,
        token: header,
        ...(body ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {}),
      });
      if (expected === "allowed") expect(answer.status, answer.text.slice(0, 300)).toBe(route.status);
      else {
        expect(answer.status, answer.text.slice(0, 300)).toBe(STATUS[expected]);
        expect(answer.json?.error?.code).toBe(expected);
        expect(answer.json.error.message.length).toBeGreaterThan(10);
      }
    });
    checked.rest++;
  });
});
