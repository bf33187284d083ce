// Contract tests of the grocery operations of the legacy REST interface, through HTTP, sent the
// way legacy clients send them (JSON, urlencoded forms, multipart with a cover file).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { isStored } from "../helpers/upload-store.ts";
import { GROCERY, PNG, REPORT, expectError, expectShape, get, sendForm, sendJson, sendMultipart } from "./legacy.ts";

let s: TestServer;
let owner: { token: string; id: string };
let other: { token: string; id: string };

beforeAll(async () => {
  s = await startServer();
  owner = await s.signUp("grocer");
  other = await s.signUp("shopper");
});
afterAll(async () => s?.close());

const cover = (content: Uint8Array = PNG) => ({ name: "cover", filename: "apple.png", type: "image/png", content });

async function addGrocery(fields: Record<string, unknown> = {}, token = owner.token) {
  const a = await sendJson(s, "POST", "/groceries", { title: "Apple", ...fields }, token);
  expect(a.status, JSON.stringify(a.body)).toBe(201);
  return a.body as any;
}

const onList = async (token: string) =>
  (await s.graphql(`{ myShoppingList { nodes { grocery { id } quantity } } }`, {}, token)).data.myShoppingList
    .nodes as {
    grocery: { id: string };
    quantity: number;
  }[];

describe("Add grocery: POST /groceries", () => {
  it("adds from multipart with a cover file: 201 with the grocery; the cover is a stored file name", async () => {
    const a = await sendMultipart(
      s,
      "POST",
      "/groceries",
      {
        title: "Granny Smith",
        description: "green apple",
        also_known_as: "",
        "metric_units[]": ["kg", "piece"],
        categories: '["fruit","fresh"]',
      },
      [cover()],
      owner.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expectShape(a.body, GROCERY);
    expect(a.body).toMatchObject({
      title: "Granny Smith",
      description: "green apple",
      also_known_as: "",
      metric_units: ["kg", "piece"],
      categories: ["fruit", "fresh"],
    });
    expect(a.body.cover).toMatch(/\.png$/);
    expect(a.body.cover).not.toBe("apple.png");
    expect(await isStored(s.store, a.body.cover)).toBe(true);
    const served = await s.fetch(`/uploads/${a.body.cover}`);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(PNG))).toBe(true);
  });

  it("takes the access token from a multipart field", async () => {
    const a = await sendMultipart(s, "POST", "/groceries", { title: "Token in part", access_token: owner.token });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
  });

  it("adds from JSON and from a form (repeated keys) without a cover", async () => {
    const json = await sendJson(
      s,
      "POST",
      "/groceries",
      { title: "Pear", metric_units: ["kg"], categories: ["fruit"] },
      owner.token,
    );
    expect(json.status).toBe(201);
    expectShape(json.body, GROCERY);
    expect(json.body).toMatchObject({
      title: "Pear",
      cover: null,
      description: "",
      also_known_as: "",
      metric_units: ["kg"],
      categories: ["fruit"],
    });
    const form = await sendForm(
      s,
      "POST",
      "/groceries",
      { title: "Plum", categories: ["fruit", "stone fruit"], also_known_as: "damson" },
      owner.token,
    );
    expect(form.status).toBe(201);
    expect(form.body).toMatchObject({ title: "Plum", categories: ["fruit", "stone fruit"], also_known_as: "damson" });
  });

  it("refuses bad input by legacy names and stores nothing", async () => {
    const before = await s.db.prisma.grocery.count();
    expectError(
      await sendJson(s, "POST", "/groceries", { description: "no title" }, owner.token),
      400,
      "BAD_USER_INPUT",
      /^title is required$/,
    );
    expectError(
      await sendJson(s, "POST", "/groceries", { title: "X", cover: "apple.png" }, owner.token),
      400,
      "BAD_USER_INPUT",
      /cover must be a file/,
    );
    const aka = await sendJson(s, "POST", "/groceries", { title: "X", also_known_as: "x".repeat(201) }, owner.token);
    expectError(aka, 400, "BAD_USER_INPUT", /also_known_as/);
    expect(aka.body.error.message).not.toMatch(/alsoKnownAs/);
    const notImage = await sendMultipart(
      s,
      "POST",
      "/groceries",
      { title: "X" },
      [cover(new TextEncoder().encode("not an image"))],
      owner.token,
    );
    expectError(notImage, 400, "BAD_USER_INPUT", /cover/);
    expect(await s.db.prisma.grocery.count()).toBe(before);
  });

  it("refuses a cover above the size limit with 413, and two files with 413", async () => {
    const big = new Uint8Array(5 * 1024 * 1024 + 10);
    big.set(PNG);
    expectError(
      await sendMultipart(s, "POST", "/groceries", { title: "Big" }, [cover(big)], owner.token),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    const two = await sendMultipart(
      s,
      "POST",
      "/groceries",
      { title: "Two" },
      [cover(), { ...cover(), name: "photo" }],
      owner.token,
    );
    expectError(two, 413, "PAYLOAD_TOO_LARGE");
    expect(await s.db.prisma.grocery.count({ where: { title: { in: ["Big", "Two"] } } })).toBe(0);
  });
});

describe("Search groceries: GET /groceries and Get grocery: GET groceries/:grocery_id/", () => {
  it("searches by title (case-insensitive part) and category name, newest first, with paging", async () => {
    const tag = `g${Date.now().toString(36)}`;
    const first = await addGrocery({ title: `${tag} Basmati Rice`, categories: ["grains"] });
    const second = await addGrocery({ title: `${tag} Brown rice`, categories: ["Grains", "organic"] });
    const a = await get(s, `/groceries?title=${tag}%20B`, other.token);
    expect(a.status).toBe(200);
    expect(a.body.map((g: any) => g._id)).toEqual([second._id, first._id]);
    for (const g of a.body) expectShape(g, GROCERY);
    expect(
      (await get(s, `/groceries?title=${tag.toUpperCase()}&categories=organic`, other.token)).body.map(
        (g: any) => g._id,
      ),
    ).toEqual([second._id]);
    expect((await get(s, `/groceries?title=${tag}&limit=1&offset=1`, other.token)).body.map((g: any) => g._id)).toEqual(
      [first._id],
    );
    expectError(await get(s, "/groceries?limit=0", other.token), 400, "BAD_USER_INPUT", /limit/);
    expectError(await get(s, "/groceries?offset=-1", other.token), 400, "BAD_USER_INPUT", /offset/);
  });

  it("gets one grocery with and without the trailing slash, under /v1; 404 for an unknown id", async () => {
    const g = await addGrocery({ title: "Lemon", metric_units: ["piece"] });
    for (const path of [`/groceries/${g._id}/`, `/groceries/${g._id}`, `/v1/groceries/${g._id}/`]) {
      const a = await get(s, path, other.token);
      expect(a.status, path).toBe(200);
      expectShape(a.body, GROCERY);
      expect(a.body).toEqual(g);
    }
    expectError(await get(s, "/groceries/nope/", other.token), 404, "NOT_FOUND");
  });
});

describe("Edit grocery: PATCH /groceries", () => {
  it("finds the target by _id in the body: 201 with the changed grocery; only given fields change", async () => {
    const g = await addGrocery({ title: "Tomatoe", categories: ["veg"], description: "red" });
    const a = await sendJson(
      s,
      "PATCH",
      "/groceries",
      { _id: g._id, title: "Tomato", metric_units: ["kg"] },
      owner.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expectShape(a.body, GROCERY);
    expect(a.body).toMatchObject({
      _id: g._id,
      title: "Tomato",
      metric_units: ["kg"],
      categories: ["veg"],
      description: "red",
    });
  });

  it("accepts id or grocery_id in the query string, and a new cover by multipart", async () => {
    const g = await addGrocery({ title: "Kiwi" });
    const byQuery = await sendForm(s, "PATCH", `/groceries?id=${g._id}`, { description: "fuzzy" }, owner.token);
    expect(byQuery.status).toBe(201);
    expect(byQuery.body.description).toBe("fuzzy");
    const withCover = await sendMultipart(
      s,
      "PATCH",
      `/groceries/?grocery_id=${g._id}`,
      { also_known_as: "kiwifruit" },
      [cover()],
      owner.token,
    );
    expect(withCover.status, JSON.stringify(withCover.body)).toBe(201);
    expect(withCover.body).toMatchObject({ _id: g._id, also_known_as: "kiwifruit", description: "fuzzy" });
    expect(withCover.body.cover).toMatch(/\.png$/);
    const removed = await sendJson(s, "PATCH", "/groceries", { grocery_id: g._id, remove_cover: "true" }, owner.token);
    expect(removed.body.cover).toBeNull();
  });

  it("answers 400 without a target, 404 for an unknown one, 403 for someone else's (unchanged)", async () => {
    expectError(
      await sendJson(s, "PATCH", "/groceries", { title: "X" }, owner.token),
      400,
      "BAD_USER_INPUT",
      /^_id is required$/,
    );
    expectError(await sendJson(s, "PATCH", "/groceries", { _id: "nope", title: "X" }, owner.token), 404, "NOT_FOUND");
    const g = await addGrocery({ title: "Mine" });
    expectError(
      await sendJson(s, "PATCH", "/groceries", { _id: g._id, title: "Theirs" }, other.token),
      403,
      "FORBIDDEN",
    );
    expect((await get(s, `/groceries/${g._id}`, owner.token)).body.title).toBe("Mine");
  });
});

describe("Add grocery to shopping list / Report grocery: PUT /groceries/:grocery_id", () => {
  it("adds to the caller's list without reason_type: 201, quantity 1 by default; adding again raises it", async () => {
    const g = await addGrocery({ title: "Milk" });
    const a = await sendJson(s, "PUT", `/groceries/${g._id}`, undefined, other.token);
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expectShape(a.body, { grocery: GROCERY, quantity: "integer", added_at: "string", updated_at: "string" });
    expect(a.body).toMatchObject({ grocery: { _id: g._id, title: "Milk" }, quantity: 1 });
    const again = await sendForm(s, "PUT", `/groceries/${g._id}`, { quantity: "2" }, other.token);
    expect(again.status).toBe(201);
    expect(again.body.quantity).toBe(3);
    expect((await onList(other.token)).find((e) => e.grocery.id === g._id)?.quantity).toBe(3);
    expectError(
      await sendForm(s, "PUT", `/groceries/${g._id}`, { quantity: "lots" }, other.token),
      400,
      "BAD_USER_INPUT",
      /quantity must be a whole number/,
    );
    expectError(await sendJson(s, "PUT", "/groceries/nope", {}, other.token), 404, "NOT_FOUND");
  });

  it("is Report with reason_type: the two values are type then body (repeated form key): 200 with the report", async () => {
    const g = await addGrocery({ title: "Spam can" });
    const a = await sendForm(
      s,
      "PUT",
      `/groceries/${g._id}`,
      { reason_type: ["spam", "it is an advert"] },
      other.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expectShape(a.body, REPORT);
    expect(a.body).toMatchObject({
      target_type: "grocery",
      target_id: g._id,
      reason_type: "spam",
      reason_body: "it is an advert",
      status: "open",
      created: true,
    });
    // Not an add to the list.
    expect((await onList(other.token)).some((e) => e.grocery.id === g._id)).toBe(false);
  });

  it("accepts reason_type[] keys, a JSON array, the query string, and reason_body", async () => {
    const [g1, g2, g3, g4] = [await addGrocery(), await addGrocery(), await addGrocery(), await addGrocery()];
    const brackets = await sendForm(
      s,
      "PUT",
      `/groceries/${g1._id}`,
      { "reason_type[]": ["wrong", "not a fruit"] },
      other.token,
    );
    expect(brackets.body).toMatchObject({ reason_type: "wrong", reason_body: "not a fruit" });
    const json = await sendJson(
      s,
      "PUT",
      `/groceries/${g2._id}`,
      { reason_type: ["offensive", "bad words"] },
      other.token,
    );
    expect(json.body).toMatchObject({ reason_type: "offensive", reason_body: "bad words" });
    const query = await sendJson(
      s,
      "PUT",
      `/groceries/${g3._id}?reason_type=spam&reason_type=buy+now`,
      undefined,
      other.token,
    );
    expect(query.status).toBe(200);
    expect(query.body).toMatchObject({ reason_type: "spam", reason_body: "buy now" });
    const named = await sendJson(
      s,
      "PUT",
      `/groceries/${g4._id}`,
      { reason_type: "spam", reason_body: "explained" },
      other.token,
    );
    expect(named.body).toMatchObject({ reason_type: "spam", reason_body: "explained" });
    const repeat = await sendJson(s, "PUT", `/groceries/${g4._id}`, { reason_type: "other" }, other.token);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ _id: named.body._id, reason_type: "spam", created: false });
    expectError(
      await sendJson(s, "PUT", `/groceries/${g4._id}`, { reason_type: ["a", "b", "c"] }, other.token),
      400,
      "BAD_USER_INPUT",
      /reason_type/,
    );
    expectError(
      await sendJson(s, "PUT", `/groceries/${g4._id}`, { reason_type: "" }, other.token),
      400,
      "BAD_USER_INPUT",
      /reason_type is required/,
    );
  });
});

describe("Remove grocery from shopping list / Remove grocery: DELETE /groceries/:grocery_id/", () => {
  it("from=shopping_list takes it off the caller's list only: 204", async () => {
    const g = await addGrocery();
    await sendJson(s, "PUT", `/groceries/${g._id}`, {}, other.token);
    const a = await sendJson(s, "DELETE", `/groceries/${g._id}/?from=shopping_list`, undefined, other.token);
    expect(a.status).toBe(204);
    expect(a.body).toBe("");
    expect((await onList(other.token)).some((e) => e.grocery.id === g._id)).toBe(false);
    expect((await get(s, `/groceries/${g._id}`, other.token)).status).toBe(200);
  });

  it("from=catalogue removes the grocery (owner only: 403 for others): 204", async () => {
    const g = await addGrocery();
    expectError(
      await sendJson(s, "DELETE", `/groceries/${g._id}/?from=catalogue`, undefined, other.token),
      403,
      "FORBIDDEN",
    );
    expect((await sendJson(s, "DELETE", `/groceries/${g._id}/?from=catalogue`, undefined, owner.token)).status).toBe(
      204,
    );
    expectError(await get(s, `/groceries/${g._id}`, owner.token), 404, "NOT_FOUND");
  });

  it("without from: off the list when it is on it, else removed from the catalogue (403 for others)", async () => {
    const g = await addGrocery();
    await sendJson(s, "PUT", `/groceries/${g._id}`, {}, owner.token);
    expect((await sendJson(s, "DELETE", `/groceries/${g._id}/`, undefined, owner.token)).status).toBe(204);
    expect((await get(s, `/groceries/${g._id}`, owner.token)).status).toBe(200);
    expect((await onList(owner.token)).some((e) => e.grocery.id === g._id)).toBe(false);

    expectError(await sendJson(s, "DELETE", `/groceries/${g._id}/`, undefined, other.token), 403, "FORBIDDEN");
    expect((await sendJson(s, "DELETE", `/groceries/${g._id}`, undefined, owner.token)).status).toBe(204);
    expectError(await get(s, `/groceries/${g._id}`, owner.token), 404, "NOT_FOUND");
  });

  it("refuses an unknown from value with 400 and changes nothing", async () => {
    const g = await addGrocery();
    expectError(
      await sendJson(s, "DELETE", `/groceries/${g._id}?from=everywhere`, undefined, owner.token),
      400,
      "BAD_USER_INPUT",
      /from must be one of/,
    );
    expect((await get(s, `/groceries/${g._id}`, owner.token)).status).toBe(200);
  });
});
