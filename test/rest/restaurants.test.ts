// Contract tests of the restaurant operations of the legacy REST interface, through HTTP, sent
// the way legacy clients send them (JSON, urlencoded forms) and checked field by field.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import {
  ADDRESS_WITH_GEO,
  COMMENT,
  REPORT,
  SEARCH_ITEM,
  expectError,
  expectShape,
  get,
  restaurantDetailSpec,
  restaurantEditedSpec,
  sendForm,
  sendJson,
} from "./legacy.ts";

let s: TestServer;
let owner: { token: string; id: string; username: string };
let other: { token: string; id: string; username: string };
let admin: { token: string; id: string; username: string };

beforeAll(async () => {
  s = await startServer();
  owner = await s.signUp("owner");
  other = await s.signUp("other");
  admin = await s.signUp("adm", "ADMIN");
});
afterAll(async () => s?.close());

const REGISTRATION = {
  title: "Chez Ann",
  logo: "logo.png",
  cover: "cover.jpg",
  url: "https://chez-ann.example",
  categories: ["family", "vegan"],
  accepts_reservations: true,
  serves_cuisine: ["french"],
  star_rating: 4.5,
  opening_hours: [
    { open: "08:00", close: "14:00" },
    { open: "18:00", close: "01:30" },
  ],
  payment_methods: ["cash", "card"],
  can_home_delever: true,
  photos: ["a.jpg", "b.jpg"],
  email: "ann@chez-ann.example",
  phone: "+33 1 23 45 67 89",
  website: "https://chez-ann.example/menu",
};

async function addRestaurant(fields: Record<string, unknown> = {}, token = owner.token) {
  const a = await sendJson(s, "POST", "/restaurants", { ...REGISTRATION, ...fields }, token);
  expect(a.status, JSON.stringify(a.body)).toBe(201);
  return a.body as any;
}

describe("Add restaurant: POST /restaurants", () => {
  it("registers from JSON and answers 201 with the detail, field by field", async () => {
    const a = await sendJson(s, "POST", "/restaurants", REGISTRATION, owner.token);
    expect(a.status).toBe(201);
    expectShape(a.body, restaurantDetailSpec());
    expect(a.body).toMatchObject({
      title: "Chez Ann",
      logo: "logo.png",
      url: "https://chez-ann.example",
      type: [],
      categories: ["family", "vegan"],
      accepts_reservations: "true",
      serves_cuisine: ["french"],
      star_rating: "4.5",
      opening_hours: ["08:00-14:00", "18:00-01:30"],
      payment_methods: ["cash", "card"],
      can_home_delever: true,
      price_range: [],
      photos: ["a.jpg", "b.jpg"],
      contact: { email: "ann@chez-ann.example", phone: "+33 1 23 45 67 89" },
      owner: {
        user_id: owner.id,
        user_username: owner.username,
        user_first_name: "owner",
        user_avatar: null,
        user_rating: null,
      },
      badges: [],
      comments: null,
    });
    expect(a.body.address.city).toBeNull();
  });

  it("registers from a urlencoded form: repeated keys, key[], JSON-array text, booleans and numbers as text", async () => {
    const body = [
      "title=Form+Place",
      "categories=brunch&categories=cafe",
      "serves_cuisine[]=thai",
      "serves_cuisine[]=lao",
      `payment_methods=${encodeURIComponent('["cash","card"]')}`,
      "accepts_reservations=false",
      "can_home_delever=1",
      "star_rating=3",
      "opening_hours[0][open]=09:00&opening_hours[0][close]=17:00",
      "opening_hours[1]=19:00-23:00",
    ].join("&");
    const res = await s.fetch("/restaurants", {
      method: "POST",
      token: owner.token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    const created = (await res.json()) as any;
    expect(res.status, JSON.stringify(created)).toBe(201);
    expectShape(created, restaurantDetailSpec());
    expect(created).toMatchObject({
      title: "Form Place",
      categories: ["brunch", "cafe"],
      serves_cuisine: ["thai", "lao"],
      payment_methods: ["cash", "card"],
      accepts_reservations: "false",
      can_home_delever: true,
      star_rating: "3",
      opening_hours: ["09:00-17:00", "19:00-23:00"],
    });
  });

  it("refuses bad input with 400 naming the legacy field, and creates nothing", async () => {
    const before = await s.db.prisma.restaurant.count();
    expectError(
      await sendJson(s, "POST", "/restaurants", { ...REGISTRATION, title: undefined }, owner.token),
      400,
      "BAD_USER_INPUT",
      /^title is required$/,
    );
    expectError(
      await sendForm(s, "POST", "/restaurants", { title: "X", accepts_reservations: "maybe" }, owner.token),
      400,
      "BAD_USER_INPUT",
      /accepts_reservations must be true or false/,
    );
    expectError(
      await sendForm(s, "POST", "/restaurants", { title: "X", star_rating: "four" }, owner.token),
      400,
      "BAD_USER_INPUT",
      /star_rating must be a number/,
    );
    expectError(
      await sendForm(s, "POST", "/restaurants", { title: "X", star_rating: "1e400" }, owner.token),
      400,
      "BAD_USER_INPUT",
      /star_rating must be a number/,
    );
    const range = await sendJson(s, "POST", "/restaurants", { title: "X", star_rating: 7 }, owner.token);
    expectError(range, 400, "BAD_USER_INPUT", /star_rating/);
    expect(range.body.error.message).not.toMatch(/starRating/);
    const hours = await sendJson(
      s,
      "POST",
      "/restaurants",
      { title: "X", opening_hours: [{ open: "25:00", close: "26:00" }] },
      owner.token,
    );
    expectError(hours, 400, "BAD_USER_INPUT", /opening_hours/);
    expect(hours.body.error.message).not.toMatch(/openingHours|\$input/);
    expectError(
      await sendJson(s, "POST", "/restaurants", { title: "X", can_home_delever: "often" }, owner.token),
      400,
      "BAD_USER_INPUT",
      /can_home_delever/,
    );
    expect(await s.db.prisma.restaurant.count()).toBe(before);
  });

  // A url that was not a web address used to get 400: that refusal was the bug (issue 14). The
  // spec types url as a String; the original documentation's example is the slug below.
  it("takes url as free text, such as the original documentation's slug; website keeps its check", async () => {
    const slug = await sendJson(
      s,
      "POST",
      "/restaurants",
      { title: "Kababish", url: "kababish-bangalore" },
      owner.token,
    );
    expect(slug.status, JSON.stringify(slug.body)).toBe(201);
    expect(slug.body.url).toBe("kababish-bangalore");
    const form = await sendForm(s, "PUT", `/restaurants/${slug.body._id}`, { url: "user friendly url" }, owner.token);
    expect(form.status, JSON.stringify(form.body)).toBe(200);
    expect(form.body.url).toBe("user friendly url");
    expect((await get(s, `/restaurants/${slug.body._id}`, owner.token)).body.url).toBe("user friendly url");
    expectError(
      await sendJson(s, "POST", "/restaurants", { title: "X", url: "u".repeat(2001) }, owner.token),
      400,
      "BAD_USER_INPUT",
      /url.*2000/,
    );
    expectError(
      await sendJson(s, "POST", "/restaurants", { title: "X", website: "not a web address" }, owner.token),
      400,
      "BAD_USER_INPUT",
      /website/,
    );
  });

  it("answers 401 without a token and creates nothing", async () => {
    const before = await s.db.prisma.restaurant.count();
    expectError(await sendJson(s, "POST", "/restaurants", REGISTRATION), 401, "UNAUTHENTICATED");
    expect(await s.db.prisma.restaurant.count()).toBe(before);
  });
});

describe("Get Restaurant: GET /restaurants/:restaurant_id", () => {
  it("answers the detail with badges (recieved) and the latest comment as one object", async () => {
    const r = await addRestaurant({ title: "Badged" });
    const granted = await s.graphql(
      `mutation($id: ID!) { grantBadge(restaurantId: $id, name: "Hygiene 5 stars", cover: "hygiene.png") { receivedAt } }`,
      { id: r._id },
      admin.token,
    );
    expect(granted.errors).toBeUndefined();
    await sendJson(s, "PUT", `/restaurants/${r._id}/comments`, { title: "First", body: "ok", rating: 3 }, other.token);
    await sendJson(
      s,
      "PUT",
      `/restaurants/${r._id}/comments`,
      { title: "Second", body: "great food", rating: 5 },
      admin.token,
    );

    const a = await get(s, `/restaurants/${r._id}`, other.token);
    expect(a.status).toBe(200);
    expectShape(a.body, restaurantDetailSpec({ badges: true, comment: true }));
    expect(a.body.badges).toEqual([
      {
        badge_id: expect.any(String),
        badge_name: "Hygiene 5 stars",
        badge_cover: "hygiene.png",
        recieved: granted.data.grantBadge.receivedAt,
      },
    ]);
    expect(a.body.comments).toEqual({
      user_id: admin.id,
      user_avatar: null,
      user_username: admin.username,
      user_first_name: "adm",
      user_rating: null,
      comment: "great food",
      rating: 5,
    });
    // The owner's rating is the mean of the ratings of the restaurants they own.
    expect(a.body.owner.user_rating).toBe(4);
  });

  it("answers 404 for an unknown id, and 401 without a token", async () => {
    expectError(await get(s, "/restaurants/no-such-id", owner.token), 404, "NOT_FOUND");
    const r = await addRestaurant();
    expectError(await get(s, `/restaurants/${r._id}`), 401, "UNAUTHENTICATED");
  });
});

describe("Edit Restaurant / Report Restaurant: PUT /restaurants/:restaurant_id", () => {
  it("edits without reason fields: 200 with the detail minus badges and comments; only given fields change", async () => {
    const r = await addRestaurant({ title: "Before" });
    const a = await sendJson(
      s,
      "PUT",
      `/restaurants/${r._id}`,
      { title: "After", star_rating: "2.5", type: ["bistro"], price_range: ["$$"], contact: { phone: "555" } },
      owner.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expectShape(a.body, restaurantEditedSpec());
    expect(a.body).toMatchObject({
      _id: r._id,
      title: "After",
      star_rating: "2.5",
      type: ["bistro"],
      price_range: ["$$"],
      categories: ["family", "vegan"],
      contact: { email: "ann@chez-ann.example", phone: "555" },
    });
    expect(a.body).not.toHaveProperty("badges");
    expect(a.body).not.toHaveProperty("comments");
  });

  it("edits the address from bracketed form keys, geo numbers as text", async () => {
    const r = await addRestaurant();
    const a = await sendForm(
      s,
      "PUT",
      `/restaurants/${r._id}/`,
      {
        "address[addressLine1]": "1 rue de la Paix",
        "address[city]": "Paris",
        "address[country]": "France",
        "address[geo][latitude]": "48.8686",
        "address[geo][longitude]": "2.3314",
        accepts_reservations: "0",
      },
      owner.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expectShape(a.body, restaurantEditedSpec(ADDRESS_WITH_GEO));
    expect(a.body.address).toMatchObject({
      addressLine1: "1 rue de la Paix",
      city: "Paris",
      country: "France",
      geo: { latitude: 48.8686, longitude: 2.3314 },
    });
    expect(a.body.accepts_reservations).toBe("false");
  });

  it("refuses someone else's edit with 403 and changes nothing; 404 for an unknown id", async () => {
    const r = await addRestaurant({ title: "Mine" });
    expectError(await sendJson(s, "PUT", `/restaurants/${r._id}`, { title: "Theirs" }, other.token), 403, "FORBIDDEN");
    expect((await get(s, `/restaurants/${r._id}`, owner.token)).body.title).toBe("Mine");
    expectError(await sendJson(s, "PUT", "/restaurants/nope", { title: "X" }, owner.token), 404, "NOT_FOUND");
  });

  it("is Report when reason_type is in the body: 201 with the report; a repeat changes nothing", async () => {
    const r = await addRestaurant({ title: "Reported" });
    const a = await sendJson(
      s,
      "PUT",
      `/restaurants/${r._id}`,
      { reason_type: "spam", reason_body: "ads only", title: "Hacked" },
      other.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expectShape(a.body, REPORT);
    expect(a.body).toMatchObject({
      target_type: "restaurant",
      target_id: r._id,
      reason_type: "spam",
      reason_body: "ads only",
      status: "open",
      created: true,
    });
    // Not an edit: the title is unchanged.
    expect((await get(s, `/restaurants/${r._id}`, owner.token)).body.title).toBe("Reported");

    const again = await sendForm(s, "PUT", `/restaurants/${r._id}`, { reason_type: "other" }, other.token);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ _id: a.body._id, reason_type: "spam", created: false });
    expect(await s.db.prisma.report.count({ where: { targetId: r._id } })).toBe(1);
  });

  it("is Report when reason_type or reason_body is in the query string", async () => {
    const r = await addRestaurant();
    const a = await sendJson(s, "PUT", `/restaurants/${r._id}?reason_type=wrong+information`, {}, other.token);
    expect(a.status).toBe(201);
    expect(a.body.reason_type).toBe("wrong information");
    expect(a.body.reason_body).toBe("");

    // reason_body alone still means Report, which needs a reason_type: 400, and no edit.
    const b = await sendJson(s, "PUT", `/restaurants/${r._id}?reason_body=bad`, { title: "Changed" }, owner.token);
    expectError(b, 400, "BAD_USER_INPUT", /reason_type is required/);
    expect((await get(s, `/restaurants/${r._id}`, owner.token)).body.title).toBe("Chez Ann");
  });
});

describe("Order Recipe: PUT /restaurants/order", () => {
  it("places the recipe (JSON) with quantity 1 by default: 201 with the order; not an edit of a restaurant named order", async () => {
    const r = await addRestaurant();
    const a = await sendJson(
      s,
      "PUT",
      "/restaurants/order",
      { restaurant_id: r._id, recipe: "Ratatouille" },
      other.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expectShape(a.body, {
      _id: "string",
      restaurant_id: "string",
      recipe: "string",
      quantity: "integer",
      created_at: "string",
    });
    expect(a.body).toMatchObject({ restaurant_id: r._id, recipe: "Ratatouille", quantity: 1 });
  });

  it("accepts a form with item_id for recipe and quantity as text, also under /v1 and with a trailing slash", async () => {
    const r = await addRestaurant();
    const a = await sendForm(
      s,
      "PUT",
      "/v1/restaurants/order/",
      { restaurant_id: r._id, item_id: "Soup", quantity: "3" },
      other.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(a.body).toMatchObject({ recipe: "Soup", quantity: 3 });
    const orders = await s.graphql(`{ myOrders { nodes { recipe quantity restaurant { id } } } }`, {}, other.token);
    expect(orders.data.myOrders.nodes).toContainEqual({ recipe: "Soup", quantity: 3, restaurant: { id: r._id } });
  });

  it("refuses missing fields by their legacy names, and an unknown restaurant with 404", async () => {
    expectError(
      await sendJson(s, "PUT", "/restaurants/order", {}, other.token),
      400,
      "BAD_USER_INPUT",
      /restaurant_id is required; recipe is required/,
    );
    expectError(
      await sendJson(s, "PUT", "/restaurants/order", { restaurant_id: "nope", recipe: "X" }, other.token),
      404,
      "NOT_FOUND",
    );
    expectError(
      await sendForm(s, "PUT", "/restaurants/order", { restaurant_id: "x", recipe: "X", quantity: "2.5" }, other.token),
      400,
      "BAD_USER_INPUT",
      /quantity must be a whole number/,
    );
  });
});

describe("Comment Restaurant and Get Comments: /restaurants/:restaurant_id/comments", () => {
  it("comments from a form (rating as text): 201 with the comment, rating a string", async () => {
    const r = await addRestaurant();
    const a = await sendForm(
      s,
      "PUT",
      `/restaurants/${r._id}/comments`,
      { title: "Nice", body: "Loved it", rating: "4" },
      other.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expectShape(a.body, COMMENT);
    expect(a.body).toMatchObject({
      user: { _id: other.id, username: other.username, first_name: "other" },
      title: "Nice",
      body: "Loved it",
      rating: "4",
    });
  });

  it("refuses a bad rating naming the field; 404 for an unknown restaurant", async () => {
    const r = await addRestaurant();
    expectError(
      await sendForm(s, "PUT", `/restaurants/${r._id}/comments`, { title: "t", body: "b", rating: "4.5" }, other.token),
      400,
      "BAD_USER_INPUT",
      /^rating must be a whole number/,
    );
    expectError(
      await sendJson(s, "PUT", `/restaurants/${r._id}/comments`, { title: "t", body: "b", rating: 9 }, other.token),
      400,
      "BAD_USER_INPUT",
      /rating/,
    );
    expectError(
      await sendJson(s, "PUT", `/restaurants/${r._id}/comments`, { title: "t", rating: 3 }, other.token),
      400,
      "BAD_USER_INPUT",
      /^body is required$/,
    );
    expectError(
      await sendJson(s, "PUT", `/restaurants/nope/comments`, { title: "t", body: "b", rating: 3 }, other.token),
      404,
      "NOT_FOUND",
    );
    expect(await s.db.prisma.comment.count({ where: { restaurantId: r._id } })).toBe(0);
  });

  it("lists the comments newest first in the documented object", async () => {
    const r = await addRestaurant({ title: "Commented", description: "A small place" });
    await sendJson(s, "PUT", `/restaurants/${r._id}/comments`, { title: "one", body: "1", rating: 2 }, other.token);
    await sendJson(s, "PUT", `/restaurants/${r._id}/comments`, { title: "two", body: "2", rating: 5 }, admin.token);
    const a = await get(s, `/restaurants/${r._id}/comments`, owner.token);
    expect(a.status).toBe(200);
    expectShape(a.body, { _id: "string", title: "string", description: "string|null", comments: [COMMENT] });
    expect(a.body).toMatchObject({ _id: r._id, title: "Commented", description: "A small place" });
    expect(a.body.comments.map((c: any) => [c.title, c.rating])).toEqual([
      ["two", "5"],
      ["one", "2"],
    ]);
    const limited = await get(s, `/restaurants/${r._id}/comments?limit=1`, owner.token);
    expect(limited.body.comments.map((c: any) => c.title)).toEqual(["two"]);
    const next = await get(s, `/restaurants/${r._id}/comments?limit=1&offset=1`, owner.token);
    expect(next.body.comments.map((c: any) => c.title)).toEqual(["one"]);
    expectError(await get(s, "/restaurants/nope/comments", owner.token), 404, "NOT_FOUND");
  });
});

describe("Search restaurants: GET /restaurants", () => {
  it("answers an array of search items, with filters, sort and paging from the query string", async () => {
    const tag = `s${Date.now().toString(36)}`;
    const a = await addRestaurant({ title: `${tag} Alpha`, can_home_delever: false, serves_cuisine: ["thai"] });
    const b = await addRestaurant({ title: `${tag} Bravo`, can_home_delever: true, categories: ["late night"] });
    await sendJson(
      s,
      "PUT",
      `/restaurants/${a._id}`,
      { address: { city: "Lyon", geo: { latitude: 45.76, longitude: 4.83 } } },
      owner.token,
    );
    await sendJson(s, "PUT", `/restaurants/${b._id}/comments`, { title: "t", body: "b", rating: 4 }, other.token);
    await sendJson(s, "PUT", `/restaurants/${b._id}/comments`, { title: "t", body: "b", rating: 1 }, admin.token);

    const all = await get(s, `/restaurants?q=${tag}&sort=title`, other.token);
    expect(all.status).toBe(200);
    expect(all.body.map((r: any) => r.title)).toEqual([`${tag} Alpha`, `${tag} Bravo`]);
    expectShape(all.body[0], SEARCH_ITEM(ADDRESS_WITH_GEO));
    expectShape(all.body[1], SEARCH_ITEM());
    expect(all.body[0]).toMatchObject({
      _id: a._id,
      url: "https://chez-ann.example",
      cover: "cover.jpg",
      opening_hours: [
        { open: "08:00", close: "14:00" },
        { open: "18:00", close: "01:30" },
      ],
      can_home_delever: false,
      email: "ann@chez-ann.example",
      phone: "+33 1 23 45 67 89",
      website: "https://chez-ann.example/menu",
      rating: null,
    });
    expect(all.body[0].address).toMatchObject({ city: "Lyon", geo: { latitude: 45.76, longitude: 4.83 } });
    expect(all.body[1].rating).toBe(2.5);

    const delivering = await get(s, `/restaurants?q=${tag}&can_home_delever=1`, other.token);
    expect(delivering.body.map((r: any) => r._id)).toEqual([b._id]);
    expect(
      (await get(s, `/restaurants?q=${tag}&can_home_delever=false`, other.token)).body.map((r: any) => r._id),
    ).toEqual([a._id]);
    expect((await get(s, `/restaurants?q=${tag}&city=lyon`, other.token)).body.map((r: any) => r._id)).toEqual([a._id]);
    expect((await get(s, `/restaurants?q=${tag}&cuisine=THAI`, other.token)).body.map((r: any) => r._id)).toEqual([
      a._id,
    ]);
    expect(
      (await get(s, `/restaurants?q=${tag}&category=late%20night`, other.token)).body.map((r: any) => r._id),
    ).toEqual([b._id]);
    expect((await get(s, `/restaurants?q=${tag}&sort=rating`, other.token)).body[0]._id).toBe(b._id);
    const page = await get(s, `/restaurants?q=${tag}&sort=title&limit=1&offset=1`, other.token);
    expect(page.body.map((r: any) => r._id)).toEqual([b._id]);
  });

  it("refuses bad search parameters with 400 naming them", async () => {
    expectError(
      await get(s, "/restaurants?sort=best", other.token),
      400,
      "BAD_USER_INPUT",
      /sort must be one of relevance, distance, rating, title, newest/,
    );
    expectError(
      await get(s, "/restaurants?limit=many", other.token),
      400,
      "BAD_USER_INPUT",
      /limit must be a whole number/,
    );
    const tooMany = await get(s, "/restaurants?limit=101", other.token);
    expectError(tooMany, 400, "BAD_USER_INPUT", /limit/);
    expect(tooMany.body.error.message).not.toMatch(/\bfirst\b/);
    expectError(
      await get(s, "/restaurants?can_home_delever=perhaps", other.token),
      400,
      "BAD_USER_INPUT",
      /can_home_delever/,
    );
  });

  it("answers 20 items by default", async () => {
    for (let i = 0; i < 21; i++) await addRestaurant({ title: `Bulk ${i}` });
    expect((await get(s, "/restaurants?q=bulk", other.token)).body).toHaveLength(20);
  });
});

describe("Remove Restaurant: DELETE /restaurants/:restaurant_id", () => {
  it("refuses someone else with 403, removes for the owner with 204 and no body, then 404", async () => {
    const r = await addRestaurant();
    expectError(await sendJson(s, "DELETE", `/restaurants/${r._id}`, undefined, other.token), 403, "FORBIDDEN");
    const a = await sendJson(s, "DELETE", `/restaurants/${r._id}/`, undefined, owner.token);
    expect(a.status).toBe(204);
    expect(a.body).toBe("");
    expectError(await get(s, `/restaurants/${r._id}`, owner.token), 404, "NOT_FOUND");
    expectError(await sendJson(s, "DELETE", `/restaurants/${r._id}`, undefined, owner.token), 404, "NOT_FOUND");
  });

  it("lets an admin remove anyone's restaurant", async () => {
    const r = await addRestaurant();
    expect((await sendJson(s, "DELETE", `/v1/restaurants/${r._id}`, undefined, admin.token)).status).toBe(204);
  });
});
