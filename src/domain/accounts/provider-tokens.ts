// Tokens from the identity provider (JWTs), accepted beside this service's own opaque tokens
// (src/domain/accounts/tokens.ts), which are 43 base64url characters and never hold a dot: a token with a
// dot is a JWT. A verified JWT signs in the account linked to its subject (created on first
// sight: provider-accounts.ts) with the role its own roles claim gives: a token without the
// admin role is a USER's, whatever an earlier token of the same person said.
import type { Db } from "../../db/db.ts";
import { firstNameFrom, roleOf, usernameFrom } from "../../identity/claims.ts";
import type { ProviderKeys } from "../../identity/provider-keys.ts";
import type { IdentityProviderSettings } from "../../identity/settings.ts";
import { verifyProviderToken } from "../../identity/verify-token.ts";
import { providerAccount, recordRole } from "./provider-accounts.ts";
import { isStorable } from "../text.ts";
import { authenticate, hashToken, type Authentication } from "./tokens.ts";

/** Who a token is: what the session cache asks (one database look-up, or a JWT verified). */
export type TokenCheck = (db: Db, token: string | undefined) => Promise<Authentication>;

const SUBJECT_UNUSABLE = "The access token names no usable subject (sub).";

/** This service's tokens, and the identity provider's JWTs. */
export function providerTokenCheck(keys: ProviderKeys, settings: IdentityProviderSettings): TokenCheck {
  return async (db, token) => {
    if (!token || !token.includes(".")) return authenticate(db, token);
    const verified = await verifyProviderToken(token, keys, settings);
    if ("refused" in verified) return { state: "invalid", reason: verified.refused };
    if (!isStorable(verified.subject)) return { state: "invalid", reason: SUBJECT_UNUSABLE };
    const username = usernameFrom(verified.claims, settings);
    const account = await providerAccount(
      db,
      { issuer: settings.issuer, subject: verified.subject },
      { username, firstName: firstNameFrom(verified.claims, username) },
    );
    const role = roleOf(verified.claims, settings);
    await recordRole(db, account, role);
    return {
      state: "valid",
      viewer: {
        id: account.id,
        username: account.username,
        role,
        tokenId: `provider:${hashToken(token)}`,
        fromIdentityProvider: true,
      },
      expiresAt: verified.expiresAt,
    };
  };
}
