// Users: accounts, sign-in and the signed-in user.
import * as users from "../../domain/users.ts";
import type { Session } from "../../domain/users.ts";
import type { Resolvers } from "../__generated__/resolvers.ts";
import { viewerOf, type Context } from "../context.ts";
import { loadUser } from "../loaders.ts";

async function authPayload(ctx: Context, session: Session) {
  ctx.signedInNow.add(session.userId);
  const user = await ctx.db.user.findUniqueOrThrow({ where: { id: session.userId }, omit: { passwordHash: true } });
  return { accessToken: session.token, expiresAt: session.expiresAt, user };
}

export const userResolvers: Resolvers = {
  Query: {
    me: (_, __, ctx) => ctx.db.user.findUniqueOrThrow({ where: { id: viewerOf(ctx).id }, omit: { passwordHash: true } }),
    user: (_, args, ctx) => loadUser(ctx, args.id),
  },
  Mutation: {
    register: async (_, args, ctx) =>
      authPayload(ctx, await users.register(ctx.db, args.input, ctx.config.tokenTtlMs, "USER", ctx.guards)),
    login: async (_, args, ctx) =>
      authPayload(ctx, await users.login(ctx.db, args.username, args.password, ctx.config.tokenTtlMs, ctx.guards)),
    logout: async (_, __, ctx) => {
      await users.logout(ctx.db, ctx.viewer, ctx.events);
      ctx.forgetToken();
      return true;
    },
  },
};
