// Users: accounts, sign-in and the signed-in user.
import * as users from "../../domain/users.ts";
import type { Session } from "../../domain/users.ts";
import { viewerOf, type Context } from "../context.ts";
import { loadUser } from "../loaders.ts";

async function authPayload(ctx: Context, session: Session) {
  ctx.signedInNow.add(session.userId);
  const user = await ctx.db.user.findUniqueOrThrow({ where: { id: session.userId } });
  return { accessToken: session.token, expiresAt: session.expiresAt, user };
}

export const userResolvers = {
  Query: {
    me: (_: unknown, __: unknown, ctx: Context) => ctx.db.user.findUniqueOrThrow({ where: { id: viewerOf(ctx).id } }),
    user: (_: unknown, args: { id: string }, ctx: Context) => loadUser(ctx, args.id),
  },
  Mutation: {
    register: async (_: unknown, args: { input: unknown }, ctx: Context) =>
      authPayload(ctx, await users.register(ctx.db, args.input, ctx.config.tokenTtlMs, "USER", ctx.guards)),
    login: async (_: unknown, args: { username: string; password: string }, ctx: Context) =>
      authPayload(ctx, await users.login(ctx.db, args.username, args.password, ctx.config.tokenTtlMs, ctx.guards)),
    logout: async (_: unknown, __: unknown, ctx: Context) => {
      await users.logout(ctx.db, ctx.viewer, ctx.events);
      ctx.forgetToken();
      return true;
    },
  },
};
