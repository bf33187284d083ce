// What OIDC_* say, and the checks of the values src/config.ts reads them with (documented in the
// README's configuration table and docs/identity-providers.md).
import { z } from "zod";

export type IdentityProviderSettings = {
  /** The `iss` every token must carry, exactly; discovery reads `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  /** A token's `aud` must hold one of these. */
  audiences: string[];
  /** Where the signing keys are; unset: the discovery document's `jwks_uri`. */
  jwksUrl?: string;
  algorithms: string[];
  /** A claim name, or a dotted path into the claims (`realm_access.roles`). */
  rolesClaim: string;
  /** The role value that makes a token's user an ADMIN (unset: none does). */
  adminRole?: string;
  /** The claim a new account's username is made from. */
  usernameClaim: string;
  clockToleranceMs: number;
  /** Keys fetched longer ago are fetched again before use: a key the provider removed stops working within this. */
  keysMaxAgeMs: number;
  /** Least time between two fetches of the keys prompted by tokens (an unknown key, a failed fetch). */
  keysCooldownMs: number;
  fetchTimeoutMs: number;
};

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost)$/;

/**
 * An identity provider's address: https, or http to this machine only (a provider in a test or
 * beside the service): keys fetched over plain http from elsewhere could be anyone's.
 */
export const providerAddress = z.string().refine(
  (v) => {
    if (!URL.canParse(v)) return false;
    const url = new URL(v);
    return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.test(url.hostname));
  },
  { message: "must be an https:// URL (http:// only to 127.0.0.1, [::1] or localhost)" },
);

export const isProviderAddress = (v: string) => providerAddress.safeParse(v).success;

/** Asymmetric JWS algorithms only: never `none`, never HMAC (where a public key would serve as the shared secret). */
export const ASYMMETRIC_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

export const signingAlgorithms = z
  .string()
  .default(ASYMMETRIC_ALGORITHMS.join(","))
  .transform((v, ctx) => {
    const names = v
      .split(",")
      .map((a) => a.trim())
      .filter(Boolean);
    const bad = names.find((a) => !ASYMMETRIC_ALGORITHMS.includes(a));
    if (bad !== undefined || names.length === 0) {
      ctx.addIssue({
        code: "custom",
        message: `${JSON.stringify(bad ?? "")} is not accepted: list some of ${ASYMMETRIC_ALGORITHMS.join(", ")} (none and HMAC never are)`,
      });
      return z.NEVER;
    }
    return names;
  });

/** A claim name or dotted path, or a role's name. */
export const claimName = z.string().trim().min(1).max(200);

type Values = Omit<IdentityProviderSettings, "issuer" | "audiences"> & { issuer?: string; audience?: string };

/**
 * The settings, or the problems to report: nothing without OIDC_ISSUER (and then no other OIDC_
 * address or role may be set); with it, OIDC_AUDIENCE is required, or any token the provider
 * issues for any other application would be taken here.
 */
export function identityProviderOf(
  values: Values,
  present: Record<string, string | undefined>,
): { settings?: IdentityProviderSettings; problems: string[] } {
  const { issuer, audience, ...rest } = values;
  if (!issuer) {
    const stray = ["OIDC_AUDIENCE", "OIDC_JWKS_URL", "OIDC_ADMIN_ROLE"].filter((name) => present[name] !== undefined);
    return {
      problems: stray.map(
        (name) => `${name}=${JSON.stringify(present[name])}: is set but OIDC_ISSUER is not; set both or neither`,
      ),
    };
  }
  const audiences = (audience ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);
  if (!audiences.length)
    return {
      problems: [
        `OIDC_AUDIENCE=${JSON.stringify(present.OIDC_AUDIENCE ?? "")}: required with OIDC_ISSUER: the audience (aud) the provider's tokens for this service carry, e.g. its client id`,
      ],
    };
  return { settings: { issuer, audiences, ...rest }, problems: [] };
}
