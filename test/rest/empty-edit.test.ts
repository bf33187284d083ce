// A write that carries none of the fields it reads used to answer 200 having done nothing (issue
// 14): the original documentation's old Comment payload sent to PUT /restaurants/:id was dropped
// silently, and so was an edit of a grocery with only its id. Now: 400 naming the fields the
// operation accepts, nothing changed. Extra fields beside real ones are still ignored.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileRoutes } from "../../src/rest/execute.ts";
import { testRunner } from "../helpers/runner.ts";
import { routes } from "../../src/rest/routes/index.ts";
import { databaseState, stateChanges } from "../hardening/database-state.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { expectError, sendForm, sendJson, sendMultipart } from "./legacy.ts";

let s: TestServer;
let owner: { token: string; id: string };
let restaurantId: string;
let groceryId: string;

beforeAll(async () => {
  s = await startServer();
  owner = await s.signUp("owner");
  restaurantId = (await sendJson(s, "POST", "/restaurants", { title: "Kababish" }, owner.token)).body._id;
  groceryId = (await sendJson(s, "POST", "/groceries", { title: "Rice" }, owner.token)).body._id;
});
afterAll(async () => s?.close());

/** Sends `call` and checks it changed nothing at all. */
async function unchanged<T>(call: () => Promise<T>): Promise<T> {
  const before = await databaseState(s.db);
  const result = await call();
  expect(stateChanges(before, await databaseState(s.db))).toEqual([]);
  return result;
}

describe("which rows need one of their fields", () => {
  it("is read from the schema: the edits (an input object with no required field), nothing else", () => {
    const rows = compileRoutes(testRunner(), routes).filter((r) => r.edits.length);
    expect(rows.map((r) => `${r.method} ${r.path} (${r.operation})`)).toEqual([
      "PUT /restaurants/:restaurant_id (Edit Restaurant)",
      "PATCH /groceries (Edit grocery)",
    ]);
  });
});

describe("PUT /restaurants/:restaurant_id", () => {
  it("refuses the original documentation's old Comment payload with 400 pointing to PUT /restaurants/:id/comments", async () => {
    const a = await unchanged(() =>
      sendJson(s, "PUT", `/restaurants/${restaurantId}`, { comment: "great", rating: 4 }, owner.token),
    );
    expectError(a, 400, "BAD_USER_INPUT", /PUT \/restaurants\/:restaurant_id\/comments/);
    expect(a.body.error.message).toMatch(/needs at least one of its fields: title, description, logo/);
    expect(a.body.error.details.accepted).toEqual(
      expect.arrayContaining(["title", "url", "serves_cuisine", "address", "contact"]),
    );
    expect(a.body.error.details.accepted).not.toContain("restaurant_id");
    expect(await s.db.prisma.comment.count()).toBe(0);
  });

  it("refuses an empty JSON object, an empty form and a bodiless request alike", async () => {
    await unchanged(async () => {
      expectError(
        await sendJson(s, "PUT", `/restaurants/${restaurantId}`, {}, owner.token),
        400,
        "BAD_USER_INPUT",
        /needs at least one/,
      );
      expectError(
        await sendForm(s, "PUT", `/restaurants/${restaurantId}`, { _: "1700000000000" }, owner.token),
        400,
        "BAD_USER_INPUT",
      );
      expectError(
        await sendJson(s, "PUT", `/restaurants/${restaurantId}`, undefined, owner.token),
        400,
        "BAD_USER_INPUT",
      );
    });
  });

  it("still ignores extra fields beside a real one, and takes a field that clears (null)", async () => {
    const a = await sendJson(
      s,
      "PUT",
      `/restaurants/${restaurantId}`,
      { title: "Kababish Bangalore", comment: "great", _id: "x" },
      owner.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(a.body.title).toBe("Kababish Bangalore");
    const cleared = await sendJson(s, "PUT", `/restaurants/${restaurantId}`, { url: null }, owner.token);
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    // `contact` alone is a field too.
    const contact = await sendJson(
      s,
      "PUT",
      `/restaurants/${restaurantId}`,
      { contact: { phone: "+91 80 1234" } },
      owner.token,
    );
    expect(contact.status, JSON.stringify(contact.body)).toBe(200);
    expect(contact.body.contact.phone).toBe("+91 80 1234");
  });

  it("still answers a stranger's empty edit with 400 before anything (a request error, not a permission)", async () => {
    const other = await s.signUp("other");
    expectError(
      await sendJson(s, "PUT", `/restaurants/${restaurantId}`, { rating: 4 }, other.token),
      400,
      "BAD_USER_INPUT",
    );
  });
});

describe("the OpenAPI document", () => {
  it("states the rule on the edits", async () => {
    const doc = (await (await s.fetch("/openapi.json")).json()) as any;
    expect(doc.paths["/restaurants/{restaurant_id}"].put.description).toMatch(/at least one of: title, description/);
    expect(doc.paths["/groceries"].patch.description).toMatch(/at least one of: title, description, also_known_as/);
    expect(doc.paths["/groceries"].post.description).not.toMatch(/at least one of/);
  });
});

describe("PATCH /groceries", () => {
  it("refuses an edit that carries only the grocery's id, naming the editable fields", async () => {
    const a = await unchanged(() =>
      sendJson(s, "PATCH", "/groceries", { _id: groceryId, name: "Basmati" }, owner.token),
    );
    expectError(
      a,
      400,
      "BAD_USER_INPUT",
      /Edit grocery \(PATCH \/groceries\) needs at least one of its fields: title, description, also_known_as, cover, metric_units, categories, remove_cover/,
    );
    expect(a.body.error.details.accepted).not.toContain("_id");
    await unchanged(async () => {
      expectError(await sendForm(s, "PATCH", `/groceries?_id=${groceryId}`, {}, owner.token), 400, "BAD_USER_INPUT");
      expectError(
        await sendMultipart(s, "PATCH", "/groceries", { _id: groceryId }, [], owner.token),
        400,
        "BAD_USER_INPUT",
      );
    });
  });

  it("still names a missing id first", async () => {
    expectError(await sendJson(s, "PATCH", "/groceries", {}, owner.token), 400, "BAD_USER_INPUT", /_id is required/);
  });

  it("takes any one editable field, extra fields beside it ignored", async () => {
    const a = await sendJson(
      s,
      "PATCH",
      "/groceries",
      { _id: groceryId, categories: ["grain"], owner: "someone" },
      owner.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(a.body.categories).toEqual(["grain"]);
    const removeCover = await sendForm(s, "PATCH", "/groceries", { _id: groceryId, remove_cover: "true" }, owner.token);
    expect(removeCover.status, JSON.stringify(removeCover.body)).toBe(201);
  });
});

describe("operations whose fields are all optional by design", () => {
  it("keep answering a request without fields: adding to the shopping list (quantity 1) and removals", async () => {
    expect((await sendJson(s, "PUT", `/groceries/${groceryId}`, {}, owner.token)).status).toBe(201);
    expect(
      (await sendJson(s, "DELETE", `/groceries/${groceryId}?from=shopping_list`, undefined, owner.token)).status,
    ).toBe(204);
  });
});
