// Open at an instant by opening pattern (migration 20261126080000_opening_patterns, each search
// engine's openPatterns in src/db/<dialect>/search/engine.ts), through the real server: the
// database derives each restaurant's pattern from its zone and hours and follows every write (hours
// changed, zone changed, restaurant deleted); a pattern no restaurant uses goes, so a client
// rewriting its hours cannot make the patterns every open-now search tests grow; and open-now with
// a city is exact whichever index reads it, including at an hour when none of the city is open.
// A search with words or near tests open-at and the city on SQLite's search row copies (migration
// 20261129050000_search_row_filters): they follow the same writes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../../src/db/prisma.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let user: { token: string; id: string };

const PORTO = { latitude: 41.1579, longitude: -8.6291 }; // Europe/Lisbon: UTC+0 in November
const CREATE = `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateRestaurantInput!) { updateRestaurant(id: $id, input: $input) { id } }`;
const SEARCH = `query($filter: RestaurantFilter, $sort: RestaurantSort) {
  restaurants(filter: $filter, sort: $sort, first: 50) { totalCount nodes { title } }
}`;

async function ok(query: string, variables: Record<string, unknown> = {}) {
  const r = await s.graphql(query, variables, user.token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

async function create(
  title: string,
  hours: { open: string; close: string }[],
  address: Record<string, unknown> = { city: "Porto", geo: PORTO },
) {
  return (await ok(CREATE, { input: { title, openingHours: hours, address } })).createRestaurant.id as string;
}

/** Titles open at the instant in Porto (sorted), and the total. */
async function openInPorto(at: string, sort = "TITLE") {
  const data = await ok(SEARCH, { filter: { city: "porto", openAt: at }, sort });
  return { titles: data.restaurants.nodes.map((n: { title: string }) => n.title), total: data.restaurants.totalCount };
}

/** The patterns the database holds: zone and periods. */
async function patterns() {
  const rows = await s.db.prisma.$queryRaw<{ timeZone: string; periods: string }[]>(
    Prisma.sql`SELECT "timeZone", "periods" FROM "OpeningPattern" ORDER BY "timeZone", "periods"`,
  );
  return rows.map((r) => `${r.timeZone} ${r.periods}`);
}

beforeAll(async () => {
  s = await startServer();
  user = await s.signUp("patterns");
});
afterAll(async () => s?.close());

describe("opening patterns", () => {
  it("restaurants with the same zone and hours share one pattern, whatever the order of their periods", async () => {
    const lunchAndDinner = [
      { open: "12:00", close: "15:00" },
      { open: "19:00", close: "23:00" },
    ];
    await create("Porto Lunch One", lunchAndDinner);
    await create("Porto Lunch Two", [...lunchAndDinner].reverse());
    await create("Porto Lunch Three", [...lunchAndDinner, lunchAndDinner[0]!]); // a period twice
    expect(await patterns()).toEqual(["Europe/Lisbon 12:00-15:00,19:00-23:00"]);
    expect(await openInPorto("2026-11-27T13:00:00Z")).toEqual({
      titles: ["Porto Lunch One", "Porto Lunch Three", "Porto Lunch Two"],
      total: 3,
    });
    expect(await openInPorto("2026-11-27T16:00:00Z")).toEqual({ titles: [], total: 0 });
  });

  it("follow changed hours and a changed zone; a pattern left by its last restaurant goes", async () => {
    const id = await create("Porto Night Owl", [{ open: "22:00", close: "04:00" }]);
    expect((await openInPorto("2026-11-28T03:00:00Z")).titles).toEqual(["Porto Night Owl"]);
    // Its hours rewritten 20 times: one pattern at a time, never 20.
    for (let hour = 0; hour < 20; hour++) {
      const open = `${String(hour).padStart(2, "0")}:00`;
      await ok(UPDATE, { id, input: { openingHours: [{ open, close: "23:59" }] } });
    }
    expect(await patterns()).toEqual(["Europe/Lisbon 12:00-15:00,19:00-23:00", "Europe/Lisbon 19:00-23:59"]);
    expect((await openInPorto("2026-11-28T03:00:00Z")).titles).toEqual([]);
    expect((await openInPorto("2026-11-27T19:30:00Z")).titles).toContain("Porto Night Owl");
    // The zone given: 19:30 UTC is 04:30 in Tokyo, closed; 10:30 UTC is 19:30 there, open.
    await ok(UPDATE, { id, input: { address: { city: "Porto", geo: PORTO, timeZone: "Asia/Tokyo" } } });
    expect((await openInPorto("2026-11-27T19:30:00Z")).titles).not.toContain("Porto Night Owl");
    expect((await openInPorto("2026-11-27T10:30:00Z")).titles).toEqual(["Porto Night Owl"]);
    expect(await patterns()).toEqual(["Asia/Tokyo 19:00-23:59", "Europe/Lisbon 12:00-15:00,19:00-23:00"]);
    // No hours: never open, and its pattern goes.
    await ok(UPDATE, { id, input: { openingHours: [] } });
    expect((await openInPorto("2026-11-27T10:30:00Z")).titles).toEqual([]);
    expect(await patterns()).toEqual(["Europe/Lisbon 12:00-15:00,19:00-23:00"]);
  });

  it("words and near searches, with their totals and facets, follow changed hours and a changed city", async () => {
    const id = await create("Porto Quokka Tavern", [{ open: "12:00", close: "15:00" }]);
    /** The titles, total and city facet of "quokka" (and near Porto) open at the instant, in the city. */
    const found = async (at: string, city: string) =>
      Promise.all(
        [
          { search: "quokka" },
          { near: { ...PORTO, radiusKm: 20 } },
          { search: "quokka", near: { ...PORTO, radiusKm: 20 } },
        ].map(async (filter) => {
          const data = await ok(
            `query($filter: RestaurantFilter) { restaurants(filter: $filter, first: 50) {
                totalCount facets { cities { value count } } nodes { title } } }`,
            { filter: { ...filter, openAt: at, city } },
          );
          const titles = data.restaurants.nodes
            .map((n: { title: string }) => n.title)
            .filter((t: string) => t.includes("Quokka"));
          return {
            titles,
            total: data.restaurants.totalCount > 0,
            cities: data.restaurants.facets.cities.map((c: { value: string }) => c.value),
          };
        }),
      );
    const open = { titles: ["Porto Quokka Tavern"], total: true };
    expect(await found("2026-11-27T13:00:00Z", "porto")).toEqual(Array(3).fill({ ...open, cities: ["Porto"] }));
    await ok(UPDATE, { id, input: { openingHours: [{ open: "18:00", close: "23:00" }] } });
    expect((await found("2026-11-27T13:00:00Z", "porto")).map((r) => r.titles)).toEqual([[], [], []]);
    expect(await found("2026-11-27T19:00:00Z", "porto")).toEqual(Array(3).fill({ ...open, cities: ["Porto"] }));
    // Moved to another city's name (same place): found under that city, no longer under Porto.
    await ok(UPDATE, { id, input: { address: { city: "Gaia", geo: PORTO } } });
    expect((await found("2026-11-27T19:00:00Z", "porto")).map((r) => r.titles)).toEqual([[], [], []]);
    expect(await found("2026-11-27T19:00:00Z", "gaia")).toEqual(Array(3).fill({ ...open, cities: ["Gaia"] }));
  });

  it("a deleted restaurant's pattern goes with it when no other restaurant has it", async () => {
    const id = await create("Porto Brunch", [{ open: "09:00", close: "13:00" }]);
    expect(await patterns()).toContain("Europe/Lisbon 09:00-13:00");
    await ok(`mutation($id: ID!) { deleteRestaurant(id: $id) }`, { id });
    expect(await patterns()).not.toContain("Europe/Lisbon 09:00-13:00");
  });

  it("open-now with a city is exact in every order, and empty at once when nothing is open anywhere", async () => {
    // Many restaurants in the city, few open: the page is read from the patterns' index, not by
    // walking the order's index (either way the answer must be the same).
    for (let n = 0; n < 30; n++)
      await create(`Porto Closed ${String(n).padStart(2, "0")}`, [{ open: "06:00", close: "07:00" }]);
    await create("Porto Late Bar", [{ open: "20:00", close: "03:00" }]);
    await create("Lisbon Late Bar", [{ open: "20:00", close: "03:00" }], {
      city: "Lisbon",
      geo: { latitude: 38.7223, longitude: -9.1393 },
    });
    for (const sort of ["TITLE", "NEWEST", "RATING"]) {
      expect(await openInPorto("2026-11-28T02:30:00Z", sort)).toEqual({ titles: ["Porto Late Bar"], total: 1 });
    }
    const all = await ok(SEARCH, { filter: { openAt: "2026-11-28T02:30:00Z" }, sort: "TITLE" });
    expect(all.restaurants.nodes.map((n: { title: string }) => n.title)).toEqual(["Lisbon Late Bar", "Porto Late Bar"]);
    expect((await openInPorto("2026-11-28T06:30:00Z")).total).toBe(30);
    // 03:30 UTC: every pattern here is closed.
    const none = await ok(SEARCH, { filter: { openAt: "2026-11-28T03:30:00Z" } });
    expect(none.restaurants).toEqual({ totalCount: 0, nodes: [] });
  });
});
