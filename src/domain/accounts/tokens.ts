// Access tokens: opaque random strings handed to the client once; only their SHA-256 is stored.
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../../db/db.ts";
import type { EventBus } from "../../events/bus.ts";

/** `fromIdentityProvider`: signed in with a JWT of the identity provider (provider-tokens.ts), which this service cannot revoke. */
export type Viewer = {
  id: string;
  username: string;
  role: "USER" | "ADMIN";
  tokenId: string;
  fromIdentityProvider?: boolean;
};

/** What the presented token (if any) turned out to be; `reason`: why it is refused, when there is more to say than "invalid". */
export type Authentication =
  { state: "none" } | { state: "invalid"; reason?: string } | { state: "valid"; viewer: Viewer; expiresAt: Date };

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export async function issueToken(db: Db, userId: string, ttlMs: number): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + ttlMs);
  await db.prisma.accessToken.create({ data: { tokenHash: hashToken(token), userId, expiresAt } });
  return { token, expiresAt };
}

export async function authenticate(db: Db, token: string | undefined): Promise<Authentication> {
  if (!token) return { state: "none" };
  // Tokens we issue are 43 base64url characters; anything far off is not worth a query.
  if (token.length > 200) return { state: "invalid" };
  const row = await db.prisma.accessToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, expiresAt: true, revokedAt: true, user: { select: { id: true, username: true, role: true } } },
  });
  if (!row || row.revokedAt || row.expiresAt.getTime() <= Date.now()) return { state: "invalid" };
  return { state: "valid", viewer: { ...row.user, tokenId: row.id }, expiresAt: row.expiresAt };
}

export async function revokeToken(db: Db, tokenId: string): Promise<void> {
  await db.prisma.accessToken.updateMany({ where: { id: tokenId, revokedAt: null }, data: { revokedAt: new Date() } });
}

/** Signs a user out everywhere; every instance's session cache hears of it through `events` (so `db` must not be a transaction's). */
export async function revokeAllTokens(db: Db, userId: string, events: EventBus): Promise<number> {
  const { count } = await db.prisma.accessToken.updateMany({
    where: { userId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  events.publish({ topic: "userChanged", userId });
  return count;
}
