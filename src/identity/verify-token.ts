// Verifies a JWT from the identity provider with jose: the signature with the provider's keys,
// and `iss`, `aud`, `exp`, `nbf` and the algorithm. What can be refused without a key is refused
// first, on the token as it came (its length, shape, algorithm, issuer, audience and times): a
// token of another issuer or audience, an expired one or a megabyte of garbage costs no crypto
// and no fetch of keys. Each refusal says what is wrong in words a client can act on.
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from "jose";
import type { ProviderKeys } from "./provider-keys.ts";
import type { IdentityProviderSettings } from "./settings.ts";

/** Far above any provider's tokens (Keycloak's with many roles stay under 8 KB); Node's header limit is 16 KB too. */
export const MAX_TOKEN_LENGTH = 16_384;

/** `sub` is at most 255 ASCII characters (OpenID Connect Core 1.0, 2). */
const MAX_SUBJECT_LENGTH = 255;

export type VerifiedToken = { subject: string; claims: JWTPayload; expiresAt: Date };
export type TokenRefusal = { refused: string };

const REFUSALS = {
  tooLong: `The access token is too long (more than ${MAX_TOKEN_LENGTH} characters).`,
  malformed: "The access token is not a well-formed JWT.",
  issuer: "The access token comes from another issuer (iss) than the identity provider this service trusts.",
  audience: "The access token is meant for another audience (aud), not this service.",
  expired: "The access token has expired (exp); get a new one from the identity provider.",
  notYet: "The access token is not valid yet (nbf).",
  signature: "The access token's signature does not verify.",
  unknownKey: "The access token is signed with a key the identity provider does not publish (kid).",
  severalKeys: "The access token names no key (kid) and the identity provider publishes several that could fit.",
  subject: "The access token names no usable subject (sub).",
  unverifiable: "The access token cannot be verified.",
} as const;

const algorithmRefusal = (alg: unknown) =>
  `The access token is signed with ${JSON.stringify(String(alg).slice(0, 16))}, which this service does not accept.`;

/** What jose's refusals mean, in the words above. */
function refusalOf(error: unknown): string | undefined {
  if (error instanceof errors.JWTExpired) return REFUSALS.expired;
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "iss") return REFUSALS.issuer;
    if (error.claim === "aud") return REFUSALS.audience;
    if (error.claim === "nbf") return REFUSALS.notYet;
    if (error.claim === "sub") return REFUSALS.subject;
    return REFUSALS.unverifiable;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return REFUSALS.signature;
  if (error instanceof errors.JWKSNoMatchingKey) return REFUSALS.unknownKey;
  if (error instanceof errors.JWKSMultipleMatchingKeys) return REFUSALS.severalKeys;
  if (error instanceof errors.JOSEAlgNotAllowed) return algorithmRefusal("?");
  if (error instanceof errors.JOSEError) return REFUSALS.unverifiable;
  return undefined;
}

/** The refusal a token earns before any key is needed, or undefined. */
function refusedAsSent(token: string, settings: IdentityProviderSettings): string | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return REFUSALS.tooLong;
  let header: ReturnType<typeof decodeProtectedHeader>;
  let claims: JWTPayload;
  try {
    header = decodeProtectedHeader(token);
    claims = decodeJwt(token);
  } catch {
    return REFUSALS.malformed;
  }
  if (typeof header.alg !== "string" || !settings.algorithms.includes(header.alg)) return algorithmRefusal(header.alg);
  if (claims.iss !== settings.issuer) return REFUSALS.issuer;
  const audiences = typeof claims.aud === "string" ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
  if (!audiences.some((aud) => settings.audiences.includes(aud))) return REFUSALS.audience;
  const now = Date.now() / 1000;
  const tolerance = settings.clockToleranceMs / 1000;
  if (typeof claims.exp !== "number" || claims.exp + tolerance <= now) return REFUSALS.expired;
  if (typeof claims.nbf === "number" && claims.nbf - tolerance > now) return REFUSALS.notYet;
  return undefined;
}

/**
 * The token's subject and claims once everything holds, or why it is refused. Throws
 * SERVICE_UNAVAILABLE (from the keys) when the provider's keys cannot be had now.
 */
export async function verifyProviderToken(
  token: string,
  keys: ProviderKeys,
  settings: IdentityProviderSettings,
): Promise<VerifiedToken | TokenRefusal> {
  const early = refusedAsSent(token, settings);
  if (early) return { refused: early };
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, keys.getKey, {
      issuer: settings.issuer,
      audience: settings.audiences,
      algorithms: settings.algorithms,
      clockTolerance: settings.clockToleranceMs / 1000,
      requiredClaims: ["exp", "sub"],
    }));
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal) return { refused: refusal };
    throw error;
  }
  const subject = claims.sub;
  if (typeof subject !== "string" || !subject || subject.length > MAX_SUBJECT_LENGTH)
    return { refused: REFUSALS.subject };
  return { subject, claims, expiresAt: new Date(claims.exp! * 1000) };
}
