// A facet value's label is a spelling restaurants (or groceries) with the value have now: the most
// common one, ties to the smallest by character code (migration 20261128210000_facet_labels).
// Before, it was the smallest spelling ever written and never went back: one owner writing
// "BERLIN" relabelled Berlin for everyone, and kept it so after that restaurant moved away.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
const tokens: Record<"alice" | "bob", string> = { alice: "", bob: "" };

async function ok(query: string, variables: Record<string, unknown>, token: string) {
  const r = await s.graphql(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

type Label = { value: string; count: number };
const FACETS = `query($filter: RestaurantFilter) { restaurants(filter: $filter, first: 1) {
  facets { exact cities { value count } cuisines { value count } } } }`;

/** The Berlin and Thai facet values, from the stored counts (no filter) and counted over the matches (a filter every restaurant passes). */
async function berlinAndThai(): Promise<{ city?: Label; cuisine?: Label }> {
  const pick = (list: Label[], key: string) => list.find((v) => v.value.toLowerCase() === key);
  const [stored, counted] = await Promise.all(
    [{}, { acceptsReservations: false }].map(async (filter) => {
      const { facets } = (await ok(FACETS, { filter }, tokens.alice)).restaurants;
      expect(facets.exact).toBe(true);
      return { city: pick(facets.cities, "berlin"), cuisine: pick(facets.cuisines, "thai") };
    }),
  );
  // Every facet shows a value by the same label.
  expect(counted).toEqual(stored);
  return stored;
}

const CREATE = `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateRestaurantInput!) { updateRestaurant(id: $id, input: $input) { id } }`;
const DELETE = `mutation($id: ID!) { deleteRestaurant(id: $id) }`;

const create = async (who: "alice" | "bob", title: string, city: string, cuisine: string) =>
  (await ok(CREATE, { input: { title, cuisines: [cuisine], address: { city } } }, tokens[who])).createRestaurant
    .id as string;
const moveTo = (who: "alice" | "bob", id: string, city: string, cuisine: string) =>
  ok(UPDATE, { id, input: { cuisines: [cuisine], address: { city } } }, tokens[who]);

beforeAll(async () => {
  s = await startServer();
  tokens.alice = (await s.signUp("alice")).token;
  tokens.bob = (await s.signUp("bob")).token;
});
afterAll(async () => s?.close());

describe("facet labels", () => {
  it("are the most common spelling held now: one owner's capitals relabel nothing, and labels follow moves and deletions", async () => {
    const abc = [];
    for (const title of ["A", "B", "C"]) abc.push(await create("alice", title, "Berlin", "Thai"));
    const shouted = await create("bob", "Shouted", "BERLIN", "THAI");
    // "BERLIN" is the smaller spelling by character code, but "Berlin" is more common.
    expect(await berlinAndThai()).toEqual({
      city: { value: "Berlin", count: 4 },
      cuisine: { value: "Thai", count: 4 },
    });

    // The majority changes: the label follows.
    const more = [shouted];
    for (const title of ["D", "E", "F"]) more.push(await create("bob", title, "BERLIN", "THAI"));
    expect(await berlinAndThai()).toEqual({
      city: { value: "BERLIN", count: 7 },
      cuisine: { value: "THAI", count: 7 },
    });

    // One moves away: 3 against 3, a tie, which goes to the smallest by character code.
    await moveTo("bob", more[0], "Hamburg", "Korean");
    expect(await berlinAndThai()).toEqual({
      city: { value: "BERLIN", count: 6 },
      cuisine: { value: "THAI", count: 6 },
    });

    // One is deleted: "Berlin" is the most common again, and the label goes back.
    await ok(DELETE, { id: more[1] }, tokens.bob);
    expect(await berlinAndThai()).toEqual({
      city: { value: "Berlin", count: 5 },
      cuisine: { value: "Thai", count: 5 },
    });

    // Spellings changed without a change of value (no count moves): "BERLIN" 5, "Berlin" 0.
    for (const id of abc) await moveTo("alice", id, "BERLIN", "THAI");
    expect(await berlinAndThai()).toEqual({
      city: { value: "BERLIN", count: 5 },
      cuisine: { value: "THAI", count: 5 },
    });
  });

  it("label grocery categories the same way", async () => {
    const CREATE_GROCERY = `mutation($input: CreateGroceryInput!) { createGrocery(input: $input) { id } }`;
    const add = async (who: "alice" | "bob", title: string, category: string) =>
      (await ok(CREATE_GROCERY, { input: { title, categories: [category] } }, tokens[who])).createGrocery.id as string;
    const categories = async () =>
      (
        await ok(`{ groceries(first: 1) { facets { categories { value count } } } }`, {}, tokens.alice)
      ).groceries.facets.categories.find((v: Label) => v.value.toLowerCase() === "pantry");
    await add("alice", "Rice", "Pantry");
    await add("alice", "Oats", "Pantry");
    const loud = await add("bob", "Beans", "PANTRY");
    expect(await categories()).toEqual({ value: "Pantry", count: 3 });
    await add("bob", "Flour", "PANTRY");
    await add("bob", "Sugar", "PANTRY");
    expect(await categories()).toEqual({ value: "PANTRY", count: 5 });
    // Deleted: 2 against 2, the tie to the smallest by character code; then one more "Pantry".
    await ok(`mutation($id: ID!) { deleteGrocery(id: $id) }`, { id: loud }, tokens.bob);
    expect(await categories()).toEqual({ value: "PANTRY", count: 4 });
    await add("alice", "Salt", "Pantry");
    expect(await categories()).toEqual({ value: "Pantry", count: 5 });
  });
});
