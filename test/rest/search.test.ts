// The REST shim's new search parameters (issue 31): GET /restaurants and GET /groceries answer the
// legacy item shapes, filtered and ordered by words, distance, opening time and the other filters.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let token: string;

async function get(path: string) {
  const r = await s.fetch(path, { token });
  return { status: r.status, body: await r.json() };
}
const titles = async (path: string) => {
  const r = await get(path);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.map((item: { title: string }) => item.title);
};

beforeAll(async () => {
  s = await startServer();
  token = (await s.signUp("rest")).token;
  const add = (body: Record<string, unknown>) => s.fetch("/restaurants", { method: "POST", token, json: body });
  for (const body of [
    {
      title: "Pizzeria Napoli",
      serves_cuisine: ["Italian"],
      categories: ["family"],
      price_range: ["$$"],
      accepts_reservations: true,
      opening_hours: [{ open: "18:00", close: "23:00" }],
      address: { city: "Lisbon", geo: { latitude: 38.7313, longitude: -9.1393 } },
    },
    {
      title: "Crème Brûlée House",
      serves_cuisine: ["French"],
      categories: ["vegan", "family"],
      price_range: ["$"],
      opening_hours: [{ open: "22:00", close: "02:00" }],
      address: { city: "Lisbon", geo: { latitude: 38.7493, longitude: -9.1393 } },
    },
  ])
    expect((await add(body)).status).toBe(201);
  const grocery = await s.fetch("/groceries", {
    method: "POST",
    token,
    json: { title: "Extra virgin olive oil", categories: ["pantry"] },
  });
  expect(grocery.status).toBe(201);
});
afterAll(async () => s?.close());

describe("GET /restaurants, new parameters", () => {
  it("search: words with relevance, accents, prefixes and one typo; the legacy item shape", async () => {
    const r = await get("/restaurants?search=creme%20brulee");
    expect(r.status).toBe(200);
    expect(r.body.map((i: { title: string }) => i.title)).toEqual(["Crème Brûlée House"]);
    expect(Object.keys(r.body[0]).sort()).toEqual(
      [
        "_id",
        "address",
        "can_home_delever",
        "cover",
        "email",
        "opening_hours",
        "phone",
        "rating",
        "title",
        "url",
        "website",
      ].sort(),
    );
    expect(await titles("/restaurants?search=pizzaria")).toEqual(["Pizzeria Napoli"]);
    expect(await titles("/restaurants?search=itali")).toEqual(["Pizzeria Napoli"]);
    expect(await titles("/restaurants?q=zzer")).toEqual(["Pizzeria Napoli"]);
  });

  it("near, sorted by distance; open_at; the other filters", async () => {
    expect(await titles("/restaurants?latitude=38.7223&longitude=-9.1393&radius_km=5")).toEqual([
      "Pizzeria Napoli",
      "Crème Brûlée House",
    ]);
    expect(await titles("/restaurants?lat=38.7223&lng=-9.1393&radius_km=2")).toEqual(["Pizzeria Napoli"]);
    // Sorted by distance, the words still choose the matches (issue 48).
    expect(
      await titles("/restaurants?search=creme&latitude=38.7223&longitude=-9.1393&radius_km=5&sort=distance"),
    ).toEqual(["Crème Brûlée House"]);
    expect(
      await titles("/restaurants?search=ramen&latitude=38.7223&longitude=-9.1393&radius_km=5&sort=distance"),
    ).toEqual([]);
    expect(await titles("/restaurants?open_at=2026-11-27T23:30:00Z")).toEqual(["Crème Brûlée House"]);
    expect(await titles("/restaurants?accepts_reservations=true")).toEqual(["Pizzeria Napoli"]);
    expect(await titles("/restaurants?price_range=$&price_range=$$$")).toEqual(["Crème Brûlée House"]);
    expect(await titles("/restaurants?categories_all=vegan&categories_all=family")).toEqual(["Crème Brûlée House"]);
    expect(new Set(await titles("/restaurants?cuisines_any=french&cuisines_any=italian"))).toEqual(
      new Set(["Pizzeria Napoli", "Crème Brûlée House"]),
    );
    expect(await titles("/restaurants?min_rating=1")).toEqual([]);
  });

  it("bad values are a 400 that says what to fix", async () => {
    for (const query of [
      "radius_km=500&latitude=1&longitude=1",
      "latitude=1",
      "open_at=yesterday",
      "sort=distance",
      "min_rating=lots",
      "sort=best",
    ]) {
      const r = await get(`/restaurants?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error.message, query).toBeTruthy();
    }
  });
});

describe("GET /groceries, new parameters", () => {
  it("search and category lists", async () => {
    const r = await get("/groceries?search=olive%20oil");
    expect(r.status).toBe(200);
    expect(r.body.map((g: { title: string }) => g.title)).toEqual(["Extra virgin olive oil"]);
    expect(await (async () => (await get("/groceries?search=olve")).body.length)()).toBe(0);
    expect((await get("/groceries?categories_any=pantry&categories_any=dairy")).body.length).toBe(1);
    expect((await get("/groceries?sort=relevance&search=virgin")).body.length).toBe(1);
  });
});
