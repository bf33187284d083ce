// Issue 13, item 6: one user could store any amount of covers (2 GB in 10 s). Now each user's
// uploads are bounded by UPLOAD_QUOTA_BYTES (replaced or removed files stop counting), and no
// upload is stored while the disk is below UPLOAD_DISK_RESERVE_BYTES, so the database keeps room.
// Through the real server, on REST multipart and GraphQL Upload; refusals store nothing.
import { watch } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, sendMultipart, type FilePart } from "../rest/legacy.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { testingS3, uploadFilesOf } from "../helpers/upload-store.ts";
import { recordCoverSizes } from "../../src/storage/sweep.ts";

const PNG_HEAD = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
/** A PNG header followed by filler: an "image" of exactly `size` bytes. */
const pngOfSize = (size: number) => {
  const out = new Uint8Array(size);
  out.set(PNG_HEAD);
  return out;
};
const coverPart = (size: number): FilePart => ({
  name: "cover",
  filename: "c.png",
  type: "image/png",
  content: pngOfSize(size),
});

const CREATE = `mutation($input: CreateGroceryInput!) { createGrocery(input: $input) { id cover } }`;

/** createGrocery with a cover, as a GraphQL multipart request. */
async function graphqlCreate(s: TestServer, token: string, size: number) {
  const form = new FormData();
  form.append("operations", JSON.stringify({ query: CREATE, variables: { input: { title: "G", cover: null } } }));
  form.append("map", JSON.stringify({ 0: ["variables.input.cover"] }));
  form.append("0", new Blob([pngOfSize(size)], { type: "image/png" }), "c.png");
  const res = await s.fetch("/graphql", {
    method: "POST",
    body: form,
    token,
    headers: { "apollo-require-preflight": "1" },
  });
  return { status: res.status, body: (await res.json()) as any };
}

const filesIn = (s: TestServer) => uploadFilesOf(s);
const groceriesOf = (s: TestServer, ownerId: string) => s.db.prisma.grocery.count({ where: { ownerId } });

describe("per-user upload quota", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ UPLOAD_MAX_BYTES: "4096", UPLOAD_QUOTA_BYTES: "10000" });
  });
  afterAll(async () => s?.close());

  it("REST: uploads past the quota get 413 UPLOAD_QUOTA_EXCEEDED and store nothing; removed and replaced files stop counting", async () => {
    const user = await s.signUp("rest");
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await sendMultipart(s, "POST", "/groceries", { title: `G${i}` }, [coverPart(3000)], user.token);
      expect(a.status, JSON.stringify(a.body)).toBe(201);
      made.push(a.body._id);
    }
    const files = await filesIn(s);
    const over = await sendMultipart(s, "POST", "/groceries", { title: "Over" }, [coverPart(3000)], user.token);
    expectError(over, 413, "UPLOAD_QUOTA_EXCEEDED", /quota/);
    expect(await filesIn(s)).toEqual(files); // no file, no temp file left behind
    expect(await groceriesOf(s, user.id)).toBe(3);
    // Without a file, writing still works; another user has a quota of their own.
    expect((await sendMultipart(s, "POST", "/groceries", { title: "No cover" }, [], user.token)).status).toBe(201);
    const other = await s.signUp("other");
    expect(
      (await sendMultipart(s, "POST", "/groceries", { title: "Theirs" }, [coverPart(3000)], other.token)).status,
    ).toBe(201);
    // Replacing a cover counts the new file instead of the old one.
    const replaced = await sendMultipart(
      s,
      "PATCH",
      `/groceries?grocery_id=${made[0]}`,
      {},
      [coverPart(4000)],
      user.token,
    );
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(201);
    expectError(
      await sendMultipart(s, "PATCH", `/groceries?grocery_id=${made[1]}`, {}, [coverPart(4000)], user.token),
      413,
      "UPLOAD_QUOTA_EXCEEDED",
    );
    // Removing a grocery frees its cover's bytes.
    expect(
      (await s.fetch(`/groceries/${made[2]}?from=catalogue`, { method: "DELETE", token: user.token })).status,
    ).toBe(204);
    expect(
      (await sendMultipart(s, "POST", "/groceries", { title: "Again" }, [coverPart(3000)], user.token)).status,
    ).toBe(201);
  });

  it("GraphQL: createGrocery past the quota fails with UPLOAD_QUOTA_EXCEEDED and stores nothing", async () => {
    const user = await s.signUp("gql");
    for (let i = 0; i < 3; i++) expect((await graphqlCreate(s, user.token, 3000)).body.errors).toBeUndefined();
    const files = await filesIn(s);
    const over = await graphqlCreate(s, user.token, 3000);
    expect(over.body.errors?.[0]?.extensions?.code).toBe("UPLOAD_QUOTA_EXCEEDED");
    expect(over.body.data?.createGrocery ?? null).toBeNull();
    expect(await filesIn(s)).toEqual(files);
    expect(await groceriesOf(s, user.id)).toBe(3);
  });

  it("covers stored without a size (older rows, the seeder) count once the start-up sweep has measured them", async () => {
    const user = await s.signUp("legacy");
    const name = "0123456789abcdef0123456789abcdef.png";
    await s.store.putIfAbsent(name, Buffer.from(pngOfSize(8000)), "image/png");
    await s.db.prisma.grocery.create({ data: { title: "Old", titleSearch: "old", cover: name, ownerId: user.id } });
    expect(await recordCoverSizes(s.db, s.store)).toBe(1);
    expect(await recordCoverSizes(s.db, s.store)).toBe(0);
    expectError(
      await sendMultipart(s, "POST", "/groceries", { title: "New" }, [coverPart(3000)], user.token),
      413,
      "UPLOAD_QUOTA_EXCEEDED",
    );
    expect((await sendMultipart(s, "POST", "/groceries", { title: "New" }, [coverPart(2000)], user.token)).status).toBe(
      201,
    );
  });

  it("uploads sent at once never take a user past the quota", async () => {
    const user = await s.signUp("burst");
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        sendMultipart(s, "POST", "/groceries", { title: `B${i}` }, [coverPart(3000)], user.token),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    for (const a of answers.filter((a) => a.status !== 201)) expectError(a, 413, "UPLOAD_QUOTA_EXCEEDED");
    const { _sum } = await s.db.prisma.grocery.aggregate({ where: { ownerId: user.id }, _sum: { coverBytes: true } });
    expect(_sum.coverBytes).toBe(9000);
  });
});

// The reserve guards UPLOAD_DIR's filesystem (the database may share it); a bucket has no such
// reserve, so with UPLOAD_STORE=s3 this group is not run (the filesystem run covers it).
describe.skipIf(testingS3)("free-disk reserve", () => {
  let s: TestServer;
  beforeAll(async () => {
    // A reserve no disk here has free: every upload must be refused, every other write still work.
    s = await startServer({ UPLOAD_DISK_RESERVE_BYTES: String(2 ** 50) });
  });
  afterAll(async () => s?.close());

  it("refuses uploads with 507 STORAGE_FULL (REST) and STORAGE_FULL (GraphQL), storing nothing, while other writes work", async () => {
    const user = await s.signUp("disk");
    const files = await filesIn(s);
    expectError(
      await sendMultipart(s, "POST", "/groceries", { title: "Full" }, [coverPart(3000)], user.token),
      507,
      "STORAGE_FULL",
    );
    const viaGraphql = await graphqlCreate(s, user.token, 3000);
    expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe("STORAGE_FULL");
    expect(await filesIn(s)).toEqual(files);
    expect(await groceriesOf(s, user.id)).toBe(0);
    // A normal write still works.
    const plain = await sendMultipart(s, "POST", "/groceries", { title: "No cover" }, [], user.token);
    expect(plain.status).toBe(201);
    const r = await s.graphql(`mutation { createRestaurant(input: { title: "R" }) { id } }`, undefined, user.token);
    expect(r.errors).toBeUndefined();
  });

  it("writes no byte of a REST upload to disk while below the reserve, not even a spool file", async () => {
    const user = await s.signUp("spool");
    const created: string[] = [];
    // inotify sees a file that is created and removed at once, which a listing after the answer would miss.
    const watcher = watch(s.config.uploadDir, (_event, name) => void (name && created.push(name)));
    try {
      const big = await sendMultipart(
        s,
        "POST",
        "/groceries",
        { title: "Full" },
        [coverPart(2 * 1024 * 1024)],
        user.token,
      );
      expectError(big, 507, "STORAGE_FULL");
      await new Promise((resolve) => setTimeout(resolve, 200)); // let inotify's events arrive
    } finally {
      watcher.close();
    }
    expect(created).toEqual([]);
    expect(await groceriesOf(s, user.id)).toBe(0);
  });

  it("the OpenAPI document lists 507 for the routes that take a file, and only those", async () => {
    const doc = (await (await s.fetch("/openapi.json")).json()) as any;
    expect(doc.paths["/groceries"].post.responses["507"]).toEqual({
      $ref: "#/components/responses/InsufficientStorage",
    });
    expect(doc.paths["/groceries"].patch.responses["507"]).toBeDefined();
    expect(doc.paths["/restaurants"].post.responses["507"]).toBeUndefined();
  });
});
