// What a verified token's claims say about its user: the role (OIDC_ROLES_CLAIM holding
// OIDC_ADMIN_ROLE), the username a new account starts from (OIDC_USERNAME_CLAIM), a first name.
import type { JWTPayload } from "jose";
import type { IdentityProviderSettings } from "./settings.ts";

/**
 * A claim by name or dotted path: the whole name first (Auth0's namespaced claims such as
 * `https://example.com/roles` hold dots), then `realm_access.roles` as a path. Own properties only.
 */
export function claimAt(claims: JWTPayload, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let value: unknown = claims;
  for (const step of name.split(".")) {
    if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, step))
      return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/** Roles as a list of strings, or as one space-separated string (the way `scope` is written). */
export function rolesIn(value: unknown): string[] {
  if (typeof value === "string") return value.split(" ").filter(Boolean);
  if (Array.isArray(value)) return value.filter((role): role is string => typeof role === "string");
  return [];
}

export function roleOf(claims: JWTPayload, settings: IdentityProviderSettings): "USER" | "ADMIN" {
  const { adminRole, rolesClaim } = settings;
  return adminRole !== undefined && rolesIn(claimAt(claims, rolesClaim)).includes(adminRole) ? "ADMIN" : "USER";
}

/** Usernames here: 3 to 40 of letters, digits, `_`, `.` and `-` (as register requires). */
export const USERNAME_MAX = 40;

/**
 * The username a new account starts from: the claim with every other character as `_`
 * (`ann@example.com` -> `ann_example.com`), at most 40 characters; `user` when the claim is
 * missing or too short.
 */
export function usernameFrom(claims: JWTPayload, settings: IdentityProviderSettings): string {
  const value = claimAt(claims, settings.usernameClaim);
  const name =
    typeof value === "string"
      ? value
          .trim()
          .slice(0, USERNAME_MAX)
          .replace(/[^A-Za-z0-9_.-]/g, "_")
      : "";
  return name.length >= 3 ? name : "user";
}

/** `given_name`, else `name`, else the username: every account has a first name. */
export function firstNameFrom(claims: JWTPayload, username: string): string {
  for (const name of [claims.given_name, claims.name]) {
    if (typeof name === "string" && name.trim()) return name.trim().slice(0, 100);
  }
  return username;
}
