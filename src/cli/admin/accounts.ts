// Account commands: create an admin, promote, demote, sign a user out everywhere.
import { randomBytes } from "node:crypto";
import type { Db } from "../../db/db.ts";
import { DomainError } from "../../contract/errors.ts";
import { revokeAllTokens } from "../../domain/accounts/tokens.ts";
import { register, setRole } from "../../domain/accounts/users.ts";
import { isProviderAccount } from "../../domain/accounts/provider-accounts.ts";
import type { Command } from "./command.ts";

/** The user with this username, or NOT_FOUND naming it. */
export async function userNamed(db: Db, username: string) {
  const user = await db.prisma.user.findUnique({
    where: { username },
    select: { id: true, username: true, role: true },
  });
  if (!user) throw new DomainError("NOT_FOUND", `user "${username}" does not exist`);
  return user;
}

const create: Command = {
  name: "create",
  args: ["username"],
  options: {
    password: {
      value: "PASSWORD",
      help: "its password (8 to 200 characters); else ADMIN_PASSWORD, else a random one, printed once",
    },
    "first-name": { value: "NAME", help: "the name shown for it (default: the username)" },
  },
  summary: "Creates an admin account.",
  async run({ db, config, print }, { args, options }) {
    const given = (options.password as string | undefined) ?? process.env.ADMIN_PASSWORD;
    const password = given ?? randomBytes(12).toString("base64url");
    const firstName = (options["first-name"] as string | undefined) ?? args.username;
    await register(db, { username: args.username, password, firstName }, config.tokenTtlMs, "ADMIN");
    print(`admin "${args.username}" created${given ? "" : `; password: ${password}`}`);
  },
};

const promote: Command = {
  name: "promote",
  args: ["username"],
  summary: "Makes an existing user an admin.",
  async run({ db, events, print }, { args }) {
    await setRole(db, args.username, "ADMIN", events);
    print(`"${args.username}" is now an admin`);
  },
};

const demote: Command = {
  name: "demote",
  args: ["username"],
  summary: "Makes an admin a plain user.",
  async run({ db, events, print }, { args }) {
    await setRole(db, args.username, "USER", events);
    print(`"${args.username}" is now a user`);
  },
};

const revokeTokens: Command = {
  name: "revoke-tokens",
  args: ["username"],
  summary: "Signs a user out everywhere: revokes all their access tokens.",
  details: "They can sign in again with their password (POST /auth/token or the login mutation).",
  async run({ db, events, print }, { args }) {
    const user = await userNamed(db, args.username);
    print(`revoked ${await revokeAllTokens(db, user.id, events)} token(s) of "${args.username}"`);
    if (await isProviderAccount(db, user.id))
      print(
        `"${args.username}" signs in through the identity provider: its tokens cannot be revoked here and work until they expire; disable the user at the provider`,
      );
  },
};

export const accountCommands: Command[] = [create, promote, demote, revokeTokens];
