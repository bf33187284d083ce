// Concurrency through both doors at once: many parallel writes, half through the REST shim and
// half through GraphQL, on whichever database the run uses (SQLite by default, PostgreSQL with
// DATABASE_URL). Counts and uniqueness rules hold exactly: no lost update, no duplicate row, and
// no 5xx when writers race for a unique key (a repeat is answered as docs/rest-contract.md says).
// Already covered elsewhere, through GraphQL alone: 30 parallel comments (comments.test.ts), 20
// parallel first adds to a shopping list (shopping-list.test.ts), 12 identical reports
// (reports.test.ts). Added here: the same through REST and GraphQL mixed, orders, the shopping
// list's quantity ceiling, registration, removal and badge grants under a race.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ENTRY_QUANTITY } from "../../src/domain/orders/shopping-list.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { send, type Answer } from "./corpus.ts";
import { newGrocery, newRestaurant, PASSWORD, signUpWorld, type Account, type World } from "./mutation-calls.ts";

let s: TestServer;
let w: World;

beforeAll(async () => {
  s = await startServer();
  w = await signUpWorld(s);
});
afterAll(async () => s?.close());

const json = (method: string, path: string, body: unknown, token?: string) =>
  send(s, path, { method, token, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const graphql = async (query: string, variables: Record<string, unknown>, token?: string): Promise<Answer> =>
  send(s, "/graphql", {
    method: "POST",
    token,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });

/** Every answer a 2xx without errors. */
function expectAllOk(answers: Answer[]) {
  for (const a of answers) {
    expect(a.status, a.text.slice(0, 300)).toBeLessThan(300);
    expect(a.json?.errors, a.text.slice(0, 300)).toBeUndefined();
  }
}

/** No 5xx and no INTERNAL_SERVER_ERROR among the answers. */
function expectNoServerError(answers: Answer[]) {
  for (const a of answers) {
    expect(a.status, a.text.slice(0, 300)).toBeLessThan(500);
    expect(a.text).not.toContain("INTERNAL_SERVER_ERROR");
  }
}

/** Runs `n` calls at once, alternating REST (even i) and GraphQL (odd i). */
const mixed = (n: number, rest: (i: number) => Promise<Answer>, gql: (i: number) => Promise<Answer>) =>
  Promise.all(Array.from({ length: n }, (_, i) => (i % 2 === 0 ? rest(i) : gql(i))));

const users = (count: number) => Promise.all(Array.from({ length: count }, () => s.signUp("racer")));

describe("parallel writes through REST and GraphQL at once", () => {
  it("comments: 40 at once from 4 users are all stored; the rating totals are exact", async () => {
    const r = await newRestaurant(w);
    const writers = await users(4);
    const rating = (i: number) => (i % 5) + 1;
    const answers = await mixed(
      40,
      (i) =>
        json(
          "PUT",
          `/restaurants/${r.id}/comments`,
          { title: `rest ${i}`, body: "parallel", rating: rating(i) },
          writers[i % 4].token,
        ),
      (i) =>
        graphql(
          `
            mutation ($id: ID!, $input: CommentInput!) {
              addComment(restaurantId: $id, input: $input) {
                id
              }
            }
          `,
          {
            id: r.id,
            input: { title: `gql ${i}`, body: "parallel", rating: rating(i) },
          },
          writers[i % 4].token,
        ),
    );
    expectAllOk(answers);
    const sum = Array.from({ length: 40 }, (_, i) => rating(i)).reduce((a, b) => a + b, 0);
    expect(await s.db.prisma.comment.count({ where: { restaurantId: r.id } })).toBe(40);
    const row = await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id: r.id } });
    expect({ sum: row.ratingSum, count: row.ratingCount, avg: row.ratingAvg }).toEqual({
      sum,
      count: 40,
      avg: sum / 40,
    });
    const detail = await send(s, `/restaurants/${r.id}/comments?limit=100`, { token: w.owner.token });
    expect(detail.json.comments).toHaveLength(40);
    expect(new Set(detail.json.comments.map((c: { _id: string }) => c._id)).size).toBe(40);
  });

  it("orders: 40 at once from 4 users are each stored once, with their quantities", async () => {
    const r = await newRestaurant(w);
    const buyers = await users(4);
    const quantity = (i: number) => (i % 7) + 1;
    const answers = await mixed(
      40,
      (i) =>
        json(
          "PUT",
          "/restaurants/order",
          { restaurant_id: r.id, recipe: `dish ${i}`, quantity: quantity(i) },
          buyers[i % 4].token,
        ),
      (i) =>
        graphql(
          `
            mutation ($input: OrderRecipeInput!) {
              orderRecipe(input: $input) {
                id
              }
            }
          `,
          {
            input: { restaurantId: r.id, recipe: `dish ${i}`, quantity: quantity(i) },
          },
          buyers[i % 4].token,
        ),
    );
    expectAllOk(answers);
    const rows = await s.db.prisma.order.findMany({ where: { restaurantId: r.id } });
    expect(rows).toHaveLength(40);
    expect(new Set(rows.map((o) => o.recipe)).size).toBe(40);
    for (const [i, b] of buyers.entries()) {
      const mine = rows.filter((o) => o.userId === b.id);
      expect(mine.map((o) => o.recipe).sort()).toEqual(
        Array.from({ length: 10 }, (_, k) => `dish ${i + 4 * k}`).sort(),
      );
      expect(mine.reduce((t, o) => t + o.quantity, 0)).toBe(
        Array.from({ length: 10 }, (_, k) => quantity(i + 4 * k)).reduce((a, b) => a + b, 0),
      );
    }
  });

  it("shopping list: 40 adds of the same grocery by the same user, mixed: one entry, every quantity counted", async () => {
    const g = await newGrocery(w);
    const me = await s.signUp("shopper");
    const quantity = (i: number) => (i % 3) + 1;
    const answers = await mixed(
      40,
      (i) => json("PUT", `/groceries/${g.id}`, { quantity: quantity(i) }, me.token),
      (i) =>
        graphql(
          `
            mutation ($id: ID!, $q: Int) {
              addToShoppingList(groceryId: $id, quantity: $q) {
                quantity
              }
            }
          `,
          { id: g.id, q: quantity(i) },
          me.token,
        ),
    );
    expectAllOk(answers);
    const total = Array.from({ length: 40 }, (_, i) => quantity(i)).reduce((a, b) => a + b, 0);
    const rows = await s.db.prisma.shoppingListEntry.findMany({ where: { userId: me.id } });
    expect(rows).toEqual([expect.objectContaining({ groceryId: g.id, quantity: total })]);
    // Every answer saw a quantity between its own and the final one; the last writer saw the total.
    const seen = answers.map((a) => a.json.quantity ?? a.json.data.addToShoppingList.quantity);
    expect(Math.max(...seen)).toBe(total);
  });

  it("shopping list: adds racing to the ceiling never take an entry past it", async () => {
    const g = await newGrocery(w);
    const me = await s.signUp("hoarder");
    await s.db.prisma.shoppingListEntry.create({
      data: { userId: me.id, groceryId: g.id, quantity: MAX_ENTRY_QUANTITY - 500 },
    });
    // Room for 5 adds of 100; 20 race for it.
    const answers = await mixed(
      20,
      () => json("PUT", `/groceries/${g.id}`, { quantity: 100 }, me.token),
      () =>
        graphql(
          `
            mutation ($id: ID!) {
              addToShoppingList(groceryId: $id, quantity: 100) {
                quantity
              }
            }
          `,
          { id: g.id },
          me.token,
        ),
    );
    expectNoServerError(answers);
    const accepted = answers.filter((a) => a.status < 300 && !a.json?.errors);
    const refused = answers.filter((a) => !accepted.includes(a));
    for (const a of refused)
      expect(a.json?.error?.code ?? a.json?.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(accepted).toHaveLength(5);
    const row = await s.db.prisma.shoppingListEntry.findFirstOrThrow({ where: { userId: me.id } });
    expect(row.quantity).toBe(MAX_ENTRY_QUANTITY);
  });

  it.each([
    ["restaurant", "RESTAURANT"],
    ["grocery", "GROCERY"],
  ] as const)(
    "reports: 20 identical reports on a %s at once, mixed: one row, one created, the same report for all",
    async (kind, targetKind) => {
      const target = kind === "restaurant" ? await newRestaurant(w) : await newGrocery(w);
      const reporter = await s.signUp("reporter");
      const field = kind === "restaurant" ? "reportRestaurant" : "reportGrocery";
      const answers = await mixed(
        20,
        (i) =>
          json(
            "PUT",
            `/${kind === "restaurant" ? "restaurants" : "groceries"}/${target.id}`,
            { reason_type: "spam", reason_body: `try ${i}` },
            reporter.token,
          ),
        (i) =>
          graphql(
            `mutation($id: ID!, $input: ReportInput!) { ${field}(id: $id, input: $input) { created report { id } } }`,
            {
              id: target.id,
              input: { reasonType: "spam", reasonBody: `try ${i}` },
            },
            reporter.token,
          ),
      );
      expectAllOk(answers);
      // REST answers the report itself (with `created`); GraphQL a ReportResult.
      const results = answers.map((a) =>
        a.json.data
          ? { id: a.json.data[field].report.id, created: a.json.data[field].created }
          : { id: a.json._id, created: a.json.created },
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
      expect(
        await s.db.prisma.report.count({ where: { reporterId: reporter.id, targetKind, targetId: target.id } }),
      ).toBe(1);
    },
  );

  it("registration: 12 sign-ups with the same username at once: one account, the others 409 CONFLICT", async () => {
    const username = `same${Math.random().toString(36).slice(2, 8)}`;
    const answers = await mixed(
      12,
      () => json("POST", "/users", { username, password: PASSWORD, first_name: "Twin" }),
      () =>
        graphql(
          `
            mutation ($input: RegisterInput!) {
              register(input: $input) {
                accessToken
              }
            }
          `,
          {
            input: { username, password: PASSWORD, firstName: "Twin" },
          },
        ),
    );
    expectNoServerError(answers);
    const created = answers.filter((a) => a.status === 201 || a.json?.data?.register);
    expect(created).toHaveLength(1);
    for (const a of answers.filter((x) => !created.includes(x))) {
      expect(a.json?.error?.code ?? a.json?.errors?.[0]?.extensions?.code).toBe("CONFLICT");
    }
    expect(await s.db.prisma.user.count({ where: { username } })).toBe(1);
  });

  it("removal: 12 deletes of the same restaurant at once: one succeeds, the others NOT_FOUND", async () => {
    const r = await newRestaurant(w);
    const answers = await mixed(
      12,
      () => send(s, `/restaurants/${r.id}`, { method: "DELETE", token: w.owner.token }),
      () =>
        graphql(
          `
            mutation ($id: ID!) {
              deleteRestaurant(id: $id)
            }
          `,
          { id: r.id },
          w.owner.token,
        ),
    );
    expectNoServerError(answers);
    const done = answers.filter((a) => a.status === 204 || a.json?.data?.deleteRestaurant);
    expect(done).toHaveLength(1);
    for (const a of answers.filter((x) => !done.includes(x))) {
      expect(a.json?.error?.code ?? a.json?.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    }
    expect(await s.db.prisma.restaurant.count({ where: { id: r.id } })).toBe(0);
  });

  it("badges: 12 grants of the same new badge to the same restaurant at once: one badge, held once", async () => {
    const r = await newRestaurant(w);
    const admins: Account[] = await Promise.all(Array.from({ length: 3 }, () => s.signUp("adm", "ADMIN")));
    const name = `Raced badge ${Math.random().toString(36).slice(2, 6)}`;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        graphql(
          `
            mutation ($id: ID!, $name: String!) {
              grantBadge(restaurantId: $id, name: $name) {
                badge {
                  id
                }
              }
            }
          `,
          { id: r.id, name },
          admins[i % 3].token,
        ),
      ),
    );
    expectAllOk(answers);
    expect(new Set(answers.map((a) => a.json.data.grantBadge.badge.id)).size).toBe(1);
    expect(await s.db.prisma.badge.count({ where: { name } })).toBe(1);
    expect(await s.db.prisma.restaurantBadge.count({ where: { restaurantId: r.id } })).toBe(1);
  });
});
