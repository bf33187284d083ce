// A real OpenID Connect provider (the `oidc-provider` package) on 127.0.0.1 for tests: JWT access
// tokens for this service come from its token endpoint through the client credentials grant with
// a resource indicator (RFC 8707), as a machine client or a gateway gets them from Keycloak, Auth0
// or Entra ID. Each client is one person here: its client id is the token's subject, and the
// claims carry Keycloak's shapes (`preferred_username`, `realm_access.roles`). Asking for the
// scope `admin` puts the role `gateway-admin` in a token.
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { exportJWK, generateKeyPair, type JWK } from "jose";

/** The audience this service's tokens carry (OIDC_AUDIENCE). */
export const API_AUDIENCE = "https://restaurants.example";
export const ADMIN_ROLE = "gateway-admin";

/** The clients (people) the provider knows, and the username and first name each token carries. */
export const PEOPLE: Record<string, { username: string; givenName: string; ttlSeconds?: number }> = {
  "ann-app": { username: "ann", givenName: "Ann" },
  "bob-app": { username: "bob", givenName: "Bob" },
  "cat-app": { username: "cat", givenName: "Cat" },
  "dan-app": { username: "dan@example.com", givenName: "Dan" },
  "eve-app": { username: "eve", givenName: "Eve" },
  "fay-app": { username: "fay", givenName: "Fay" },
  /** Tokens that expire 4 s after they are issued. */
  "brief-app": { username: "brief", givenName: "Brief", ttlSeconds: 4 },
};

const secretOf = (clientId: string) => `${clientId}-secret-that-is-long-enough-0123456789`;

export async function signingKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
}

function provider(issuer: string, keys: JWK[]) {
  return new Provider(issuer, {
    clients: Object.keys(PEOPLE).map((clientId) => ({
      client_id: clientId,
      client_secret: secretOf(clientId),
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
    })),
    // The first key signs; the others are only published (a rotation in progress).
    jwks: { keys },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => ({
          scope: "read admin",
          audience: resource,
          accessTokenFormat: "jwt",
          accessTokenTTL: PEOPLE[client.clientId]?.ttlSeconds ?? 300,
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
    ttl: { ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 300 },
    extraTokenClaims: async (_ctx, token) => {
      const person = PEOPLE[String(token.clientId)];
      const admin = String(token.scope ?? "")
        .split(" ")
        .includes("admin");
      return {
        preferred_username: person?.username,
        given_name: person?.givenName,
        realm_access: { roles: admin ? ["user", ADMIN_ROLE] : ["user"] },
      };
    },
  });
}

export type IdentityProvider = {
  /** Its issuer (OIDC_ISSUER), http://127.0.0.1:<port>. */
  issuer: string;
  /** A JWT access token for `clientId` from the token endpoint (scope "read", or "read admin"). */
  token(clientId: string, options?: { admin?: boolean; resource?: string }): Promise<string>;
  /** Restarts the provider on the same address with these keys (the first signs): a key rotation. */
  restart(keys: JWK[]): Promise<void>;
  /** Stops answering (the port is closed); `restart` brings it back. */
  stop(): Promise<void>;
  close(): Promise<void>;
};

/** Starts a provider on 127.0.0.1 (`port` 0: any free port) signing with `keys` (one fresh key by default). */
export async function startIdentityProvider({ port = 0, keys }: { port?: number; keys?: JWK[] } = {}) {
  let server = http.createServer();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${address}`;
  server.on("request", provider(issuer, keys ?? [await signingKey("key-1")]).callback());

  const stop = async () => {
    if (!server.listening) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const idp: IdentityProvider = {
    issuer,
    async token(clientId, { admin = false, resource = API_AUDIENCE } = {}) {
      // Once more when the provider restarted under a kept-alive connection ("other side closed").
      const post = (init: RequestInit) => fetch(`${issuer}/token`, init).catch(() => fetch(`${issuer}/token`, init));
      const response = await post({
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${clientId}:${secretOf(clientId)}`).toString("base64")}`,
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource, scope: admin ? "read admin" : "read" }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token for ${clientId}: ${response.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async restart(newKeys) {
      await stop();
      server = http.createServer(provider(issuer, newKeys).callback());
      await new Promise<void>((resolve) => server.listen(address, "127.0.0.1", resolve));
    },
    stop,
    close: stop,
  };
  return idp;
}

/** The settings that make a test server take `idp`'s tokens (short key pauses, so a test sees a rotation quickly). */
export const providerSettings = (idp: { issuer: string }, more: Record<string, string> = {}) => ({
  OIDC_ISSUER: idp.issuer,
  OIDC_AUDIENCE: API_AUDIENCE,
  OIDC_ROLES_CLAIM: "realm_access.roles",
  OIDC_ADMIN_ROLE: ADMIN_ROLE,
  OIDC_JWKS_COOLDOWN: "200ms",
  ...more,
});
