// Several instances as one (issue 17): two instances sharing the database and UPLOAD_DIR (as on a
// shared volume) serve each other's covers: uploaded through A, served by B, replaced through B
// and the old file gone for A too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const PNG = new Uint8Array(
  Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64"),
);
const GIF = new Uint8Array(Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64"));

async function sendCover(
  s: TestServer,
  method: "POST" | "PATCH",
  path: string,
  fields: Record<string, string>,
  image: Uint8Array<ArrayBuffer>,
  token: string,
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("cover", new Blob([image], { type: "application/octet-stream" }), "cover.bin");
  const res = await s.fetch(path, { method, body: form, token });
  return { status: res.status, body: (await res.json()) as any };
}

describe("two instances sharing the database and UPLOAD_DIR", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startServer();
    b = await startServer({}, { alongside: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("a cover uploaded through A is served by B; one replaced through B is gone from A", async () => {
    expect(b.config.uploadDir).toBe(a.config.uploadDir);
    const owner = await a.signUp("covers");
    const added = await sendCover(a, "POST", "/groceries", { title: "Plums" }, PNG, owner.token);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const served = await b.fetch(`/uploads/${added.body.cover}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(PNG))).toBe(true);

    const replaced = await sendCover(b, "PATCH", `/groceries?id=${added.body._id}`, {}, GIF, owner.token);
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(201);
    expect(replaced.body.cover).toMatch(/\.gif$/);
    const fromA = await a.fetch(`/uploads/${replaced.body.cover}`);
    expect(fromA.status).toBe(200);
    expect(Buffer.from(await fromA.arrayBuffer()).equals(Buffer.from(GIF))).toBe(true);
    expect((await a.fetch(`/uploads/${added.body.cover}`)).status).toBe(404);
  });
});
