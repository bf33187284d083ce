// The last search word is a prefix "as people type", also when it is a whole word: "ramen" finds
// "Ramenya" as well as "Ramen". PostgreSQL drops the prefix of a last word that no other stored
// word starts with (search-sql.ts wordsQuery: a prefix costs its word index more), so these check
// that a word the vocabulary gains later, and words shorter than the vocabulary holds (3 letters),
// still widen the search; and that query and documents lose their accents the same way.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let token: string;

const CREATE = `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`;
const SEARCH = `query($filter: RestaurantFilter) { restaurants(filter: $filter, first: 50) { totalCount nodes { title } } }`;

async function create(input: Record<string, unknown>) {
  const r = await s.graphql(CREATE, { input }, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
}

async function titles(search: string): Promise<string[]> {
  const r = await s.graphql(SEARCH, { filter: { search } }, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  expect(r.data.restaurants.totalCount).toBe(r.data.restaurants.nodes.length);
  return r.data.restaurants.nodes.map((n: { title: string }) => n.title).sort();
}

beforeAll(async () => {
  s = await startServer();
  token = (await s.signUp("prefix")).token;
  await create({ title: "Ramen Stop", description: "Noodles" });
  await create({ title: "Bar Central", description: "Drinks" });
});
afterAll(async () => s?.close());

describe("the last word as a prefix", () => {
  it("finds longer words that start with a whole last word, also ones stored after the first search", async () => {
    expect(await titles("ramen")).toEqual(["Ramen Stop"]);
    await create({ title: "Ramenya Corner", description: "Broth" });
    expect(await titles("ramen")).toEqual(["Ramen Stop", "Ramenya Corner"]);
    expect(await titles("noodles ramen")).toEqual(["Ramen Stop"]);
  });

  it("widens a short last word (shorter than the stored vocabulary's words) to longer ones", async () => {
    expect(await titles("bar")).toEqual(["Bar Central"]);
    await create({ title: "Barbecue Pit", description: "Smoke" });
    expect(await titles("bar")).toEqual(["Bar Central", "Barbecue Pit"]);
  });

  it("widens a last word of two letters, not of one (a one-letter prefix is most of the catalogue)", async () => {
    expect(await titles("ra")).toEqual(["Ramen Stop", "Ramenya Corner"]);
    expect(await titles("r")).toEqual([]);
    await create({ title: "Plan B", description: "Vitamin b and r" });
    expect(await titles("b")).toEqual(["Plan B"]);
    expect(await titles("plan r")).toEqual(["Plan B"]);
  });

  it("takes the accents off the query as off the documents", async () => {
    await create({ title: "Smørrebrød Hus", description: "Søren's open sandwiches" });
    expect(await titles("smørrebrød")).toEqual(["Smørrebrød Hus"]);
    expect(await titles("SØREN")).toEqual(["Smørrebrød Hus"]);
  });
});
