// Trusted documents (issue 42 item 1): with TRUSTED_DOCUMENTS=enforce only the documents of the
// manifests run, by id (documentId, doc_id, extensions.persistedQuery) or by their exact text,
// on POST and GET /graphql, graphql-ws and graphql-sse alike; the REST shim's own documents are
// always trusted; an admin may still send text (the IDE). `allow` serves the ids and admits any
// text. A manifest that does not parse or names a document that does not validate stops start-up
// with exit 2 naming the entry. Both manifest formats: the client preset's and relay-compiler's.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { ManifestError, readManifests } from "../../src/graphql/persisted/manifest.ts";
import { TrustedDocuments } from "../../src/graphql/persisted/trusted-documents.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { testRunner } from "../helpers/runner.ts";
import { liveClient, subscribe, within, type LiveClient } from "../helpers/live.ts";
import { runUntilExit } from "../helpers/process.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

// As the client preset writes them: sha256 of the text -> text.
const TITLE = "query RestaurantTitle($id: ID!) {\n  restaurant(id: $id) {\n    id\n    title\n  }\n}";
const COMMENTS = "subscription CommentAdded($id: ID!) {\n  commentAdded(restaurantId: $id) {\n    title\n  }\n}";
// As relay-compiler's local persistence writes them (its id: here an MD5's length, any id will do).
const RELAY_ID = "3f1c0de5a1b2c3d4e5f60718293a4b5c";
const ME = "query appMeQuery {\n  me {\n    username\n  }\n}\n";
const UNTRUSTED = "query Untrusted { me { id username } }";

const folder = mkdtempSync(path.join(tmpdir(), "manifests-"));
const manifest = (name: string, entries: Record<string, unknown> | string) => {
  const file = path.join(folder, name);
  writeFileSync(file, typeof entries === "string" ? entries : JSON.stringify(entries, null, 2));
  return file;
};
const clientPreset = manifest("persisted-documents.json", { [sha256(TITLE)]: TITLE, [sha256(COMMENTS)]: COMMENTS });
const relay = manifest("relay-persisted.json", { [RELAY_ID]: ME });
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Signs up through the REST shim (its documents are trusted; the GraphQL register mutation is not in the manifests). */
async function restSignUp(s: TestServer, username: string, role: "USER" | "ADMIN" = "USER") {
  const res = await s.fetch("/users", { method: "POST", json: { username, password: "password-1", first_name: "T" } });
  expect(res.status).toBe(201);
  if (role === "ADMIN") await s.db.prisma.user.update({ where: { username }, data: { role } });
  return { token: (await res.json()).access_token as string, username };
}

const codeOf = (body: { errors?: { extensions?: { code?: string } }[] }) => body.errors?.[0]?.extensions?.code;
const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });
const query = (params: Record<string, unknown>) =>
  new URLSearchParams(
    Object.entries(params).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  ).toString();

describe("TRUSTED_DOCUMENTS=enforce", () => {
  let s: TestServer;
  let user: { token: string; username: string };
  let admin: { token: string };
  let restaurantId: string;
  const clients: LiveClient[] = [];

  beforeAll(async () => {
    s = await startServer({ TRUSTED_DOCUMENTS: "enforce", TRUSTED_DOCUMENTS_MANIFEST: `${clientPreset},${relay}` });
    // Signing up runs the REST shim's own document: trusted whatever the manifest says.
    user = await restSignUp(s, "trusting");
    admin = await restSignUp(s, "boss", "ADMIN");
    const created = await s.fetch("/restaurants", {
      method: "POST",
      token: user.token,
      json: { title: "Trusted Tavern" },
    });
    expect(created.status).toBe(201);
    restaurantId = (await created.json())._id;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await s?.close();
  });

  const post = (body: unknown, token = user.token) => s.fetch("/graphql", { method: "POST", token, json: body });
  const get = (params: Record<string, unknown>, token = user.token) => s.fetch(`/graphql?${query(params)}`, { token });
  const titled = () => ({ restaurant: { id: restaurantId, title: "Trusted Tavern" } });

  it("runs a manifest document by any id form, on POST and GET", async () => {
    const variables = { id: restaurantId };
    const answers = [
      await post({ documentId: `sha256:${sha256(TITLE)}`, variables }),
      await post({ documentId: sha256(TITLE), variables }),
      await post({ doc_id: sha256(TITLE), variables }),
      await post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(TITLE) } }, variables }),
      // The client preset's hash as an Apollo link would send it (generateHash: document.__meta__.hash).
      await post({ extensions: { persistedQuery: { version: 1, sha256Hash: `sha256:${sha256(TITLE)}` } }, variables }),
      await get({ documentId: `sha256:${sha256(TITLE)}`, variables }),
      await get({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(TITLE) } }, variables }),
    ];
    for (const res of answers) expect(await json(res)).toEqual({ status: 200, body: { data: titled() } });
    // relay-compiler's manifest: its ids are whatever its persister chose.
    expect(await json(await post({ doc_id: RELAY_ID }))).toEqual({
      status: 200,
      body: { data: { me: { username: user.username } } },
    });
  });

  it("answers a GET by id with the Cache-Control and ETag of its text, and a 304 to a client holding it", async () => {
    const variables = { id: restaurantId };
    const byId = await get({ documentId: `sha256:${sha256(TITLE)}`, variables });
    expect(byId.status).toBe(200);
    // Signed in: a private cache may keep it, a shared one may not (docs/http-caching.md).
    expect(byId.headers.get("cache-control")).toBe("private, max-age=60");
    const etag = byId.headers.get("etag");
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await get({ query: TITLE, variables })).headers.get("etag")).toBe(etag);
    const held = await s.fetch(`/graphql?${query({ documentId: `sha256:${sha256(TITLE)}`, variables })}`, {
      token: user.token,
      headers: { "if-none-match": etag! },
    });
    expect(held.status).toBe(304);
    // A refusal is never kept.
    expect((await get({ documentId: "no-such-document" })).headers.get("cache-control")).toBe("no-store");
  });

  it("runs a manifest document sent as its exact text", async () => {
    expect((await json(await post({ query: TITLE, variables: { id: restaurantId } }))).body).toEqual({
      data: titled(),
    });
    expect((await json(await get({ query: TITLE, variables: { id: restaurantId } }))).body).toEqual({ data: titled() });
  });

  it("refuses any other text with 400 DOCUMENT_NOT_TRUSTED on POST and GET, running nothing", async () => {
    const mutation = `mutation { createRestaurant(input: { title: "Sneaked In" }) { id } }`;
    const reformatted = TITLE.replace(/\n\s*/g, " ");
    for (const res of [
      await post({ query: UNTRUSTED }),
      await get({ query: UNTRUSTED }),
      await post({ query: mutation }),
      await post({ query: reformatted, variables: { id: restaurantId } }),
    ]) {
      const { status, body } = await json(res);
      expect(status).toBe(400);
      expect(body.data).toBeUndefined();
      expect(codeOf(body)).toBe("DOCUMENT_NOT_TRUSTED");
      expect(body.errors[0].message).toMatch(/TRUSTED_DOCUMENTS=enforce/);
    }
    const list = await s.fetch("/restaurants?title=Sneaked", { token: user.token });
    expect(JSON.stringify(await list.json())).not.toContain("Sneaked In");
  });

  it("refuses an untrusted text also once it is known to the direct answer (an admin sent it)", async () => {
    for (let i = 0; i < 3; i++) expect((await json(await post({ query: UNTRUSTED }, admin.token))).status).toBe(200);
    const { status, body } = await json(await post({ query: UNTRUSTED }));
    expect(status).toBe(400);
    expect(codeOf(body)).toBe("DOCUMENT_NOT_TRUSTED");
  });

  it("lets a signed-in admin send any text (the IDE), introspection included", async () => {
    const { status, body } = await json(await post({ query: "{ __schema { queryType { name } } }" }, admin.token));
    expect(status).toBe(200);
    expect(body.data.__schema.queryType.name).toBe("Query");
    expect(codeOf((await json(await post({ query: "{ __schema { queryType { name } } }" }))).body)).toBe(
      "DOCUMENT_NOT_TRUSTED",
    );
  });

  it("keeps the REST shim working: its documents are the server's own", async () => {
    const res = await s.fetch(`/restaurants/${restaurantId}`, { token: user.token });
    expect(res.status).toBe(200);
    expect((await res.json()).title).toBe("Trusted Tavern");
  });

  it("answers an id the manifests do not hold 400 PERSISTED_QUERY_NOT_FOUND, saying why", async () => {
    for (const res of [
      await post({ documentId: "sha256:" + "0".repeat(64) }),
      await post({ doc_id: "no-such-document" }),
      await get({ documentId: "no-such-document" }),
      // Automatic persisted queries look nothing up and keep nothing under enforce.
      await post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(UNTRUSTED) } } }),
    ]) {
      const { status, body } = await json(res);
      expect(status).toBe(400);
      expect(codeOf(body)).toBe("PERSISTED_QUERY_NOT_FOUND");
      expect(body.errors[0].message).toMatch(/No trusted document has the .*TRUSTED_DOCUMENTS=enforce/);
    }
  });

  it("refuses a malformed id, or an id beside a text, with 400 BAD_REQUEST", async () => {
    for (const [body, words] of [
      [{ documentId: "has spaces" }, /documentId must be a document id/],
      [{ documentId: "x".repeat(129) }, /documentId must be a document id/],
      [{ doc_id: 42 }, /doc_id must be a document id/],
      [{ documentId: sha256(TITLE), query: TITLE }, /not both/],
      [{ documentId: sha256(TITLE), doc_id: sha256(TITLE) }, /Name the document once/],
    ] as const) {
      const answer = await json(await post(body));
      expect(answer.status).toBe(400);
      expect(codeOf(answer.body)).toBe("BAD_REQUEST");
      expect(answer.body.errors[0].message).toMatch(words);
    }
  });

  it("registers nothing: a text sent with its hash runs only if trusted", async () => {
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(UNTRUSTED) } };
    expect(codeOf((await json(await post({ query: UNTRUSTED, extensions }))).body)).toBe("DOCUMENT_NOT_TRUSTED");
    const trusted = { persistedQuery: { version: 1, sha256Hash: sha256(TITLE) } };
    expect(
      (await json(await post({ query: TITLE, extensions: trusted, variables: { id: restaurantId } }))).body,
    ).toEqual({
      data: titled(),
    });
  });

  describe("live transports", () => {
    it("graphql-ws: refuses an untrusted subscription, runs a manifest one sent by id", async () => {
      const client = liveClient(s, { authorization: `Bearer ${user.token}` });
      clients.push(client);
      const refused = (await within(
        subscribe(client, `subscription { commentAdded(restaurantId: "${restaurantId}") { id } }`).ended,
        "the refusal",
      )) as { extensions: { code: string } }[];
      expect(refused[0].extensions.code).toBe("DOCUMENT_NOT_TRUSTED");
      const byId = subscribe(
        client,
        "",
        { id: restaurantId },
        { persistedQuery: { version: 1, sha256Hash: sha256(COMMENTS) } },
      );
      const byText = subscribe(client, COMMENTS, { id: restaurantId });
      // Both are listening once a comment (through the REST shim) reaches them.
      let delivered: unknown[] = [];
      for (let attempt = 0; attempt < 20 && delivered.length < 2; attempt++) {
        await s.fetch(`/restaurants/${restaurantId}/comments`, {
          method: "PUT",
          token: user.token,
          json: { title: `live ${attempt}`, body: "b", rating: 5 },
        });
        await new Promise((r) => setTimeout(r, 100));
        delivered = [byId.results[0], byText.results[0]].filter(Boolean);
      }
      expect(byId.results[0]?.data?.commentAdded.title).toMatch(/^live/);
      expect(byText.results[0]?.data?.commentAdded.title).toMatch(/^live/);
      byId.stop();
      byText.stop();
    });

    it("graphql-sse: refuses an untrusted subscription, streams a manifest one sent by id", async () => {
      const stream = (body: unknown) =>
        s.fetch("/graphql/stream", {
          method: "POST",
          token: user.token,
          headers: { accept: "text/event-stream" },
          json: body,
        });
      const refused = await stream({ query: `subscription { commentAdded(restaurantId: "${restaurantId}") { id } }` });
      expect(refused.status).toBe(400);
      expect(codeOf(await refused.json())).toBe("DOCUMENT_NOT_TRUSTED");
      const byId = await stream({ documentId: sha256(COMMENTS), variables: { id: restaurantId } });
      expect(byId.status).toBe(200);
      expect(byId.headers.get("content-type")).toMatch(/^text\/event-stream/);
      await byId.body?.cancel();
    });
  });
});

describe("TRUSTED_DOCUMENTS=allow", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer({ TRUSTED_DOCUMENTS: "allow", TRUSTED_DOCUMENTS_MANIFEST: relay });
    token = (await s.signUp("allowed")).token;
  });
  afterAll(async () => s?.close());

  it("serves the manifest's ids and still admits any text", async () => {
    const byId = await s.fetch("/graphql", { method: "POST", token, json: { doc_id: RELAY_ID } });
    expect((await byId.json()).data.me.username).toMatch(/^allowed/);
    expect((await s.graphql(UNTRUSTED, {}, token)).data.me.username).toMatch(/^allowed/);
    const unknown = await s.fetch("/graphql", { method: "POST", token, json: { doc_id: "unknown" } });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).errors[0].message).toMatch(/No document has the doc_id "unknown"/);
  });
});

describe("TRUSTED_DOCUMENTS_ADMIN_TEXT=false", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({
      TRUSTED_DOCUMENTS: "enforce",
      TRUSTED_DOCUMENTS_MANIFEST: relay,
      TRUSTED_DOCUMENTS_ADMIN_TEXT: "false",
    });
  });
  afterAll(async () => s?.close());

  it("refuses an admin's text too", async () => {
    const admin = await restSignUp(s, "strictadmin", "ADMIN");
    expect(codeOf((await s.graphql(UNTRUSTED, {}, admin.token)).body)).toBe("DOCUMENT_NOT_TRUSTED");
  });
});

describe("a manifest that is not right stops start-up, naming the entry", () => {
  /** What start-up does with the manifests (src/server.ts): read them, then check each document with the runner. */
  const runner = testRunner();
  const load = (file: string) => {
    new TrustedDocuments("enforce", readManifests([file])).check(runner.parseOptions, runner.validated);
  };

  it.each([
    ["not JSON", manifest("broken.json", "{ not json"), /broken\.json: is not JSON/],
    ["an array", manifest("array.json", "[]"), /array\.json: is not a JSON object of id -> document text/],
    ["empty", manifest("empty.json", "{}"), /empty\.json: holds no document/],
    [
      "a value that is not text",
      manifest("number.json", { abc: 42 }),
      /entry "abc": the value must be the document's text/,
    ],
    ["a bad id", manifest("bad-id.json", { "has space": "{ me { id } }" }), /entry "has space": an id is 1 to 128/],
    ["a document that does not parse", manifest("unparsed.json", { p1: "query {" }), /entry "p1" does not parse/],
    [
      "a document that does not validate",
      manifest("invalid.json", { v1: "{ me { nickname } }" }),
      /invalid\.json: entry "v1" does not validate: Cannot query field "nickname"/,
    ],
    ["a file that is not there", path.join(folder, "missing.json"), /missing\.json: cannot be read \(ENOENT\)/],
  ])("%s", (_, file, message) => {
    expect(() => load(file)).toThrow(ManifestError);
    expect(() => load(file)).toThrow(message);
  });

  it("two manifests naming different documents with one id", () => {
    const other = manifest("other.json", { [RELAY_ID]: TITLE });
    expect(() => readManifests([relay, other])).toThrow(
      /other\.json: entry "3f1c.*relay-persisted\.json names another document/,
    );
  });

  it("settings that do not go together", () => {
    expect(() => loadConfig({ TRUSTED_DOCUMENTS: "enforce" })).toThrow(/TRUSTED_DOCUMENTS=enforce: name the manifest/);
    expect(() => loadConfig({ TRUSTED_DOCUMENTS_MANIFEST: relay })).toThrow(
      /a manifest is read only with TRUSTED_DOCUMENTS=allow or enforce/,
    );
    expect(() =>
      loadConfig({ TRUSTED_DOCUMENTS: "enforce", TRUSTED_DOCUMENTS_MANIFEST: relay, FEDERATION_SUBGRAPH: "true" }),
    ).toThrow(/TRUSTED_DOCUMENTS=enforce: a subgraph \(FEDERATION_SUBGRAPH=true\) runs the gateway's query plans/);
    expect(
      loadConfig({ TRUSTED_DOCUMENTS: "allow", TRUSTED_DOCUMENTS_MANIFEST: relay, FEDERATION_SUBGRAPH: "true" })
        .persisted.trust,
    ).toBe("allow");
  });

  it("the real process: exit 2, the entry named, no stack trace", async () => {
    const database = await createTestDatabase();
    try {
      const { code, output } = await runUntilExit({
        DATABASE_URL: database.url,
        UPLOAD_DIR: path.join(folder, "uploads"),
        TRUSTED_DOCUMENTS: "enforce",
        TRUSTED_DOCUMENTS_MANIFEST: manifest("startup.json", { good: ME, bad: "{ me { nickname } }" }),
      });
      expect(code).toBe(2);
      expect(output).toMatch(/startup\.json: entry "bad" does not validate: Cannot query field "nickname"/);
      expect(output).not.toMatch(/\n\s+at /);
    } finally {
      await database.drop();
    }
  });
});
