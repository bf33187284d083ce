// The README's "Signing in with your identity provider" example, run as written on the demo data
// (npm run seed): its settings, a token with its claims, its curl request and the answer it shows.
// One thing differs: keycloak.example cannot be reached from a test, so the keys come from
// OIDC_JWKS_URL (a key set served here) instead of the issuer's discovery document, and the
// token is signed with that key and expires in 5 minutes instead of at the README's `exp`.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignJWT, importJWK } from "jose";
import { seed } from "../../src/seed/seed.ts";
import { signingKey } from "../helpers/identity-provider.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const start = readme.indexOf("## Signing in with your identity provider");
const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
const blocks = [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ language: m[1], text: m[2] }));

/** `NAME=value \` lines of the settings block. */
const settings = Object.fromEntries(
  [...blocks[0].text.matchAll(/^([A-Z_]+)=(\S+)/gm)].map((m) => [m[1], m[2]] as [string, string]),
);
const claims = JSON.parse(blocks.find((b) => b.language === "json")!.text) as Record<string, unknown>;
const curl = blocks.filter((b) => b.language === "sh")[1].text;
const body = JSON.parse(/-d '([^']+)'/.exec(curl)![1]) as { query: string };
const shown = JSON.parse(/^# (\{.*\})$/m.exec(curl)![1]);

let s: TestServer;
let keys: http.Server;
let token: string;

beforeAll(async () => {
  const key = await signingKey("keycloak-key");
  keys = http.createServer((_, response) =>
    response.end(JSON.stringify({ keys: [{ kty: key.kty, n: key.n, e: key.e, kid: key.kid, alg: "RS256" }] })),
  );
  await new Promise<void>((resolve) => keys.listen(0, "127.0.0.1", resolve));
  s = await startServer({
    ...settings,
    OIDC_JWKS_URL: `http://127.0.0.1:${(keys.address() as AddressInfo).port}/`,
  });
  await seed(s.db, { size: "small", uploadDir: s.config.uploadDir, password: "demo-password" });
  token = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) + 300 })
    .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "JWT" })
    .sign(await importJWK(key, "RS256"));
}, 120_000);
afterAll(async () => {
  await s?.close();
  keys?.closeAllConnections();
  keys?.close();
});

describe("README: Signing in with your identity provider", () => {
  it("sets up a Keycloak realm with the settings shown", () => {
    expect(Object.keys(settings)).toEqual(["OIDC_ISSUER", "OIDC_AUDIENCE", "OIDC_ROLES_CLAIM", "OIDC_ADMIN_ROLE"]);
    expect(s.config.identityProvider).toMatchObject({ issuer: claims.iss, rolesClaim: "realm_access.roles" });
  });

  it("answers the curl request with what the README shows, beside the seeded demo account", async () => {
    const response = await s.fetch("/graphql", { method: "POST", token, json: body });
    expect(await response.json()).toEqual(shown);
    const demo = await s.graphql(
      `mutation { login(username: "demo", password: "demo-password") { user { username firstName role } } }`,
    );
    expect(demo.data.login.user).toEqual({ username: "demo", firstName: "Demo", role: "USER" });
  });
});
