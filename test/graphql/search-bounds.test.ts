// The bound on a part of a title to find (issue 48): GraphQL's filter.text and filter.title need 3
// characters, the length the title indexes find (a shorter one is tested on every title, the one
// search whose work grows with the catalogue); the legacy REST q and title keep their meaning at
// every length. Through the real server, on the database under test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { get } from "../rest/legacy.ts";
import { statusForCode } from "../../src/contract/error-codes.ts";

let s: TestServer;
let user: { token: string; id: string };

const RESTAURANTS = `query($filter: RestaurantFilter) { restaurants(filter: $filter, first: 50) { totalCount nodes { title } } }`;
const GROCERIES = `query($filter: GroceryFilter) { groceries(filter: $filter, first: 50) { totalCount nodes { title } } }`;

beforeAll(async () => {
  s = await startServer();
  user = await s.signUp("bounds");
  const create = async (type: "Restaurant" | "Grocery", title: string) => {
    const r = await s.graphql(
      `mutation($input: Create${type}Input!) { create${type}(input: $input) { id } }`,
      { input: { title } },
      user.token,
    );
    expect(r.errors).toBeUndefined();
  };
  for (const title of ["Zazie Bistro", "Pizza Corner", "Quiet Tea Room"]) await create("Restaurant", title);
  for (const title of ["Oxtail Soup", "Box of Dates", "Green Tea"]) await create("Grocery", title);
});

afterAll(async () => {
  await s?.close();
});

describe("a part of a title shorter than 3 characters", () => {
  it.each([
    ["restaurants", RESTAURANTS, { text: "z" }, "filter.text"],
    ["restaurants", RESTAURANTS, { text: " zz " }, "filter.text"],
    ["restaurants, with words", RESTAURANTS, { text: "pi", search: "pizza" }, "filter.text"],
    ["groceries", GROCERIES, { title: "ox" }, "filter.title"],
  ])(
    "is refused on %s with SEARCH_TEXT_TOO_SHORT (a 400 in the table of codes) naming the bound",
    async (_, query, filter, field) => {
      const r = await s.graphql(query, { filter }, user.token);
      expect(r.errors?.[0]?.extensions?.code).toBe("SEARCH_TEXT_TOO_SHORT");
      expect(r.errors?.[0]?.message).toContain(`${field} must have at least 3 characters`);
      expect(r.errors?.[0]?.extensions?.details).toEqual({ field, minimum: 3 });
      expect(r.data ?? null).toBeNull();
      expect(statusForCode("SEARCH_TEXT_TOO_SHORT")).toBe(400);
    },
  );

  it("3 characters are found, and an empty one still means no filter", async () => {
    const found = await s.graphql(RESTAURANTS, { filter: { text: "zaz" } }, user.token);
    expect(found.errors).toBeUndefined();
    expect(found.data.restaurants.nodes.map((n: { title: string }) => n.title)).toEqual(["Zazie Bistro"]);
    const all = await s.graphql(RESTAURANTS, { filter: { text: "" } }, user.token);
    expect(all.errors).toBeUndefined();
    expect(all.data.restaurants.totalCount).toBe(3);
    const groceries = await s.graphql(GROCERIES, { filter: { title: "box" } }, user.token);
    expect(groceries.data.groceries.nodes.map((n: { title: string }) => n.title)).toEqual(["Box of Dates"]);
  });
});

describe("the legacy REST interface keeps its substring at every length", () => {
  it("q of one or two characters finds the restaurants whose title holds it", async () => {
    const one = await get(s, "/restaurants?q=z&sort=title", user.token);
    expect(one.status).toBe(200);
    expect(one.body.map((r: { title: string }) => r.title)).toEqual(["Pizza Corner", "Zazie Bistro"]);
    const two = await get(s, "/restaurants?q=ea", user.token);
    expect(two.status).toBe(200);
    expect(two.body.map((r: { title: string }) => r.title)).toEqual(["Quiet Tea Room"]);
  });

  it("title of one or two characters finds the groceries whose title holds it", async () => {
    const one = await get(s, "/groceries?title=x", user.token);
    expect(one.status).toBe(200);
    expect(one.body.map((g: { title: string }) => g.title).sort()).toEqual(["Box of Dates", "Oxtail Soup"]);
    const two = await get(s, "/groceries?title=ea", user.token);
    expect(two.body.map((g: { title: string }) => g.title)).toEqual(["Green Tea"]);
  });
});
