// How the REST shim takes requests: where the access token may be, path variants (trailing slash,
// /v1), and the error answers (statuses, the {"error": {...}} body, 405 with Allow, never a 500).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { routes } from "../../src/rest/routes/index.ts";
import { ERROR, expectError, expectShape, formBody, get, sendForm, sendJson, sendMultipart } from "./legacy.ts";

let s: TestServer;
let user: { token: string; id: string };

beforeAll(async () => {
  s = await startServer();
  user = await s.signUp("req");
});
afterAll(async () => s?.close());

describe("where the access token is read from", () => {
  it("accepts Authorization: Bearer", async () => {
    expect((await get(s, "/restaurants", user.token)).status).toBe(200);
  });

  it("accepts the access_token query parameter, on reads and writes", async () => {
    expect((await get(s, `/restaurants?access_token=${user.token}`)).status).toBe(200);
    const a = await sendJson(s, "POST", `/groceries?access_token=${user.token}`, { title: "Query token" });
    expect(a.status).toBe(201);
  });

  it("accepts an access_token JSON body field, form field and multipart field", async () => {
    expect((await sendJson(s, "POST", "/restaurants", { title: "JSON token", access_token: user.token })).status).toBe(
      201,
    );
    expect((await sendForm(s, "POST", "/restaurants", { title: "Form token", access_token: user.token })).status).toBe(
      201,
    );
    expect(
      (await sendMultipart(s, "POST", "/restaurants", { title: "Multipart token", access_token: user.token })).status,
    ).toBe(201);
    const owners = await s.db.prisma.restaurant.findMany({
      where: { title: { in: ["JSON token", "Form token", "Multipart token"] } },
    });
    expect(owners.map((r) => r.ownerId)).toEqual([user.id, user.id, user.id]);
  });

  it("reads Authorization: Bearer first, then the query string", async () => {
    expect((await get(s, "/restaurants?access_token=made-up", user.token)).status).toBe(200);
    const bad = await s.fetch(`/restaurants?access_token=${user.token}`, {
      headers: { authorization: "Bearer made-up" },
    });
    expect(bad.status).toBe(401);
  });

  it("answers 401 with no token, a made-up one or a revoked one, on every kind of operation", async () => {
    for (const [method, path] of [
      ["GET", "/restaurants"],
      ["GET", "/groceries/x"],
      ["PUT", "/restaurants/order"],
      ["DELETE", "/groceries/x/"],
      ["PATCH", "/groceries"],
    ] as const) {
      expectError(
        await sendJson(s, method, path, method === "GET" || method === "DELETE" ? undefined : {}),
        401,
        "UNAUTHENTICATED",
      );
      expectError(
        await sendJson(s, method, path, method === "GET" || method === "DELETE" ? undefined : {}, "made-up"),
        401,
        "UNAUTHENTICATED",
      );
    }
    const other = await s.signUp("revoked");
    expect((await sendJson(s, "DELETE", "/auth/token", undefined, other.token)).status).toBe(204);
    expectError(await get(s, "/restaurants", other.token), 401, "UNAUTHENTICATED", /invalid, expired or revoked/);
  });
});

describe("paths", () => {
  const sample = (path: string) => path.replace(/:\w+/g, "some-id");

  it("serves every row with and without a trailing slash, and under /v1", async () => {
    // DELETE /auth/token revokes the token it is sent with: each request gets a fresh one.
    for (const row of routes) {
      for (const path of [
        sample(row.path),
        `${sample(row.path)}/`,
        `/v1${sample(row.path)}`,
        `/v1${sample(row.path)}/`,
      ]) {
        const { token } = await s.signUp("paths");
        const res = await s.fetch(path, {
          method: row.method,
          token,
          ...(row.method === "GET" || row.method === "DELETE" ? {} : { json: {} }),
        });
        const body = (await res.text()) || "{}";
        expect(JSON.parse(body).error?.message ?? "", `${row.method} ${path}`).not.toMatch(/^No route/);
        expect(res.status, `${row.method} ${path}`).not.toBe(405);
        expect(res.status, `${row.method} ${path}`).toBeLessThan(500);
      }
    }
  });

  it("answers an unknown path with 404 in the error shape", async () => {
    const a = await get(s, "/menus", user.token);
    expectError(a, 404, "NOT_FOUND", /No route/);
    expectShape(a.body, ERROR);
    expectError(await get(s, "/restaurants/x/photos", user.token), 404, "NOT_FOUND");
  });

  it("answers a known path with another method with 405 and Allow", async () => {
    const cases: [string, string, string][] = [
      ["PATCH", "/restaurants", "GET, POST, HEAD"],
      ["DELETE", "/restaurants/", "GET, POST, HEAD"],
      ["POST", "/restaurants/abc", "GET, PUT, DELETE, HEAD"],
      ["PATCH", "/v1/restaurants/abc/", "GET, PUT, DELETE, HEAD"],
      ["DELETE", "/restaurants/abc/comments", "GET, PUT, HEAD"],
      ["PUT", "/groceries", "GET, POST, PATCH, HEAD"],
      ["POST", "/groceries/abc/", "GET, PUT, DELETE, HEAD"],
      ["GET", "/users", "POST"],
      ["GET", "/auth/token", "POST, DELETE"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await s.fetch(path, { method, token: user.token });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow"), `${method} ${path}`).toBe(allow);
      const body = (await res.json()) as any;
      expectShape(body, ERROR);
      expect(body.error.code).toBe("METHOD_NOT_ALLOWED");
    }
  });

  it("leaves /graphql working", async () => {
    const r = await s.graphql(`{ me { id } }`, {}, user.token);
    expect(r.data.me.id).toBe(user.id);
  });
});

describe("error statuses", () => {
  it("answers malformed JSON with 400 and an unsupported content type with 415", async () => {
    const bad = await s.fetch("/restaurants", {
      method: "POST",
      token: user.token,
      headers: { "content-type": "application/json" },
      body: '{"title": ',
    });
    expect(bad.status).toBe(400);
    expectShape(await bad.json(), ERROR);
    const text = await s.fetch("/restaurants", {
      method: "POST",
      token: user.token,
      headers: { "content-type": "text/plain" },
      body: "title=X",
    });
    expect(text.status).toBe(415);
    expect(((await text.json()) as any).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const xml = await s.fetch("/groceries", {
      method: "PATCH",
      token: user.token,
      headers: { "content-type": "application/xml" },
      body: "<a/>",
    });
    expect(xml.status).toBe(415);
  });

  it("takes Content-Type: application/json without a body as no body (legacy clients send it on DELETE and PUT)", async () => {
    const g = (await sendJson(s, "POST", "/groceries", { title: "Bodiless" }, user.token)).body._id;
    const headers = { "content-type": "application/json" };
    const put = await s.fetch(`/groceries/${g}`, { method: "PUT", token: user.token, headers });
    expect(put.status).toBe(201);
    const del = await s.fetch(`/groceries/${g}?from=shopping_list`, { method: "DELETE", token: user.token, headers });
    expect(del.status).toBe(204);
    const empty = await s.fetch("/restaurants", { method: "POST", token: user.token, headers, body: "" });
    expectError(
      { status: empty.status, body: await empty.json(), headers: empty.headers },
      400,
      "BAD_USER_INPUT",
      /title is required/,
    );
  });

  it("answers a body over the limit with 413", async () => {
    const a = await sendJson(
      s,
      "POST",
      "/restaurants",
      { title: "x".repeat(s.config.bodyLimitBytes + 10) },
      user.token,
    );
    expectError(a, 413, "PAYLOAD_TOO_LARGE");
  });

  it("answers a taken username with 409", async () => {
    const fields = { username: `dup${Date.now()}`, password: "long-enough-1", first_name: "Dup" };
    expect((await sendForm(s, "POST", "/users", fields)).status).toBe(201);
    expectError(await sendForm(s, "POST", "/users", fields), 409, "CONFLICT");
  });

  it("never answers 500 to odd input: wrong types, nested junk, prototype keys", async () => {
    const r = await sendJson(s, "POST", "/restaurants", { title: "Odd" }, user.token);
    const id = r.body._id;
    const g = (await sendJson(s, "POST", "/groceries", { title: "Odd" }, user.token)).body._id;
    const odd: unknown[] = [
      { title: { $gt: "" } },
      { title: ["a", "b"] },
      { title: 12, star_rating: "1e400" },
      { title: "x", opening_hours: "nonsense" },
      { title: "x", opening_hours: [{ open: 8 }] },
      { title: "x", opening_hours: { open: "08:00", close: "09:00" } },
      { title: "x", address: "not json" },
      { title: "x", address: [1, 2] },
      { title: "x", address: { geo: { latitude: "north" } } },
      { title: "x", categories: [{ a: 1 }] },
      { title: "x", categories: "[not json" },
      { title: "x", contact: 5 },
      { __proto__: { admin: true }, title: "x" },
      { title: "x", quantity: 1e30, rating: -1, reason_type: [[]] },
    ];
    const targets: [string, string][] = [
      ["POST", "/restaurants"],
      ["PUT", `/restaurants/${id}`],
      ["PUT", "/restaurants/order"],
      ["PUT", `/restaurants/${id}/comments`],
      ["POST", "/groceries"],
      ["PATCH", `/groceries?_id=${g}`],
      ["PUT", `/groceries/${g}`],
    ];
    for (const [method, path] of targets) {
      for (const body of odd) {
        const a = await sendJson(s, method as "POST", path, body, user.token);
        expect(a.status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(a.body)}`).toBeLessThan(500);
      }
      const form = await s.fetch(path, {
        method,
        token: user.token,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "__proto__[polluted]=1&constructor[prototype][x]=1&title[]=a&title[x]=b&opening_hours[0][open][]=1&address[geo]=1&reason_type[0][0]=x",
      });
      expect(form.status, `${method} ${path} form`).toBeLessThan(500);
    }
    expect(({} as any).polluted).toBeUndefined();
    const junk = await s.fetch("/groceries", {
      method: "POST",
      token: user.token,
      headers: { "content-type": "multipart/form-data; boundary=xyz" },
      body: '--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nunterminated',
    });
    expect(junk.status).toBeLessThan(500);
    expect((await get(s, `/restaurants?limit=99999999999999999999&offset=abc`, user.token)).status).toBe(400);
  });

  it("answers with the legacy names in bad-input messages, also for form bodies", async () => {
    const a = await sendForm(s, "POST", "/users", { username: "ok_name", password: "long-enough-1" });
    expectError(a, 400, "BAD_USER_INPUT", /^first_name is required$/);
    expect(formBody({ a: ["1", "2"] })).toBe("a=1&a=2");
  });
});

describe("rate limit", () => {
  it("answers 429 with Retry-After in the error shape once a token is over its limit", async () => {
    const limited = await startServer({ RATE_LIMIT_MAX: "3" });
    try {
      const u = await limited.signUp("rl");
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 5; i++) {
        last = await limited.fetch("/restaurants", { token: u.token });
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses[4]).toBe(429);
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await last!.json()) as any).error.code).toBe("RATE_LIMITED");
    } finally {
      await limited.close();
    }
  });
});
