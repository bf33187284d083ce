// Cover uploads through the real server: the GraphQL multipart request spec on /graphql (CSRF
// preflight, limits), images recognised by their bytes, files on disk following the database
// (no orphans, old covers removed), and GET /uploads/:name (content type, nosniff, no traversal).
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { testProvider } from "../helpers/database.ts";
import { startServer, type GraphqlResult, type TestServer } from "../helpers/server.ts";
import { isStored, readStored, uploadFilesOf } from "../helpers/upload-store.ts";

const bytes = (base64: string) => new Uint8Array(Buffer.from(base64, "base64"));

// Tiny but real 1x1 images.
const PNG = bytes("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=");
const GIF = bytes("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7");
const WEBP = bytes("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==");
const JPEG = bytes(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
);
const TEXT = new Uint8Array(Buffer.from("this is not an image, whatever its name says\n"));

/** A PNG header followed by filler: an "image" of exactly `size` bytes. */
function pngOfSize(size: number) {
  const out = new Uint8Array(size);
  out.set(PNG.subarray(0, 16));
  return out;
}

type FilePart = { bytes: Uint8Array<ArrayBuffer>; name: string; type?: string; at: string[] };

/** Sends one operation as a GraphQL multipart request (fields `operations`, `map`, then the files). */
async function multipart(
  server: TestServer,
  query: string,
  variables: Record<string, unknown>,
  files: Record<string, FilePart>,
  options: { token?: string; tokenInQuery?: string; preflight?: boolean } = {},
): Promise<GraphqlResult & { headers: Headers }> {
  const form = new FormData();
  form.append("operations", JSON.stringify({ query, variables }));
  form.append("map", JSON.stringify(Object.fromEntries(Object.entries(files).map(([key, f]) => [key, f.at]))));
  for (const [key, f] of Object.entries(files))
    form.append(key, new Blob([f.bytes], { type: f.type ?? "application/octet-stream" }), f.name);
  const headers: Record<string, string> = options.preflight === false ? {} : { "apollo-require-preflight": "true" };
  const target = options.tokenInQuery ? `/graphql?access_token=${options.tokenInQuery}` : "/graphql";
  const res = await server.fetch(target, { method: "POST", body: form, headers, token: options.token });
  const body = (await res.json()) as any;
  return { status: res.status, data: body.data, errors: body.errors, body, headers: res.headers };
}

const CREATE = `mutation($input: CreateGroceryInput!) { createGrocery(input: $input) { id title cover coverUrl } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateGroceryInput!) { updateGrocery(id: $id, input: $input) { id title cover coverUrl } }`;
const cover = (file: Uint8Array<ArrayBuffer>, name = "cover.bin", type?: string): Record<string, FilePart> => ({
  "0": { bytes: file, name, type, at: ["variables.input.cover"] },
});

/** Files in the upload store (folder or bucket), temp files included. */
const filesIn = (server: TestServer) => uploadFilesOf(server);
const stored = (name: string) => isStored(s.store, name);

let s: TestServer;
let small: TestServer; // UPLOAD_MAX_BYTES=2048, UPLOAD_MAX_FILES=2
let owner: { token: string; id: string };
let other: { token: string; id: string };
let admin: { token: string; id: string };

beforeAll(async () => {
  [s, small] = await Promise.all([startServer(), startServer({ UPLOAD_MAX_BYTES: "2048", UPLOAD_MAX_FILES: "2" })]);
  owner = await s.signUp("owner");
  other = await s.signUp("other");
  admin = await s.signUp("adm", "ADMIN");
});
afterAll(async () => {
  await s?.close();
  await small?.close();
});

async function createWithCover(file: Uint8Array<ArrayBuffer>, title = "Apples", token = owner.token) {
  const r = await multipart(s, CREATE, { input: { title, cover: null } }, cover(file), { token });
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data.createGrocery as { id: string; cover: string; coverUrl: string };
}

describe("createGrocery with a cover", () => {
  it.each([
    ["PNG", PNG, "png", "image/png"],
    ["JPEG", JPEG, "jpg", "image/jpeg"],
    ["GIF", GIF, "gif", "image/gif"],
    ["WebP", WEBP, "webp", "image/webp"],
  ] as const)(
    "stores a %s under a random name with the extension its bytes show, and serves it",
    async (_kind, file, ext, type) => {
      // The name and declared type lie on purpose: only the bytes count.
      const g = await createWithCover(file as Uint8Array<ArrayBuffer>, `Grocery ${ext}`);
      expect(g.cover).toMatch(new RegExp(`^[0-9a-f]{32}\\.${ext}$`));
      expect(g.coverUrl).toBe(`/uploads/${g.cover}`);
      expect(await readStored(s.store, g.cover)).toEqual(Buffer.from(file));

      const res = await s.fetch(g.coverUrl);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(type);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("cache-control")).toMatch(/max-age=\d+/);
      expect(res.headers.get("content-length")).toBe(String(file.length));
      expect(Buffer.from(await res.arrayBuffer())).toEqual(Buffer.from(file));
    },
  );

  it("ignores the file name and declared type: a JPEG named .png sent as text/plain is a .jpg", async () => {
    const r = await multipart(s, CREATE, { input: { title: "Pears" } }, cover(JPEG, "pears.png", "text/plain"), {
      token: owner.token,
    });
    expect(r.data.createGrocery.cover).toMatch(/^[0-9a-f]{32}\.jpg$/);
  });

  it("gives every upload a different name", async () => {
    const [a, b] = await Promise.all([createWithCover(PNG, "One"), createWithCover(PNG, "Two")]);
    expect(a.cover).not.toBe(b.cover);
  });

  it("refuses a text file named .png with BAD_USER_INPUT and leaves no grocery and no file", async () => {
    const groceries = await s.db.prisma.grocery.count();
    const files = await filesIn(s);
    const r = await multipart(s, CREATE, { input: { title: "Fake" } }, cover(TEXT, "fake.png", "image/png"), {
      token: owner.token,
    });
    expect(r.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(r.errors?.[0].message).toMatch(/PNG, JPEG, WebP or GIF/);
    expect(await s.db.prisma.grocery.count()).toBe(groceries);
    expect(await filesIn(s)).toEqual(files);
  });

  it("refuses an empty file and a file that only starts like an image", async () => {
    const files = await filesIn(s);
    const empty = await multipart(s, CREATE, { input: { title: "Empty" } }, cover(new Uint8Array(0), "e.png"), {
      token: owner.token,
    });
    expect(empty.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    const riff = new Uint8Array(Buffer.from("RIFF\0\0\0\0WAVEfmt "));
    const wave = await multipart(s, CREATE, { input: { title: "Wave" } }, cover(riff, "w.webp"), {
      token: owner.token,
    });
    expect(wave.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(await filesIn(s)).toEqual(files);
  });

  it("saves no file when the other fields are invalid or the token is missing", async () => {
    const files = await filesIn(s);
    const groceries = await s.db.prisma.grocery.count();
    const bad = await multipart(s, CREATE, { input: { title: "" } }, cover(PNG), { token: owner.token });
    expect(bad.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    const anonymous = await multipart(s, CREATE, { input: { title: "Anon" } }, cover(PNG));
    expect(anonymous.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(await s.db.prisma.grocery.count()).toBe(groceries);
    expect(await filesIn(s)).toEqual(files);
    // The connection is still usable after answers that left the file unread.
    expect((await s.graphql(`{ me { id } }`, {}, owner.token)).data.me.id).toBe(owner.id);
  });

  it("removes the saved file when the database write fails (no orphan)", async () => {
    await refuseTitleInDatabase(s, "boom");
    const files = await filesIn(s);
    const r = await multipart(s, CREATE, { input: { title: "boom" } }, cover(PNG), { token: owner.token });
    expect(r.errors?.[0].extensions?.code).toBe("INTERNAL_SERVER_ERROR");
    expect(JSON.stringify(r.body)).not.toMatch(/boom|INSERT|trigger/i);
    expect(await filesIn(s)).toEqual(files);
  });
});

/** Makes the database itself refuse to store a grocery with this title (a trigger; no code is mocked). */
async function refuseTitleInDatabase(server: TestServer, title: string) {
  if (testProvider() === "sqlite") {
    for (const event of ["INSERT", "UPDATE"]) {
      await server.db.prisma.$executeRawUnsafe(
        `CREATE TRIGGER IF NOT EXISTS refuse_${event.toLowerCase()} BEFORE ${event} ON "Grocery" WHEN NEW.title = '${title}' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
      );
    }
  } else {
    await server.db.prisma.$executeRawUnsafe(
      `CREATE OR REPLACE FUNCTION refuse_title() RETURNS trigger AS $$ BEGIN IF NEW.title = '${title}' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
    );
    await server.db.prisma.$executeRawUnsafe(`DROP TRIGGER IF EXISTS refuse_title ON "Grocery"`);
    await server.db.prisma.$executeRawUnsafe(
      `CREATE TRIGGER refuse_title BEFORE INSERT OR UPDATE ON "Grocery" FOR EACH ROW EXECUTE FUNCTION refuse_title()`,
    );
  }
}

describe("size and count limits", () => {
  it("accepts a file of exactly UPLOAD_MAX_BYTES and refuses one byte more with PAYLOAD_TOO_LARGE", async () => {
    const user = await small.signUp("small");
    const exact = await multipart(small, CREATE, { input: { title: "Exact" } }, cover(pngOfSize(2048)), {
      token: user.token,
    });
    expect(exact.errors, JSON.stringify(exact.errors)).toBeUndefined();
    const files = await filesIn(small);
    const groceries = await small.db.prisma.grocery.count();
    const over = await multipart(small, CREATE, { input: { title: "Over" } }, cover(pngOfSize(2049)), {
      token: user.token,
    });
    expect(over.errors?.[0].extensions?.code).toBe("PAYLOAD_TOO_LARGE");
    expect(over.errors?.[0].message).toMatch(/2048 bytes/);
    const far = await multipart(small, CREATE, { input: { title: "Far over" } }, cover(pngOfSize(300_000)), {
      token: user.token,
    });
    expect(far.errors?.[0].extensions?.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await filesIn(small)).toEqual(files);
    expect(await small.db.prisma.grocery.count()).toBe(groceries);
  });

  it("refuses a file over the default 5 MB", async () => {
    const files = await filesIn(s);
    const r = await multipart(s, CREATE, { input: { title: "Huge" } }, cover(pngOfSize(5 * 1024 * 1024 + 1)), {
      token: owner.token,
    });
    expect(r.errors?.[0].extensions?.code).toBe("PAYLOAD_TOO_LARGE");
    expect(r.errors?.[0].message).toMatch(/5 MB/);
    expect(await filesIn(s)).toEqual(files);
  });

  it("refuses more files than UPLOAD_MAX_FILES with 413 PAYLOAD_TOO_LARGE", async () => {
    const groceries = await s.db.prisma.grocery.count();
    const r = await multipart(
      s,
      `mutation($a: CreateGroceryInput!, $b: CreateGroceryInput!) { a: createGrocery(input: $a) { id } b: createGrocery(input: $b) { id } }`,
      { a: { title: "A" }, b: { title: "B" } },
      {
        "0": { bytes: PNG, name: "a.png", at: ["variables.a.cover"] },
        "1": { bytes: GIF, name: "b.gif", at: ["variables.b.cover"] },
      },
      { token: owner.token },
    );
    expect(r.status).toBe(413);
    expect(r.errors?.[0].extensions?.code).toBe("PAYLOAD_TOO_LARGE");
    expect(r.errors?.[0].message).toMatch(/at most 1/);
    expect(await s.db.prisma.grocery.count()).toBe(groceries);
  });

  it("takes as many files as UPLOAD_MAX_FILES allows", async () => {
    const user = await small.signUp("two");
    const r = await multipart(
      small,
      `mutation($a: CreateGroceryInput!, $b: CreateGroceryInput!) { a: createGrocery(input: $a) { cover } b: createGrocery(input: $b) { cover } }`,
      { a: { title: "A" }, b: { title: "B" } },
      {
        "0": { bytes: PNG, name: "a", at: ["variables.a.cover"] },
        "1": { bytes: GIF, name: "b", at: ["variables.b.cover"] },
      },
      { token: user.token },
    );
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    expect(r.data.a.cover).toMatch(/\.png$/);
    expect(r.data.b.cover).toMatch(/\.gif$/);
  });

  it("refuses a bad UPLOAD_MAX_BYTES or UPLOAD_MAX_FILES at start-up, naming the variable", () => {
    expect(() => loadConfig({ UPLOAD_MAX_BYTES: "five megs" })).toThrow(ConfigError);
    expect(() => loadConfig({ UPLOAD_MAX_BYTES: "five megs" })).toThrow(
      /UPLOAD_MAX_BYTES="five megs": must be a whole number/,
    );
    expect(() => loadConfig({ UPLOAD_MAX_FILES: "0" })).toThrow(/UPLOAD_MAX_FILES="0": must be at least 1/);
    expect(loadConfig({})).toMatchObject({ uploadMaxBytes: 5 * 1024 * 1024, uploadMaxFiles: 1 });
  });
});

describe("the multipart request itself", () => {
  it("is refused as a possible forgery without a header a browser preflights, saving nothing", async () => {
    const files = await filesIn(s);
    const groceries = await s.db.prisma.grocery.count();
    // The token in the query string, which another site's form could carry: no preflight.
    const r = await multipart(s, CREATE, { input: { title: "Csrf" } }, cover(PNG), {
      preflight: false,
      tokenInQuery: owner.token,
    });
    expect(r.status).toBe(400);
    expect(r.errors?.[0].message).toMatch(/Cross-Site Request Forgery/);
    expect(await s.db.prisma.grocery.count()).toBe(groceries);
    expect(await filesIn(s)).toEqual(files);
  });

  it("is taken with the token's Authorization header alone (a browser preflights it too)", async () => {
    const r = await multipart(s, CREATE, { input: { title: "Signed" } }, cover(PNG), {
      token: owner.token,
      preflight: false,
    });
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    expect(r.data.createGrocery.title).toBe("Signed");
  });

  it("answers a malformed multipart body with 400, never 500", async () => {
    const form = new FormData();
    form.append("operations", "{not json");
    form.append("map", "{}");
    const res = await s.fetch("/graphql", {
      method: "POST",
      body: form,
      headers: { "apollo-require-preflight": "1" },
      token: owner.token,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).errors[0].message).toMatch(/operations/);

    const noFile = await multipart(s, CREATE, { input: { title: "No file" } }, {}, { token: owner.token });
    expect(noFile.errors).toBeUndefined(); // no map entry: no cover

    const missing = new FormData();
    missing.append(
      "operations",
      JSON.stringify({ query: CREATE, variables: { input: { title: "Missing", cover: null } } }),
    );
    missing.append("map", JSON.stringify({ "0": ["variables.input.cover"] }));
    const res2 = await s.fetch("/graphql", {
      method: "POST",
      body: missing,
      headers: { "apollo-require-preflight": "1" },
      token: owner.token,
    });
    const body2 = (await res2.json()) as any;
    expect(res2.status).toBeLessThan(500);
    expect(body2.errors[0].extensions.code).toBe("BAD_USER_INPUT");
  });

  it("refuses a cover sent as a plain JSON value", async () => {
    const r = await s.graphql(CREATE, { input: { title: "Json", cover: "a.png" } }, owner.token);
    expect(r.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });
});

describe("covers follow the grocery", () => {
  it("replacing the cover removes the old file after the change; removeCover removes the file", async () => {
    const g = await createWithCover(PNG, "Plums");
    const replaced = await multipart(s, UPDATE, { id: g.id, input: { cover: null } }, cover(GIF), {
      token: owner.token,
    });
    expect(replaced.errors, JSON.stringify(replaced.errors)).toBeUndefined();
    const newName = replaced.data.updateGrocery.cover;
    expect(newName).toMatch(/\.gif$/);
    expect(await stored(g.cover)).toBe(false);
    expect(await stored(newName)).toBe(true);
    expect((await s.fetch(g.coverUrl)).status).toBe(404);

    const removed = await s.graphql(UPDATE, { id: g.id, input: { removeCover: true } }, owner.token);
    expect(removed.data.updateGrocery).toMatchObject({ cover: null, coverUrl: null });
    expect(await stored(newName)).toBe(false);
  });

  it("an update without cover fields keeps the cover file", async () => {
    const g = await createWithCover(WEBP, "Figs");
    const r = await s.graphql(UPDATE, { id: g.id, input: { title: "Fresh figs" } }, owner.token);
    expect(r.data.updateGrocery).toMatchObject({ title: "Fresh figs", cover: g.cover });
    expect(await stored(g.cover)).toBe(true);
  });

  it("refuses cover together with removeCover, and a new cover from someone else, changing nothing", async () => {
    const g = await createWithCover(PNG, "Kiwis");
    const files = await filesIn(s);
    const both = await multipart(s, UPDATE, { id: g.id, input: { cover: null, removeCover: true } }, cover(GIF), {
      token: owner.token,
    });
    expect(both.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    const stranger = await multipart(s, UPDATE, { id: g.id, input: { cover: null } }, cover(GIF), {
      token: other.token,
    });
    expect(stranger.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    const bad = await multipart(s, UPDATE, { id: g.id, input: { cover: null } }, cover(TEXT, "x.gif"), {
      token: owner.token,
    });
    expect(bad.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(await filesIn(s)).toEqual(files);
    expect((await s.db.prisma.grocery.findUniqueOrThrow({ where: { id: g.id } })).cover).toBe(g.cover);
  });

  it("an admin may replace someone's cover", async () => {
    const g = await createWithCover(PNG, "Limes");
    const r = await multipart(s, UPDATE, { id: g.id, input: { cover: null } }, cover(JPEG), { token: admin.token });
    expect(r.data.updateGrocery.cover).toMatch(/\.jpg$/);
    expect(await stored(g.cover)).toBe(false);
  });

  it("keeps the old cover and drops the new file when the database refuses the update", async () => {
    await refuseTitleInDatabase(s, "boom");
    const g = await createWithCover(PNG, "Dates");
    const files = await filesIn(s);
    const r = await multipart(s, UPDATE, { id: g.id, input: { title: "boom", cover: null } }, cover(GIF), {
      token: owner.token,
    });
    expect(r.errors?.[0].extensions?.code).toBe("INTERNAL_SERVER_ERROR");
    expect(await filesIn(s)).toEqual(files);
    expect((await s.db.prisma.grocery.findUniqueOrThrow({ where: { id: g.id } })).cover).toBe(g.cover);
  });

  it("ten parallel cover replacements leave exactly one file, the one stored", async () => {
    const g = await createWithCover(PNG, "Cherries");
    const results = await Promise.all(
      [GIF, JPEG, WEBP, GIF, JPEG, WEBP, GIF, JPEG, WEBP, PNG].map((file) =>
        multipart(s, UPDATE, { id: g.id, input: { cover: null } }, cover(file), { token: owner.token }),
      ),
    );
    for (const r of results) expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    const current = (await s.db.prisma.grocery.findUniqueOrThrow({ where: { id: g.id } })).cover!;
    const mentioned = [g.cover, ...results.map((r) => r.data.updateGrocery.cover)];
    const present = await Promise.all(mentioned.map((name) => isStored(s.store, name)));
    expect(mentioned.filter((_, i) => present[i])).toEqual([current]);
  });

  it("deleting the grocery (deleteGrocery or removeGrocery from the catalogue) deletes its cover file", async () => {
    const a = await createWithCover(PNG, "Melon");
    const b = await createWithCover(GIF, "Lemon");
    expect(
      (await s.graphql(`mutation($id: ID!) { deleteGrocery(id: $id) }`, { id: a.id }, owner.token)).data.deleteGrocery,
    ).toBe(a.id);
    const removal = await s.graphql(
      `mutation($id: ID!) { removeGrocery(id: $id, from: CATALOGUE) { groceryId removedFrom } }`,
      { id: b.id },
      admin.token,
    );
    expect(removal.data.removeGrocery).toEqual({ groceryId: b.id, removedFrom: "CATALOGUE" });
    expect(await stored(a.cover)).toBe(false);
    expect(await stored(b.cover)).toBe(false);
  });

  it("a refused delete keeps the file", async () => {
    const g = await createWithCover(PNG, "Guava");
    const r = await s.graphql(`mutation($id: ID!) { deleteGrocery(id: $id) }`, { id: g.id }, other.token);
    expect(r.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect(await stored(g.cover)).toBe(true);
  });

  it("never leaves temp files behind", async () => {
    expect((await filesIn(s)).filter((f) => /^(local:)?\./.test(f))).toEqual([]);
    expect((await filesIn(small)).filter((f) => /^(local:)?\./.test(f))).toEqual([]);
  });
});

describe("GET /uploads/:name", () => {
  it("answers 304 to a matching If-None-Match and serves HEAD", async () => {
    const g = await createWithCover(PNG, "Etag");
    const first = await s.fetch(g.coverUrl);
    const etag = first.headers.get("etag")!;
    expect(etag).toBeTruthy();
    expect((await s.fetch(g.coverUrl, { headers: { "if-none-match": etag } })).status).toBe(304);
    const head = await s.fetch(g.coverUrl, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("image/png");
  });

  it("answers 404 for unknown names, names it does not generate, and traversal attempts", async () => {
    // A file outside the upload folder with a name of the generated shape, and one inside with another shape.
    const outside = `${"a".repeat(32)}.png`;
    const outsidePath = path.join(path.dirname(s.config.uploadDir), outside);
    writeFileSync(outsidePath, PNG);
    onTestFinished(() => rmSync(outsidePath, { force: true }));
    writeFileSync(path.join(s.config.uploadDir, "notes.txt"), "secret");
    writeFileSync(path.join(s.config.uploadDir, `.incoming-${"b".repeat(32)}`), PNG);
    const names = [
      `${"0".repeat(32)}.png`,
      "notes.txt",
      `.incoming-${"b".repeat(32)}`,
      `..%2F${outside}`,
      `%2e%2e%2f${outside}`,
      `..%5C${outside}`,
      "..%2F..%2F..%2Fetc%2Fpasswd",
      `${"A".repeat(32)}.PNG`,
      `${"0".repeat(32)}.svg`,
      `${"0".repeat(32)}.png%00.txt`,
    ];
    for (const name of names) {
      const res = await s.fetch(`/uploads/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.headers.get("content-type"), name).toMatch(/json/);
    }
  });
});
