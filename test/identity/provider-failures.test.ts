// An identity provider that misbehaves, and hostile tokens: a JWKS address that hangs or answers
// garbage, a provider down at start-up, a flood of tokens naming unknown keys, a JWT of 1 MB.
// Each time the service starts and keeps serving its own tokens, /readyz (still 200) and the log
// say what is wrong, tokens of the provider get a clear error (503 while no key can be had, 401
// for a bad token), and no request waits on the provider but those carrying its tokens.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { SignJWT, generateKeyPair, importJWK, type JWK } from "jose";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { signingKey, startIdentityProvider, type IdentityProvider } from "../helpers/identity-provider.ts";
import { eventually, wsUrl } from "../helpers/live.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const ISSUER = "https://idp.example";
const AUDIENCE = "restaurants";
const ME = `{ me { id username } }`;

type Mode =
  "good" | "with-broken-key" | "hang" | "not-json" | "not-a-key-set" | "huge" | "endless" | "error" | "redirect";

/** A JWKS address whose answer the test chooses, counting the requests it gets. */
async function keysServer(publicKey: JWK) {
  const state = { mode: "good" as Mode, requests: 0 };
  const server = http.createServer((request, response) => {
    state.requests++;
    switch (state.mode) {
      case "good":
        return response.end(JSON.stringify({ keys: [publicKey] }));
      case "with-broken-key":
        // An EC key whose point is no point: importing it throws (a DOMException, not one of jose's errors).
        return response.end(
          JSON.stringify({ keys: [publicKey, { kty: "EC", crv: "P-256", kid: "broken", x: "AA", y: "AA" }] }),
        );
      case "hang":
        return; // never answers
      case "not-json":
        return response.end("<html>Service temporarily unavailable</html>");
      case "not-a-key-set":
        return response.end(JSON.stringify({ keys: "none today" }));
      case "huge":
        return response.end(JSON.stringify({ keys: [publicKey], padding: "x".repeat(300 * 1024) }));
      case "endless": {
        // No length, and no end: chunk after chunk until the reader hangs up.
        const chunk = Buffer.alloc(64 * 1024, " ");
        const more = () => {
          if (response.destroyed) return;
          response.write(chunk);
          setTimeout(more, 1);
        };
        response.write('{"keys": [');
        return more();
      }
      case "error":
        response.statusCode = 500;
        return response.end("{}");
      case "redirect":
        response.writeHead(302, { location: "https://elsewhere.example/jwks" });
        return response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  return {
    state,
    url,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function sign(privateKey: JWK, claims: Record<string, unknown> = {}) {
  return new SignJWT({ preferred_username: "kim", ...claims })
    .setProtectedHeader({ alg: "RS256", kid: privateKey.kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject("kim-1")
    .setExpirationTime("5m")
    .sign(await importJWK(privateKey, "RS256"));
}

const publicPart = ({ kty, n, e, kid, alg, use }: JWK): JWK => ({ kty, n, e, kid, alg, use });

async function readiness(s: TestServer) {
  const response = await s.fetch("/readyz");
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

const warnings = (s: TestServer) =>
  s.logs
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.level === 40 && entry.component === "identity-provider");

/** A server taking the tokens `key` signs, its keys at a JWKS address answering as `mode` says. */
function withKeysServer(mode: Mode, settings: Record<string, string>) {
  const setup = {} as { key: JWK; keys: Awaited<ReturnType<typeof keysServer>>; s: TestServer };
  beforeAll(async () => {
    setup.key = await signingKey("key-1");
    setup.keys = await keysServer(publicPart(setup.key));
    setup.keys.state.mode = mode;
    setup.s = await startServer({
      OIDC_ISSUER: ISSUER,
      OIDC_AUDIENCE: AUDIENCE,
      OIDC_JWKS_URL: setup.keys.url,
      LOG_LEVEL: "warn",
      ...settings,
    });
  });
  afterAll(async () => {
    await setup.s?.close();
    await setup.keys?.close();
  });
  return setup;
}

describe("a JWKS address that hangs", () => {
  const setup = withKeysServer("hang", { OIDC_FETCH_TIMEOUT: "8s" });
  let key: JWK;
  let keys: Awaited<ReturnType<typeof keysServer>>;
  let s: TestServer;
  beforeAll(() => {
    ({ key, keys, s } = setup);
  });

  it("holds only the requests carrying the provider's tokens, and those for OIDC_FETCH_TIMEOUT at most: 503", async () => {
    let answered = false;
    const waiting = s.fetch("/restaurants", { token: await sign(key) }).then((response) => {
      answered = true;
      return response;
    });
    // Meanwhile this service's own tokens are served as ever.
    const own = await s.signUp("own");
    expect((await s.graphql(ME, {}, own.token)).data.me.id).toBe(own.id);
    expect((await s.fetch("/restaurants", { token: own.token })).status).toBe(200);
    expect(answered).toBe(false);
    const refused = await waiting;
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({
      error: { code: "SERVICE_UNAVAILABLE", message: expect.stringMatching(/signing keys cannot be fetched now/) },
    });
    // GraphQL: the same code, and 503 (no key could be had: the request's failure, not its fault).
    const graphql = await s.graphql(ME, {}, await sign(key));
    expect(graphql.status).toBe(503);
    expect(graphql.errors?.[0].extensions?.code).toBe("SERVICE_UNAVAILABLE");
  });

  it("says so in /readyz (still 200: own tokens are served) and in the log", async () => {
    const { status, body } = await readiness(s);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: "ok",
      identityProvider: "unavailable",
      identityProviderProblem: `GET ${keys.url}: no answer within 8000 ms`,
    });
    expect(warnings(s).map((w) => w.problem)).toContain(`GET ${keys.url}: no answer within 8000 ms`);
  });

  it("fetches no more during OIDC_JWKS_COOLDOWN however many tokens come: they get 503 at once", async () => {
    keys.state.mode = "good";
    // The retry comes after OIDC_JWKS_COOLDOWN (30 s by default); a token prompts none sooner.
    const before = keys.state.requests;
    expect((await s.graphql(ME, {}, await sign(key))).status).toBe(503);
    expect(keys.state.requests).toBe(before);
  });
});

describe("a JWKS address that answers garbage, a flood of unknown keys, a JWT of 1 MB", () => {
  const setup = withKeysServer("good", { OIDC_JWKS_COOLDOWN: "200ms", OIDC_FETCH_TIMEOUT: "2s" });
  let key: JWK;
  let keys: Awaited<ReturnType<typeof keysServer>>;
  let s: TestServer;
  beforeAll(async () => {
    ({ key, keys, s } = setup);
    await eventually(async () => (await readiness(s)).body.identityProvider === "ok", "the keys fetched");
  });

  const cases: [Mode, string][] = [
    ["not-json", "the answer is not JSON"],
    ["not-a-key-set", 'not a JSON Web Key Set ({"keys": [...]})'],
    ["huge", "larger than 262144 bytes"],
    ["endless", "larger than 262144 bytes"],
    ["error", "answered 500"],
    ["redirect", "answered 302 (a redirect: give the final address)"],
  ];
  for (const [mode, problem] of cases) {
    it(`${mode}: /readyz and the log say so; the keys fetched before still verify`, async () => {
      keys.state.mode = mode;
      // A token naming a key not fetched yet makes the service fetch again (as after a rotation).
      const stranger = await sign(await signingKey(`new-${mode}`));
      await eventually(async () => {
        await s.graphql(ME, {}, stranger);
        return (await readiness(s)).body.identityProviderProblem === `GET ${keys.url}: ${problem}`;
      }, `the problem ${problem} shown`);
      const { status, body } = await readiness(s);
      expect(status).toBe(200);
      expect(body.identityProvider).toBe("stale");
      expect(warnings(s).some((w) => w.problem === `GET ${keys.url}: ${problem}`)).toBe(true);
      expect((await s.graphql(ME, {}, await sign(key))).data?.me.username).toBe("kim");
      keys.state.mode = "good";
      await eventually(async () => (await readiness(s)).body.identityProvider === "ok", "back to ok");
    });
  }

  it("refuses a token naming a published key that cannot be used (401, not 500); the others still verify", async () => {
    keys.state.mode = "with-broken-key";
    const { privateKey } = await generateKeyPair("ES256");
    const broken = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: "broken" })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject("kim-1")
      .setExpirationTime("5m")
      .sign(privateKey);
    await eventually(async () => {
      const answer = await s.fetch("/restaurants", { token: broken });
      return answer.status === 401 && JSON.stringify(await answer.json()).includes("cannot be verified");
    }, "the broken key fetched and refused");
    expect((await s.graphql(ME, {}, broken)).errors?.[0]).toMatchObject({
      message: "The access token cannot be verified.",
      extensions: { code: "UNAUTHENTICATED" },
    });
    expect((await s.graphql(ME, {}, await sign(key))).data?.me.username).toBe("kim");
    keys.state.mode = "good";
  });

  it("fetches the keys at most once a cooldown however many tokens name unknown keys", async () => {
    const madeUp = await signingKey("made-up");
    const strangers = await Promise.all(Array.from({ length: 30 }, (_, i) => sign({ ...madeUp, kid: `made-up-${i}` })));
    const before = keys.state.requests;
    const started = Date.now();
    const answers = await Promise.all(strangers.map((token) => s.fetch("/restaurants", { token })));
    const elapsed = Date.now() - started;
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(401));
    expect(await answers[0].json()).toMatchObject({
      error: { message: "The access token is signed with a key the identity provider does not publish (kid)." },
    });
    expect(keys.state.requests - before).toBeLessThanOrEqual(1 + Math.ceil(elapsed / 200));
  });

  it("refuses a JWT of 1 MB before any key is looked at: 431 in a header, 401 in a body, 1009 on a WebSocket", async () => {
    const huge = `${(await sign(key)).split(".").slice(0, 2).join(".")}.${"A".repeat(1_000_000)}`;
    const before = keys.state.requests;
    expect((await s.fetch("/restaurants", { token: huge })).status).toBe(431);
    const inBody = await s.fetch("/restaurants", { method: "POST", json: { access_token: huge, title: "Huge" } });
    expect(inBody.status).toBe(401);
    expect(await inBody.json()).toMatchObject({
      error: { code: "UNAUTHENTICATED", message: "The access token is too long (more than 16384 characters)." },
    });
    const socket = new WebSocket(wsUrl(s), "graphql-transport-ws");
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    socket.once("open", () => socket.send(JSON.stringify({ type: "connection_init", payload: { token: huge } })));
    expect(await closed).toBe(1009);
    expect(keys.state.requests).toBe(before);
  });
});

describe("a provider down at start-up", () => {
  let idp: IdentityProvider | undefined;
  let s: TestServer;
  let port: number;
  beforeAll(async () => {
    // A port nothing listens on (yet).
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    s = await startServer({
      OIDC_ISSUER: `http://127.0.0.1:${port}`,
      OIDC_AUDIENCE: "https://restaurants.example",
      OIDC_JWKS_COOLDOWN: "300ms",
      LOG_LEVEL: "warn",
    });
  });
  afterAll(async () => {
    await s?.close();
    await idp?.close();
  });

  it("starts, serves its own tokens, and says in /readyz and the log that discovery fails", async () => {
    await eventually(async () => (await readiness(s)).body.identityProvider === "unavailable", "the failure shown");
    const { status, body } = await readiness(s);
    expect(status).toBe(200);
    expect(body.identityProviderProblem).toBe(
      `GET http://127.0.0.1:${port}/.well-known/openid-configuration: unreachable (ECONNREFUSED)`,
    );
    expect(warnings(s).length).toBeGreaterThan(0);
    const own = await s.signUp("own");
    expect((await s.graphql(ME, {}, own.token)).data.me.id).toBe(own.id);
  });

  it("takes the provider's tokens once it is up, without a restart", async () => {
    idp = await startIdentityProvider({ port });
    await eventually(async () => (await readiness(s)).body.identityProvider === "ok", "the keys fetched");
    const me = await s.graphql(ME, {}, await idp.token("ann-app"));
    expect(me.data?.me.username).toBe("ann");
  });
});

describe("the settings", () => {
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return "";
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).problems.join("\n");
    }
  };
  const base = { OIDC_ISSUER: "https://idp.example/realms/food", OIDC_AUDIENCE: "restaurants" };

  it("take asymmetric algorithms only, and say which value is wrong", () => {
    expect(problemsOf({ ...base, OIDC_ALGORITHMS: "RS256,HS256" })).toMatch(
      /^OIDC_ALGORITHMS="RS256,HS256": "HS256" is not accepted/,
    );
    expect(problemsOf({ ...base, OIDC_ALGORITHMS: "none" })).toMatch(/"none" is not accepted.*none and HMAC never are/);
    expect(loadConfig({ ...base, OIDC_ALGORITHMS: "ES256, RS256" }).identityProvider?.algorithms).toEqual([
      "ES256",
      "RS256",
    ]);
  });

  it("want https (http only to this machine), an audience with an issuer, and no stray provider setting", () => {
    expect(problemsOf({ ...base, OIDC_ISSUER: "http://idp.example" })).toMatch(
      /^OIDC_ISSUER=.*must be an https:\/\/ URL/,
    );
    expect(problemsOf({ ...base, OIDC_JWKS_URL: "ftp://idp.example/keys" })).toMatch(/^OIDC_JWKS_URL=/);
    expect(problemsOf({ OIDC_ISSUER: base.OIDC_ISSUER })).toMatch(/^OIDC_AUDIENCE="": required with OIDC_ISSUER/);
    expect(problemsOf({ OIDC_AUDIENCE: "restaurants" })).toMatch(
      /^OIDC_AUDIENCE="restaurants": is set but OIDC_ISSUER is not/,
    );
    expect(problemsOf({ ...base, OIDC_CLOCK_TOLERANCE: "1h" })).toMatch(
      /^OIDC_CLOCK_TOLERANCE="1h": must be at most 5m/,
    );
    expect(loadConfig({}).identityProvider).toBeUndefined();
    expect(loadConfig({ ...base, OIDC_AUDIENCE: "a, b" }).identityProvider).toMatchObject({
      issuer: base.OIDC_ISSUER,
      audiences: ["a", "b"],
      rolesClaim: "roles",
      usernameClaim: "preferred_username",
      clockToleranceMs: 30_000,
      keysMaxAgeMs: 600_000,
      keysCooldownMs: 30_000,
      fetchTimeoutMs: 5_000,
    });
  });
});
