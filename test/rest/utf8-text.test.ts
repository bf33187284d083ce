// Text that is not UTF-8, in a form body, a multipart text part or a query string, is refused
// with a 400 that says so and changes nothing; before, a Latin-1 byte became U+FFFD and an escape like %E9 was kept as the
// three characters "%E9", so the stored text silently differed from what the client meant.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { multipartText } from "../hardening/corpus.ts";
import { expectError, get, sendForm, sendJson, type Answer } from "./legacy.ts";

let s: TestServer;
let user: { token: string; id: string };

beforeAll(async () => {
  s = await startServer();
  user = await s.signUp("utf8");
});
afterAll(async () => s?.close());

async function sendRawForm(
  method: "POST" | "PUT",
  path: string,
  body: Uint8Array<ArrayBuffer> | string,
): Promise<Answer> {
  const res = await s.fetch(path, {
    method,
    token: user.token,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

const latin1 = (text: string) => Uint8Array.from(Buffer.from(text, "latin1"));

describe("form bodies", () => {
  it("stores %-escaped UTF-8, raw UTF-8, '+' and a lone '%' exactly as meant", async () => {
    const escaped = await sendRawForm("POST", "/groceries", "title=Caf%C3%A9+cr%C3%A8me");
    expect(escaped.status).toBe(201);
    expect(escaped.body.title).toBe("Café crème");
    const raw = await sendRawForm("POST", "/groceries", Uint8Array.from(Buffer.from("title=Pâté 100%", "utf8")));
    expect(raw.status).toBe(201);
    expect(raw.body.title).toBe("Pâté 100%");
  });

  it("refuses Latin-1 bytes and escapes that are not UTF-8, storing nothing", async () => {
    const before = await s.db.prisma.grocery.count();
    const cases: [string, Uint8Array<ArrayBuffer> | string, RegExp][] = [
      ["a raw Latin-1 byte", latin1("title=Caf\u00e9"), /form is not valid UTF-8/],
      ["a Latin-1 escape", "title=Caf%E9", /%E9, which is not UTF-8/],
      ["an escape cut mid-character", "title=Caf%C3&x=1", /%C3, which is not UTF-8/],
      ["an encoded lone surrogate", "title=%ED%A0%80", /%ED%A0%80, which is not UTF-8/],
    ];
    for (const [label, body, message] of cases) {
      const a = await sendRawForm("POST", "/groceries", body);
      expect(a.status, label).toBe(400);
      expect(a.body.error.message, label).toMatch(message);
      expect(JSON.stringify(a.body), label).not.toMatch(/stack|at \w+ \(/);
    }
    expect(await s.db.prisma.grocery.count()).toBe(before);
  });

  it("keeps the legacy form shapes: repeated keys and brackets", async () => {
    const a = await sendForm(
      s,
      "POST",
      "/groceries",
      { title: "Crème fraîche", "categories[]": ["dairy", "crèmerie"] },
      user.token,
    );
    expect(a.status).toBe(201);
    expect(a.body.title).toBe("Crème fraîche");
    expect(a.body.categories).toEqual(["dairy", "crèmerie"]);
  });
});

describe("multipart bodies", () => {
  const boundary = "utf8boundary";

  /** The parts, written as one multipart body in the given byte encoding. */
  async function sendMultipart(
    parts: Parameters<typeof multipartText>[1],
    encoding: "utf8" | "latin1",
  ): Promise<Answer> {
    const body = Uint8Array.from(Buffer.from(multipartText(boundary, parts), encoding));
    const res = await s.fetch("/groceries", {
      method: "POST",
      token: user.token,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
    });
    return { status: res.status, body: await res.json(), headers: res.headers };
  }

  it("stores UTF-8 text parts, and parts in the Latin-1 charset they declare, as meant", async () => {
    const utf8 = await sendMultipart([{ name: "title", value: "Crème brûlée" }], "utf8");
    expect(utf8.status).toBe(201);
    expect(utf8.body.title).toBe("Crème brûlée");
    const declared = await sendMultipart(
      [{ name: "title", value: "Pâté maison", type: "text/plain; charset=iso-8859-1" }],
      "latin1",
    );
    expect(declared.status).toBe(201);
    expect(declared.body.title).toBe("Pâté maison");
  });

  it("refuses a text part whose bytes are not UTF-8, storing nothing", async () => {
    const before = await s.db.prisma.grocery.count();
    const a = await sendMultipart([{ name: "title", value: "Café" }], "latin1");
    expectError(a, 400, "BAD_USER_INPUT", /multipart field title is not valid UTF-8/);
    const other = await sendMultipart(
      [
        { name: "title", value: "Cafe" },
        { name: "description", value: "crème" },
      ],
      "latin1",
    );
    expectError(other, 400, "BAD_USER_INPUT", /multipart field description is not valid UTF-8/);
    expect(await s.db.prisma.grocery.count()).toBe(before);
  });
});

describe("query strings", () => {
  it("refuses an escape that is not UTF-8, on reads and writes", async () => {
    expectError(await get(s, "/groceries?title=caf%E9", user.token), 400, "BAD_REQUEST", /%E9, which is not UTF-8/);
    const before = await s.db.prisma.grocery.count();
    expectError(
      await sendJson(s, "POST", "/groceries?title=caf%E9", {}, user.token),
      400,
      "BAD_REQUEST",
      /query string/,
    );
    expect(await s.db.prisma.grocery.count()).toBe(before);
  });

  it("reads UTF-8 escapes and a literal '%'", async () => {
    await sendJson(s, "POST", "/groceries", { title: "Soupe à l'oignon" }, user.token);
    const found = await get(s, `/groceries?title=${encodeURIComponent("à l'oignon")}`, user.token);
    expect(found.status).toBe(200);
    expect(found.body.map((g: { title: string }) => g.title)).toContain("Soupe à l'oignon");
    expect((await get(s, "/groceries?title=100%", user.token)).status).toBe(200);
  });
});
