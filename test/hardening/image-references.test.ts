// Issue 13, item 8: logo, cover, photos and avatar stored `javascript:` URLs, which a client that
// shows them as a link or image source would run. Only http(s) URLs and relative references (file
// names, paths) are kept now, on both faces (one rule in src/domain/catalogue/image-references.ts), whatever
// case, spaces, tabs or control characters hide the scheme. (The legacy `url` field is not a picture.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { expectError, formBody, sendJson, type Answer } from "../rest/legacy.ts";
import { databaseState, stateChanges } from "./database-state.ts";

const HOSTILE = [
  "javascript:alert(1)",
  " JaVaScRiPt:alert(1)",
  "java\tscript:alert(1)",
  "java\nscript:alert(1)",
  "\u0001\u001fjavascript:alert(1)",
  "javascript:alert(1)  ",
  "vbscript:msgbox(1)",
  "data:text/html,<script>alert(1)</script>",
  "data:image/svg+xml,<svg onload=alert(1)>",
  "DATA:image/png;base64,iVBORw0KGgo=",
  "file:///etc/passwd",
];

const ALLOWED = [
  "logo.png",
  "https://cdn.example/a.png",
  "http://cdn.example/b.jpg?size=2#top",
  "/uploads/0123456789abcdef0123456789abcdef.png",
  "//cdn.example/c.png",
  "images/café ☕.png",
];

let s: TestServer;
let owner: { token: string; id: string };
let admin: { token: string };
let restaurantId: string;

beforeAll(async () => {
  s = await startServer();
  owner = await s.signUp("pics");
  admin = await s.signUp("picsadmin", "ADMIN");
  restaurantId = (await sendJson(s, "POST", "/restaurants", { title: "Pictures" }, owner.token)).body._id;
});
afterAll(async () => s?.close());

const CREATE = `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id logo cover photos } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateRestaurantInput!) { updateRestaurant(id: $id, input: $input) { id logo cover photos } }`;
const REGISTER = `mutation($input: RegisterInput!) { register(input: $input) { user { id avatar } } }`;
const GRANT = `mutation($restaurantId: ID!, $name: String!, $cover: String) { grantBadge(restaurantId: $restaurantId, name: $name, cover: $cover) { badge { cover } } }`;

/** Runs `send` and checks that it changed nothing in the database. */
async function unchanged<T>(send: () => Promise<T>): Promise<T> {
  const before = await databaseState(s.db);
  const result = await send();
  expect(stateChanges(before, await databaseState(s.db))).toEqual([]);
  return result;
}

async function refusedGraphql(
  query: string,
  variables: Record<string, unknown>,
  token: string | undefined,
  field: string,
  value: string,
) {
  const r = await unchanged(() => s.graphql(query, variables, token));
  expect(r.errors?.[0]?.extensions?.code, `${field} = ${JSON.stringify(value)}: ${JSON.stringify(r.body)}`).toBe(
    "BAD_USER_INPUT",
  );
  expect(r.errors?.[0]?.message).toMatch(new RegExp(`${field} must be an http\\(s\\) URL or a file name`));
}

const refusedRest = (a: Answer, field: string, value: string) => {
  expect(a.status, `${field} = ${JSON.stringify(value)}`).toBe(400);
  expectError(a, 400, "BAD_USER_INPUT", new RegExp(`${field} must be an http\\(s\\) URL or a file name`));
};

describe("GraphQL", () => {
  it("refuses script-capable schemes in logo, cover and photos, on create and on update", async () => {
    for (const value of HOSTILE) {
      for (const [field, input] of [
        ["logo", { logo: value }],
        ["cover", { cover: value }],
        ["photos", { photos: ["a.png", value] }],
      ] as const) {
        await refusedGraphql(CREATE, { input: { title: "Hostile", ...input } }, owner.token, field, value);
        await refusedGraphql(UPDATE, { id: restaurantId, input }, owner.token, field, value);
      }
    }
  });

  it("refuses them in a new account's avatar and a badge's cover", async () => {
    for (const value of HOSTILE) {
      await refusedGraphql(
        REGISTER,
        {
          input: {
            username: `avatar${HOSTILE.indexOf(value)}`,
            password: "correct-horse",
            firstName: "A",
            avatar: value,
          },
        },
        undefined,
        "avatar",
        value,
      );
      await refusedGraphql(GRANT, { restaurantId, name: "Hostile badge", cover: value }, admin.token, "cover", value);
    }
  });

  it("keeps http(s) URLs and file names, as sent", async () => {
    for (const value of [...ALLOWED, " logo.png "]) {
      const r = await s.graphql(
        UPDATE,
        { id: restaurantId, input: { logo: value, cover: value, photos: [value.trim()] } },
        owner.token,
      );
      expect(r.data?.updateRestaurant, `${JSON.stringify(value)}: ${JSON.stringify(r.errors)}`).toMatchObject({
        logo: value,
        cover: value,
        photos: [value.trim()],
      });
    }
    const r = await s.graphql(REGISTER, {
      input: { username: "avatarok", password: "correct-horse", firstName: "A", avatar: "https://cdn.example/me.png" },
    });
    expect(r.data?.register.user.avatar).toBe("https://cdn.example/me.png");
    const g = await s.graphql(GRANT, { restaurantId, name: "Fine badge", cover: "badge.png" }, admin.token);
    expect(g.data?.grantBadge.badge.cover).toBe("badge.png");
  });
});

describe("REST", () => {
  const form = (method: "POST" | "PUT", path: string, fields: Record<string, string | string[]>, token?: string) =>
    s
      .fetch(path, {
        method,
        token,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: formBody(fields),
      })
      .then(async (res): Promise<Answer> => ({ status: res.status, body: await res.json(), headers: res.headers }));

  it("refuses them in JSON and forms: logo, cover and photos on create and edit, avatar on sign-up", async () => {
    for (const value of HOSTILE) {
      refusedRest(
        await unchanged(() => sendJson(s, "POST", "/restaurants", { title: "Hostile", logo: value }, owner.token)),
        "logo",
        value,
      );
      refusedRest(
        await unchanged(() => form("POST", "/restaurants", { title: "Hostile", cover: value }, owner.token)),
        "cover",
        value,
      );
      refusedRest(
        await unchanged(() =>
          form("PUT", `/restaurants/${restaurantId}`, { "photos[]": ["a.png", value] }, owner.token),
        ),
        "photos",
        value,
      );
      refusedRest(
        await unchanged(() => sendJson(s, "PUT", `/restaurants/${restaurantId}`, { logo: value }, owner.token)),
        "logo",
        value,
      );
      refusedRest(
        await unchanged(() =>
          sendJson(s, "POST", "/users", {
            username: `restavatar${HOSTILE.indexOf(value)}`,
            password: "correct-horse",
            first_name: "A",
            avatar: value,
          }),
        ),
        "avatar",
        value,
      );
    }
  });

  it("keeps an http(s) logo and file-name photos", async () => {
    const a = await sendJson(
      s,
      "PUT",
      `/restaurants/${restaurantId}`,
      { logo: "https://cdn.example/logo.png", photos: ["a.jpg", "/uploads/b.jpg"] },
      owner.token,
    );
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(a.body).toMatchObject({ logo: "https://cdn.example/logo.png", photos: ["a.jpg", "/uploads/b.jpg"] });
  });
});
