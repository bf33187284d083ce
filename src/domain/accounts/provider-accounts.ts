// Accounts of people who sign in through the identity provider. An account is linked to a
// token's issuer and subject (ProviderIdentity), never to a username: a local account whose name
// matches the username claim is never taken over. The account is created the first time a valid
// token of that subject arrives, named from the username claim; when that name is taken (by a
// local account or another subject) the new one is `<name>-<6 hex of a hash of issuer and
// subject>`, then `<name>-<6 random hex>`. The name is not changed later when the claim changes.
// Concurrent first requests of one subject (on any instance) create one account: the identity's
// key is (issuer, subject) and the user and its identity are inserted together.
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../../db/db.ts";
import { DomainError } from "../../contract/errors.ts";
import { unusablePasswordHash } from "./passwords.ts";
import { isUniqueViolation } from "../prisma-errors.ts";
import { isStorable } from "../text.ts";

export type ProviderSubject = { issuer: string; subject: string };

/** Who a first token says its user is: the name to start from (3 to 40 of [A-Za-z0-9_.-]) and a first name. */
export type ProviderProfile = { username: string; firstName: string };

export type ProviderAccount = { id: string; username: string; role: "USER" | "ADMIN" };

const USERNAME_MAX = 40;

async function linkedAccount(db: Db, { issuer, subject }: ProviderSubject): Promise<ProviderAccount | undefined> {
  const row = await db.prisma.providerIdentity.findUnique({
    where: { issuer_subject: { issuer, subject } },
    select: { user: { select: { id: true, username: true, role: true } } },
  });
  return row?.user;
}

/** The names tried for a new account, in order. */
function candidateNames(base: string, { issuer, subject }: ProviderSubject): string[] {
  const stem = base.slice(0, USERNAME_MAX - 7);
  const digest = createHash("sha256").update(`${issuer}\n${subject}`).digest("hex").slice(0, 6);
  return [base, `${stem}-${digest}`, `${stem}-${randomBytes(3).toString("hex")}`];
}

/** A first name the database can keep: cut at 100 characters (never inside a surrogate pair), else the username. */
function storableFirstName(name: string, username: string): string {
  const cut = name.slice(0, 100).replace(/[\uD800-\uDBFF]$/, "");
  return cut.trim() && isStorable(cut) ? cut : username;
}

/** The account linked to `who`, created now if this is its first token. */
export async function providerAccount(
  db: Db,
  who: ProviderSubject,
  profile: ProviderProfile,
): Promise<ProviderAccount> {
  const linked = await linkedAccount(db, who);
  if (linked) return linked;
  const firstName = storableFirstName(profile.firstName, profile.username);
  for (const username of candidateNames(profile.username, who)) {
    try {
      return await db.prisma.user.create({
        data: {
          username,
          firstName,
          passwordHash: unusablePasswordHash(),
          providerIdentity: { create: { issuer: who.issuer, subject: who.subject } },
        },
        select: { id: true, username: true, role: true },
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Another request created this subject's account meanwhile (then use it), or the name is taken.
      const created = await linkedAccount(db, who);
      if (created) return created;
    }
  }
  throw new DomainError("CONFLICT", `No free username for this identity-provider account; try again.`);
}

/**
 * Keeps the stored role as the latest token says (what `me { role }` shows). Authorization never
 * reads it: each token's own roles claim decides (src/domain/accounts/provider-tokens.ts). No event: no
 * other session depends on it.
 */
export async function recordRole(db: Db, account: ProviderAccount, role: "USER" | "ADMIN"): Promise<void> {
  if (account.role !== role) await db.prisma.user.updateMany({ where: { id: account.id }, data: { role } });
}

/** Whether an account's role comes from the identity provider (the admin command line then leaves it alone). */
export async function isProviderAccount(db: Db, userId: string): Promise<boolean> {
  return (await db.prisma.providerIdentity.count({ where: { userId } })) > 0;
}
