// Several instances as one, with no shared disk (issue 47): two instances on one database (the
// suite's: PostgreSQL in its PostgreSQL run), one Redis and one bucket behave as one for covers:
// a cover uploaded through A is served by B, one replaced through B is gone from the bucket and
// from A, and /readyz of both shows the bucket and Redis.
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PNG, sendMultipart } from "../rest/legacy.ts";
import { redisServerInstalled, startRedis, type TestRedis } from "../helpers/redis.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { adminClient, bucketSettings, startS3Server, type S3Server } from "../helpers/s3-server.ts";

const GIF = new Uint8Array(Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64"));

/** A REST call with `image` as its multipart cover. */
const sendCover = (
  s: TestServer,
  method: "POST" | "PATCH",
  path: string,
  fields: Record<string, string>,
  image: Uint8Array,
  token: string,
) =>
  sendMultipart(
    s,
    method,
    path,
    fields,
    [{ name: "cover", filename: "cover.bin", type: "application/octet-stream", content: image }],
    token,
  );

describe.skipIf(!redisServerInstalled)("two instances, one database, one Redis, one bucket", () => {
  let s3: S3Server;
  let redis: TestRedis;
  let a: TestServer;
  let b: TestServer;
  let bucket: string;
  beforeAll(async () => {
    [s3, redis] = await Promise.all([startS3Server(), startRedis()]);
    const settings = await bucketSettings(s3);
    bucket = settings.S3_BUCKET;
    a = await startServer({ ...settings, REDIS_URL: redis.url });
    b = await startServer({ REDIS_URL: redis.url }, { alongside: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await redis?.close();
    await s3?.close();
  });

  const objects = async () => {
    const admin = adminClient(s3.endpoint);
    try {
      return ((await admin.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key).sort();
    } finally {
      admin.destroy();
    }
  };

  it("both are ready, with the bucket and Redis", async () => {
    for (const s of [a, b]) {
      expect(s.config.uploadStore).toMatchObject({ kind: "s3", bucket });
      const ready = await s.fetch("/readyz");
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ uploads: "ok", redis: "ok" });
    }
  });

  it("a cover uploaded through A is served by B; replaced through B, the old object is gone for both", async () => {
    const owner = await a.signUp("bucket");
    const added = await sendCover(a, "POST", "/groceries", { title: "Plums" }, PNG, owner.token);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const first = added.body.cover as string;
    expect(await objects()).toEqual([first]);
    const served = await b.fetch(`/uploads/${first}`);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(Buffer.from(PNG));

    const replaced = await sendCover(b, "PATCH", `/groceries?id=${added.body._id}`, {}, GIF, owner.token);
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(201);
    const second = replaced.body.cover as string;
    expect(second).toMatch(/\.gif$/);
    expect(await objects()).toEqual([second]);
    const fromA = await a.fetch(`/uploads/${second}`);
    expect(fromA.status).toBe(200);
    expect(Buffer.from(await fromA.arrayBuffer())).toEqual(Buffer.from(GIF));
    for (const s of [a, b]) expect((await s.fetch(`/uploads/${first}`)).status).toBe(404);
  });
});
