// Sign-in with JWTs from a real OpenID Connect provider (oidc-provider on 127.0.0.1, tokens from
// its token endpoint through the client credentials grant with a resource indicator): the same
// token on GraphQL, REST, WebSocket and Server-Sent Events; the account created on first sight,
// once; the roles claim per token; a key rotation picked up and a removed key dropped; refusals
// with a clear 401 that create nothing; an expired token ending the subscriptions it opened.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient as createSseClient } from "graphql-sse";
import { SignJWT, UnsecuredJWT, decodeJwt, importJWK, type JWK } from "jose";
import { databaseState, stateChanges } from "../hardening/database-state.ts";
import {
  API_AUDIENCE,
  providerSettings,
  signingKey,
  startIdentityProvider,
  type IdentityProvider,
} from "../helpers/identity-provider.ts";
import { CountingBus, eventually, liveClient, subscribe, within } from "../helpers/live.ts";
import { runAdmin } from "../helpers/process.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let idp: IdentityProvider;
let firstKey: JWK;
let s: TestServer;
let bus: CountingBus;

// Keys fetched longer than 2 s ago are fetched again; a token naming an unknown key fetches at
// once unless a fetch ran in the last 200 ms; no clock tolerance (the expiry tests wait less).
const KEYS_MAX_AGE_MS = 2000;

beforeAll(async () => {
  firstKey = await signingKey("key-1");
  idp = await startIdentityProvider({ keys: [firstKey] });
  bus = new CountingBus();
  s = await startServer(
    {
      ...providerSettings(idp, { OIDC_JWKS_MAX_AGE: `${KEYS_MAX_AGE_MS}ms`, OIDC_CLOCK_TOLERANCE: "0" }),
      SESSION_CACHE_TTL: "200ms",
    },
    { events: bus },
  );
});
afterAll(async () => {
  await s?.close();
  await idp?.close();
});

const ME = `{ me { id username firstName role } }`;

/** Whether `token` signs in on GraphQL (which answers a refused token in `errors`, HTTP 200). */
const signsIn = async (token: string) => Boolean((await s.graphql(ME, {}, token)).data?.me);

function sseClient(token: string) {
  return createSseClient({
    url: `${s.url}/graphql/stream`,
    singleConnection: false,
    retryAttempts: 0,
    headers: { authorization: `Bearer ${token}` },
  });
}

/** Follows a subscription over Server-Sent Events: its first result, and how it ended. */
function sseFollow(token: string, query: string, variables?: Record<string, unknown>) {
  const client = sseClient(token);
  let first!: (value: unknown) => void;
  const firstResult = new Promise((resolve) => (first = resolve));
  const ended = new Promise((resolve) =>
    client.subscribe(
      { query, variables },
      { next: (r) => first(r), error: resolve, complete: () => resolve("complete") },
    ),
  );
  return { client, firstResult, ended };
}

describe("a token from the identity provider", () => {
  it("works on GraphQL, REST, WebSocket and Server-Sent Events, as one account created on first sight", async () => {
    const token = await idp.token("ann-app");
    expect(decodeJwt(token)).toMatchObject({ iss: idp.issuer, aud: API_AUDIENCE, sub: "ann-app" });
    const me = await s.graphql(ME, {}, token);
    expect(me.status).toBe(200);
    expect(me.data.me).toMatchObject({ username: "ann", firstName: "Ann", role: "USER" });
    const annId = me.data.me.id;

    // REST: a restaurant created with the token is the account's.
    const created = await s.fetch("/restaurants", { method: "POST", token, json: { title: "Ann's diner" } });
    expect(created.status).toBe(201);
    const restaurant = (await created.json()) as { _id: string; owner: { user_id: string; user_username: string } };
    expect(restaurant.owner).toMatchObject({ user_id: annId, user_username: "ann" });

    // WebSocket (connection_init) and Server-Sent Events (the Authorization header): both see a comment.
    const commentAdded = `subscription($id: ID!) { commentAdded(restaurantId: $id) { title author { id } } }`;
    const ws = liveClient(s, { authorization: `Bearer ${token}` });
    const before = bus.listening;
    const wsSub = subscribe(ws, commentAdded, { id: restaurant._id });
    const sse = sseFollow(token, commentAdded, { id: restaurant._id });
    await bus.untilListening(before + 2);
    const added = await s.graphql(
      `mutation($id: ID!) { addComment(restaurantId: $id, input: { title: "Good", body: "Fine food", rating: 5 }) { id } }`,
      { id: restaurant._id },
      token,
    );
    expect(added.errors).toBeUndefined();
    expect((await wsSub.next()).data).toEqual({ commentAdded: { title: "Good", author: { id: annId } } });
    expect(await within(sse.firstResult, "the stream's event")).toMatchObject({
      data: { commentAdded: { title: "Good", author: { id: annId } } },
    });
    sse.client.dispose();
    await ws.dispose();

    // One account, linked to the token's issuer and subject; it has no password anyone could use.
    expect(
      await s.db.prisma.providerIdentity.findMany({ select: { issuer: true, subject: true, userId: true } }),
    ).toEqual([{ issuer: idp.issuer, subject: "ann-app", userId: annId }]);
    const login = await s.graphql(`mutation { login(username: "ann", password: "any-password") { accessToken } }`);
    expect(login.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("creates one account when many first requests of a new person arrive at once, with one token or several", async () => {
    const [one, other] = [await idp.token("cat-app"), await idp.token("cat-app")];
    expect(one).not.toBe(other);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => s.graphql(ME, {}, i % 2 ? one : other)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.data.me.id)).size).toBe(1);
    expect(await s.db.prisma.providerIdentity.count({ where: { subject: "cat-app" } })).toBe(1);
    expect(await s.db.prisma.user.count({ where: { username: { startsWith: "cat" } } })).toBe(1);
  });

  it("never takes over a local account of the same name: the new account gets a suffix", async () => {
    const local = await s.graphql(
      `mutation { register(input: { username: "bob", password: "bob-password", firstName: "Local Bob" }) { accessToken user { id } } }`,
    );
    const localToken = local.data.register.accessToken;
    const theirs = await s.graphql(ME, {}, await idp.token("bob-app"));
    expect(theirs.data.me.username).toMatch(/^bob-[0-9a-f]{6}$/);
    expect(theirs.data.me.id).not.toBe(local.data.register.user.id);
    // The local Bob still signs in, with his own tokens and password.
    expect((await s.graphql(ME, {}, localToken)).data.me).toMatchObject({ username: "bob", firstName: "Local Bob" });
    const login = await s.graphql(`mutation { login(username: "bob", password: "bob-password") { user { id } } }`);
    expect(login.data.login.user.id).toBe(local.data.register.user.id);
  });

  it("makes a username from a claim that is not one (an e-mail address)", async () => {
    const me = await s.graphql(ME, {}, await idp.token("dan-app"));
    expect(me.data.me.username).toBe("dan_example.com");
  });

  it("gives each token the role its own roles claim says (reports, reportFiled), not an earlier token's", async () => {
    const adminToken = await idp.token("fay-app", { admin: true });
    const userToken = await idp.token("fay-app");
    const reports = `{ reports { totalCount } }`;
    expect((await s.graphql(ME, {}, adminToken)).data.me.role).toBe("ADMIN");
    expect((await s.graphql(reports, {}, adminToken)).errors).toBeUndefined();
    const refused = await s.graphql(reports, {}, userToken);
    expect(refused.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    // The admin token keeps its role after the plain one was used.
    expect((await s.graphql(reports, {}, adminToken)).errors).toBeUndefined();

    // reportFiled (admins only) over WebSocket: the admin token hears of a report, the plain one is refused.
    const admin = liveClient(s, { authorization: `Bearer ${adminToken}` });
    const before = bus.listening;
    const filed = subscribe(admin, `subscription { reportFiled { reasonType } }`);
    await bus.untilListening(before + 1);
    const plain = liveClient(s, { authorization: `Bearer ${userToken}` });
    const notAllowed = subscribe(plain, `subscription { reportFiled { reasonType } }`);
    await within(notAllowed.ended, "the refusal");
    expect(notAllowed.results[0].errors?.[0]).toMatchObject({ extensions: { code: "FORBIDDEN" } });
    const reporter = await s.signUp("reporter");
    const place = await s.fetch("/restaurants", { method: "POST", token: reporter.token, json: { title: "Spam" } });
    const { _id } = (await place.json()) as { _id: string };
    await s.graphql(
      `mutation($id: ID!) { reportRestaurant(id: $id, input: { reasonType: "spam" }) { created } }`,
      { id: _id },
      reporter.token,
    );
    expect((await filed.next()).data).toEqual({ reportFiled: { reasonType: "spam" } });
    await admin.dispose();
    await plain.dispose();
  });

  it("cannot log out a provider token, nor promote or revoke its account from the command line: each says where to", async () => {
    const token = await idp.token("eve-app");
    const logout = await s.graphql(`mutation { logout }`, {}, token);
    expect(logout.errors?.[0]).toMatchObject({ extensions: { code: "BAD_USER_INPUT" } });
    expect(logout.errors?.[0].message).toMatch(/identity provider: sign out there/);
    expect((await s.fetch("/auth/token", { method: "DELETE", token })).status).toBe(400);
    expect(await signsIn(token)).toBe(true);
    const { username } = (await s.graphql(ME, {}, token)).data.me;
    const promote = await runAdmin(s.database.url, "promote", username);
    expect([promote.code, promote.stdout]).toEqual([1, ""]);
    expect(promote.stderr).toMatch(
      /signs in through the identity provider, whose roles claim gives each token its role/,
    );
    const revoke = await runAdmin(s.database.url, "revoke-tokens", username);
    expect(revoke.code).toBe(0);
    expect(revoke.stdout).toMatch(/its tokens cannot be revoked here and work until they expire/);
    expect(await signsIn(token)).toBe(true);
  });
});

describe("tokens refused (UNAUTHENTICATED, 401) with a clear message, creating nothing", () => {
  /** A token for another audience, from another issuer, tampered with, unsigned, or signed with HMAC. */
  async function refusedTokens(): Promise<[string, string, RegExp][]> {
    const other = await startIdentityProvider();
    const fromOtherIssuer = await other.token("ann-app");
    await other.close();
    const genuine = await idp.token("ann-app");
    const [header, , signature] = genuine.split(".");
    const elevated = Buffer.from(
      JSON.stringify({ ...decodeJwt(genuine), realm_access: { roles: ["gateway-admin"] } }),
    ).toString("base64url");
    const claims = { sub: "ann-app", iss: idp.issuer, aud: API_AUDIENCE, preferred_username: "mallory" };
    const unsigned = new UnsecuredJWT(claims).setExpirationTime("5m").encode();
    // HMAC with the provider's public key as the secret: the classic algorithm confusion.
    const publicKey = (await (await fetch(`${idp.issuer}/jwks`)).json()) as { keys: JWK[] };
    const hmac = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: publicKey.keys[0].kid })
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(JSON.stringify(publicKey.keys[0])));
    return [
      ["another audience", await idp.token("ann-app", { resource: "https://another-api.example" }), /another audience/],
      ["another issuer", fromOtherIssuer, /another issuer/],
      ["a tampered payload", `${header}.${elevated}.${signature}`, /signature does not verify/],
      ["alg none", unsigned, /signed with "none", which this service does not accept/],
      ["HS256 with the public key", hmac, /signed with "HS256", which this service does not accept/],
      ["a key nobody publishes", await selfSigned(claims), /key the identity provider does not publish/],
      ["a JWT that is not one", "eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln", /not a well-formed JWT/],
    ];
  }

  async function selfSigned(claims: Record<string, unknown>) {
    const key = await signingKey("made-up-key");
    return new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "made-up-key" })
      .setExpirationTime("5m")
      .sign(await importJWK(key, "RS256"));
  }

  it("on GraphQL (UNAUTHENTICATED), REST (401), WebSocket (4403) and Server-Sent Events (401)", async () => {
    await s.graphql(ME, {}, await idp.token("ann-app")); // ann's account exists: a refusal must not touch it either
    const tokens = await refusedTokens();
    const before = await databaseState(s.db);
    for (const [what, token, message] of tokens) {
      // GraphQL answers a refused token as it answers any field's error, in `errors` (HTTP 200), as for our own tokens.
      const graphql = await s.graphql(ME, {}, token);
      expect([what, graphql.data?.me, graphql.errors?.[0].extensions?.code]).toEqual([
        what,
        undefined,
        "UNAUTHENTICATED",
      ]);
      expect(graphql.errors?.[0].message, what).toMatch(message);
      const rest = await s.fetch("/restaurants", { token });
      expect([what, rest.status]).toEqual([what, 401]);
      expect(((await rest.json()) as { error: { message: string } }).error.message, what).toMatch(message);
    }
    const [, firstToken, firstMessage] = tokens[0];
    const ws = liveClient(s, { authorization: `Bearer ${firstToken}` });
    const sub = subscribe(ws, `subscription { shoppingListChanged { changedAt } }`);
    const closed = (await within(sub.ended, "the socket's close")) as { code: number; reason: string };
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(firstMessage);
    const stream = await s.fetch("/graphql/stream", {
      method: "POST",
      token: firstToken,
      headers: { accept: "text/event-stream" },
      json: { query: `subscription { shoppingListChanged { changedAt } }` },
    });
    expect(stream.status).toBe(401);
    expect(JSON.stringify(await stream.json())).toMatch(firstMessage);
    expect(stateChanges(before, await databaseState(s.db))).toEqual([]);
  });

  it("an expired token is refused, and the subscriptions it opened end (WebSocket and Server-Sent Events)", async () => {
    const token = await idp.token("brief-app");
    const { exp } = decodeJwt(token);
    const ws = liveClient(s, { authorization: `Bearer ${token}` });
    const before = bus.listening;
    const wsSub = subscribe(ws, `subscription { shoppingListChanged { changedAt } }`);
    const sse = sseFollow(token, `subscription { shoppingListChanged { changedAt } }`);
    await bus.untilListening(before + 2);
    const closed = (await within(wsSub.ended, "the socket's close", 15_000)) as { code: number; reason: string };
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/expired/);
    await within(sse.ended, "the stream's end", 15_000);
    expect(Date.now() / 1000).toBeGreaterThanOrEqual(exp!);
    sse.client.dispose();
    await ws.dispose();
    const after = await s.graphql(ME, {}, token);
    expect(after.errors?.[0]).toMatchObject({ extensions: { code: "UNAUTHENTICATED" } });
    expect(after.errors?.[0].message).toMatch(/has expired \(exp\)/);
    expect((await s.fetch("/restaurants", { token })).status).toBe(401);
  });
});

describe("the provider's keys", () => {
  it("follow a rotation without a restart: a new key is taken, a removed one stops working within OIDC_JWKS_MAX_AGE", async () => {
    const oldToken = await idp.token("ann-app");
    expect(await signsIn(oldToken)).toBe(true);
    const oldWs = liveClient(s, { authorization: `Bearer ${oldToken}` });
    const before = bus.listening;
    const oldSub = subscribe(oldWs, `subscription { shoppingListChanged { changedAt } }`);
    await bus.untilListening(before + 1);

    // The provider publishes a new key and signs with it; the old one is still published.
    const secondKey = await signingKey("key-2");
    await idp.restart([secondKey, firstKey]);
    const newToken = await idp.token("ann-app");
    expect(JSON.parse(Buffer.from(newToken.split(".")[0], "base64url").toString()).kid).toBe("key-2");
    // At once, unless the keys were fetched in the last OIDC_JWKS_COOLDOWN (200 ms here).
    await eventually(() => signsIn(newToken), "the new key taken");
    expect(await signsIn(oldToken)).toBe(true);

    // The old key is withdrawn: its tokens, and the subscriptions they opened, stop within OIDC_JWKS_MAX_AGE.
    await idp.restart([secondKey]);
    const withdrawn = Date.now();
    await eventually(async () => !(await signsIn(oldToken)), "the old key dropped");
    const refused = await s.graphql(ME, {}, oldToken);
    expect(refused.errors?.[0].message).toMatch(/key the identity provider does not publish/);
    const closed = (await within(oldSub.ended, "the old token's socket closed", 10_000)) as { code: number };
    expect(closed.code).toBe(4403);
    // A bound, not a speed: generous for a loaded machine (the statement is OIDC_JWKS_MAX_AGE plus a fetch).
    expect(Date.now() - withdrawn).toBeLessThan(KEYS_MAX_AGE_MS + 8000);
    expect(await signsIn(newToken)).toBe(true);
    await oldWs.dispose();
  });

  it("/readyz shows the provider's state without counting it against readiness", async () => {
    const ready = await s.fetch("/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ok", identityProvider: "ok" });
  });
});
