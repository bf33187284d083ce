// Users: accounts, sign-in and the signed-in user.
import * as users from "../../domain/accounts/users.ts";
import type { Session } from "../../domain/accounts/users.ts";
import type { Resolvers } from "../__generated__/resolvers.ts";
import { viewerOf, type Context } from "../data/context.ts";
import { loadUser } from "../data/loaders.ts";

async function authPayload(ctx: Context, session: Session) {
  ctx.signedInNow.add(session.userId);
  const user = await users.accountById(ctx.db, session.userId);
  return { accessToken: session.token, expiresAt: session.expiresAt, user };
}

export const userResolvers: Resolvers = {
  Query: {
    me: (_, __, ctx) => users.accountById(ctx.db, viewerOf(ctx).id),
    user: (_, args, ctx) => loadUser(ctx, args.id),
  },
  Mutation: {
    register: async (_, args, ctx) =>
      authPayload(ctx, await users.register(ctx.db, args.input, ctx.settings.tokenTtlMs, "USER", ctx.guards)),
    login: async (_, args, ctx) =>
      authPayload(ctx, await users.login(ctx.db, args.username, args.password, ctx.settings.tokenTtlMs, ctx.guards)),
    logout: async (_, __, ctx) => {
      await users.logout(ctx.db, ctx.viewer, ctx.events);
      ctx.forgetToken();
      return true;
    },
  },
};
