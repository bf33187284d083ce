// Accounts: registration, login, logout, roles.
import { z } from "zod";
import type { Db } from "../../db/db.ts";
import { badInput, conflict, DomainError, signInRequired } from "../../contract/errors.ts";
import { imageReference } from "../catalogue/image-references.ts";
import { DUMMY_HASH, hashPassword, verifyPassword, type PasswordHasher } from "./passwords.ts";
import type { LoginThrottle } from "./login-throttle.ts";
import type { SignUpLimit } from "./signup-limit.ts";
import { issueToken, revokeToken, type Viewer } from "./tokens.ts";
import type { EventBus } from "../../events/bus.ts";
import { isStorable, optionalText, requiredText, storable } from "../text.ts";
import { parseInput } from "../validation.ts";
import { isUniqueViolation } from "../prisma-errors.ts";
import { isProviderAccount } from "./provider-accounts.ts";

/** Users by id, for the loaders: no rule applies to reading one (see restaurants.ts). */

export const registrationInput = z.object({
  username: z
    .string()
    .trim()
    .min(3, "username must have at least 3 characters")
    .max(40, "username must have at most 40 characters")
    .regex(/^[A-Za-z0-9_.-]+$/, "username may contain only letters, digits, '_', '.' and '-'"),
  // Hashed, never stored as text; still refused when not clean Unicode: two passwords differing
  // only in a lone surrogate would hash alike (both become U+FFFD in UTF-8).
  password: storable(
    z.string().min(8, "password must have at least 8 characters").max(200, "password must have at most 200 characters"),
    "password",
  ),
  firstName: requiredText("firstName", 100),
  avatar: imageReference(optionalText("avatar", 2000), "avatar").nullish(),
});

export type Session = { token: string; expiresAt: Date; userId: string };

/** An account as anyone may be shown it: everything but its password hash. */
export const accountById = (db: Db, id: string) =>
  db.prisma.user.findUniqueOrThrow({ where: { id }, omit: { passwordHash: true } });

/**
 * The limits on sign-ups and sign-ins that come from clients (the command line has none): one
 * bounded password hasher per server, sign-ups per address, back-off per account.
 */
export type AccountGuards = { passwords: PasswordHasher; signUps: SignUpLimit; logins: LoginThrottle };

/** Who asks: the guards and the client address they count against. */
export type ClientGuards = AccountGuards & { clientAddress: string };

export async function register(
  db: Db,
  input: unknown,
  ttlMs: number,
  role: "USER" | "ADMIN" = "USER",
  client?: ClientGuards,
): Promise<Session> {
  const data = parseInput(registrationInput, input);
  client?.signUps.take(client.clientAddress);
  const passwordHash = client ? await client.passwords.hash(data.password) : await hashPassword(data.password);
  try {
    const user = await db.prisma.user.create({
      data: { username: data.username, passwordHash, firstName: data.firstName, avatar: data.avatar ?? null, role },
      select: { id: true },
    });
    return { ...(await issueToken(db, user.id, ttlMs)), userId: user.id };
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`username "${data.username}" is taken`, { field: "username" });
    throw error;
  }
}

export async function login(
  db: Db,
  username: unknown,
  password: unknown,
  ttlMs: number,
  client?: ClientGuards,
): Promise<Session> {
  if (typeof username !== "string" || typeof password !== "string" || !username || !password) {
    throw badInput("username and password are required", { fields: ["username", "password"] });
  }
  // A name the database cannot even compare (NUL, lone surrogate) belongs to nobody.
  const name = username.trim();
  // Unknown names are throttled too, so a lock does not tell which names exist.
  const attempt = client?.logins.begin(name, client.clientAddress);
  let verdict: "right" | "wrong" | undefined;
  try {
    const user = isStorable(name)
      ? await db.prisma.user.findUnique({ where: { username: name }, select: { id: true, passwordHash: true } })
      : null;
    // Hash even for an unknown user so the answer takes as long either way.
    const stored = user?.passwordHash ?? DUMMY_HASH;
    const ok = client ? await client.passwords.verify(password, stored) : await verifyPassword(password, stored);
    verdict = user && ok ? "right" : "wrong";
    if (!user || !ok) throw new DomainError("UNAUTHENTICATED", "username or password is wrong");
    return { ...(await issueToken(db, user.id, ttlMs)), userId: user.id };
  } finally {
    // Only a wrong password counts as a failure; a busy server or a failed look-up does not.
    if (verdict === "right") attempt?.succeeded();
    else if (verdict === "wrong") attempt?.failed();
    else attempt?.abandoned();
  }
}

/** Revokes the caller's token; every instance's session cache hears of it through `events` (so `db` must not be a transaction's). */
export async function logout(db: Db, viewer: Viewer | null, events: EventBus): Promise<void> {
  if (!viewer) throw signInRequired(false);
  if (viewer.fromIdentityProvider)
    throw badInput(
      "This token comes from your identity provider: sign out there. This service cannot revoke it; it ends at its expiry (exp).",
    );
  await revokeToken(db, viewer.tokenId);
  events.publish({ topic: "sessionRevoked", userId: viewer.id, sessionId: viewer.tokenId });
}

/** Changes a user's role; every instance's session cache hears of it through `events` (so `db` must not be a transaction's). */
export async function setRole(db: Db, username: string, role: "USER" | "ADMIN", events: EventBus): Promise<void> {
  const user = await db.prisma.user.findUnique({ where: { username }, select: { id: true } });
  if (user && (await isProviderAccount(db, user.id)))
    throw conflict(
      `"${username}" signs in through the identity provider, whose roles claim gives each token its role: change it there.`,
    );
  const { count } = user ? await db.prisma.user.updateMany({ where: { id: user.id }, data: { role } }) : { count: 0 };
  if (!user || count === 0) throw new DomainError("NOT_FOUND", `user "${username}" does not exist`);
  events.publish({ topic: "userChanged", userId: user.id });
}
