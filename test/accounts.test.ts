// Accounts and tokens through the real server: register, login, logout, where the token may be.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "./helpers/server.ts";

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => s?.close());

const ME = `{ me { id username firstName role } }`;

async function register(username: string, password = "password-1") {
  const res = await s.fetch("/users", { method: "POST", json: { username, password, first_name: "Ann" } });
  return { res, body: (await res.json()) as any };
}

describe("POST /users (register)", () => {
  it("creates the user and answers 201 with a working token", async () => {
    const { res, body } = await register("ann");
    expect(res.status).toBe(201);
    expect(body.user).toMatchObject({ username: "ann", first_name: "Ann", role: "user" });
    expect(typeof body.user._id).toBe("string");
    expect(body.access_token).toMatch(/^[\w-]{40,}$/);
    const me = await s.graphql(ME, {}, body.access_token);
    expect(me.data.me).toMatchObject({ id: body.user._id, username: "ann", role: "USER" });
  });

  it("refuses a taken username with 409 and creates nothing", async () => {
    await register("bob");
    const before = await s.db.prisma.user.count();
    const { res, body } = await register("bob");
    expect(res.status).toBe(409);
    expect(body.error.code).toBe("CONFLICT");
    expect(await s.db.prisma.user.count()).toBe(before);
  });

  it("refuses bad fields with 400 naming each one", async () => {
    const res = await s.fetch("/users", {
      method: "POST",
      json: { username: "x", password: "short", first_name: "X" },
    });
    const body = (await res.json()) as any;
    expect(res.status).toBe(400);
    expect(body.error.code).toBe("BAD_USER_INPUT");
    expect(body.error.message).toMatch(/username/);
    expect(body.error.message).toMatch(/password/);
  });

  it("stores only a scrypt hash of the password and a SHA-256 of the token", async () => {
    const { body } = await register("carol", "secret-password");
    const user = await s.db.prisma.user.findUniqueOrThrow({ where: { username: "carol" }, include: { tokens: true } });
    expect(user.passwordHash).toMatch(/^scrypt\$/);
    expect(user.passwordHash).not.toContain("secret-password");
    expect(user.tokens[0].tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(user.tokens[0].tokenHash).not.toBe(body.access_token);
  });
});

describe("POST /auth/token (login) and DELETE /auth/token (logout)", () => {
  it("logs in with a form body and revokes the token", async () => {
    await register("dave", "password-dave");
    const res = await s.fetch("/auth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=dave&password=password-dave",
    });
    expect(res.status).toBe(200);
    const { access_token } = (await res.json()) as any;
    expect((await s.graphql(ME, {}, access_token)).data.me.username).toBe("dave");

    const out = await s.fetch("/auth/token", { method: "DELETE", token: access_token });
    expect(out.status).toBe(204);
    const after = await s.graphql(ME, {}, access_token);
    expect(after.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    const rest = await s.fetch("/auth/token", { method: "DELETE", token: access_token });
    expect(rest.status).toBe(401);
  });

  it("refuses a wrong password with 401, the same as an unknown user", async () => {
    await register("erin", "password-erin");
    const wrong = await s.fetch("/auth/token", { method: "POST", json: { username: "erin", password: "nope-nope" } });
    const unknown = await s.fetch("/auth/token", {
      method: "POST",
      json: { username: "nobody", password: "nope-nope" },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(((await wrong.json()) as any).error.message).toBe(((await unknown.json()) as any).error.message);
  });

  it("refuses a login without fields with 400", async () => {
    const res = await s.fetch("/auth/token", { method: "POST", json: {} });
    expect(res.status).toBe(400);
  });
});

describe("where the token is read from", () => {
  it("accepts Authorization: Bearer, the access_token query parameter and the access_token body field", async () => {
    const { body } = await register("frank");
    const token = body.access_token as string;
    expect((await s.graphql(ME, {}, token)).data.me.username).toBe("frank");

    const viaQuery = await s.fetch(`/graphql?access_token=${encodeURIComponent(token)}`, {
      method: "POST",
      json: { query: ME },
    });
    expect(((await viaQuery.json()) as any).data.me.username).toBe("frank");

    // DELETE /auth/token with the token only in the body: revokes it.
    const viaBody = await s.fetch("/auth/token", { method: "DELETE", json: { access_token: token } });
    expect(viaBody.status).toBe(204);
    expect((await s.graphql(ME, {}, token)).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("answers 401 with no token, a made-up token, or an expired one", async () => {
    expect((await s.fetch("/auth/token", { method: "DELETE" })).status).toBe(401);
    expect((await s.fetch("/auth/token", { method: "DELETE", token: "made-up-token" })).status).toBe(401);

    const { body } = await register("gina");
    await s.db.prisma.accessToken.updateMany({
      where: { userId: body.user._id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await s.graphql(ME, {}, body.access_token);
    expect(expired.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(expired.errors?.[0].message).toMatch(/expired/);
  });

  it("gives tokens the configured lifetime", async () => {
    const { body } = await register("hank");
    const days = (Date.parse(body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
  });
});

describe("health", () => {
  it("answers /healthz and /readyz", async () => {
    expect(await (await s.fetch("/healthz")).json()).toEqual({ status: "ok" });
    expect(await (await s.fetch("/readyz")).json()).toEqual({
      status: "ok",
      database: "ok",
      writes: "ok",
      uploads: "ok",
    });
  });
});

describe("Query.user (public profile)", () => {
  it("shows another user's profile with their rating, null for an unknown id, and needs a token", async () => {
    const { body: ann } = await register("profiled");
    const { body: viewer } = await register("viewer");
    const q = `query($id: ID!) { user(id: $id) { id username firstName avatar role rating } }`;
    const seen = await s.graphql(q, { id: ann.user._id }, viewer.access_token);
    // role is the account's own business (and admins'): another user reads null.
    expect(seen.data.user).toEqual({
      id: ann.user._id,
      username: "profiled",
      firstName: "Ann",
      avatar: null,
      role: null,
      rating: null,
    });
    expect((await s.graphql(q, { id: "no-such-user" }, viewer.access_token)).data.user).toBeNull();
    expect((await s.graphql(q, { id: ann.user._id })).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });
});

describe("session cache", () => {
  let cached: TestServer;
  let uncached: TestServer;
  beforeAll(async () => {
    cached = await startServer({ SESSION_CACHE_TTL: "400ms" });
    uncached = await startServer({ SESSION_CACHE_TTL: "0" });
  });
  afterAll(async () => Promise.all([cached?.close(), uncached?.close()]));

  it("forgets a token at once on logout through this process", async () => {
    const { token } = await cached.signUp("cache");
    expect((await cached.graphql(ME, {}, token)).data.me).toBeTruthy();
    expect((await cached.fetch("/auth/token", { method: "DELETE", token })).status).toBe(204);
    expect((await cached.graphql(ME, {}, token)).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("sees a revocation made elsewhere (another instance, the admin CLI) within its TTL", async () => {
    const { token, id } = await cached.signUp("elsewhere");
    expect((await cached.graphql(ME, {}, token)).data.me).toBeTruthy();
    await cached.db.prisma.accessToken.updateMany({ where: { userId: id }, data: { revokedAt: new Date() } });
    expect((await cached.graphql(ME, {}, token)).data.me).toBeTruthy(); // still remembered
    await new Promise((r) => setTimeout(r, 450));
    expect((await cached.graphql(ME, {}, token)).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("with SESSION_CACHE_TTL=0, looks the token up on every request", async () => {
    const { token, id } = await uncached.signUp("nocache");
    expect((await uncached.graphql(ME, {}, token)).data.me).toBeTruthy();
    await uncached.db.prisma.accessToken.updateMany({ where: { userId: id }, data: { revokedAt: new Date() } });
    expect((await uncached.graphql(ME, {}, token)).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });
});
