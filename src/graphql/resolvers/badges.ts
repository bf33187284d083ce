// Resolvers for badges and the badges a restaurant holds: thin; the rules live in src/domain/badges.ts.
import * as badges from "../../domain/badges.ts";
import { restaurantBadgesFor } from "../../domain/badges.ts";
import type { Resolvers } from "../__generated__/resolvers.ts";
import type { Context } from "../data/context.ts";
import { broughtWith, groupedByKey } from "../data/loaders.ts";
import { defineLoader } from "../data/loader-definition.ts";

const restaurantBadges = defineLoader("restaurantBadges", async (ctx: Context, ids: readonly string[]) => {
  const rows = await restaurantBadgesFor(ctx.db, ids);
  return groupedByKey(ids, rows, (r) => r.restaurantId);
});
/** The badges a restaurant holds, oldest grant first, each with its badge (one query per batch). */
const badgesOf = (ctx: Context, restaurantId: string) => ctx.loaderOf(restaurantBadges).load(restaurantId);

export const badgesResolvers: Resolvers = {
  Query: {
    badges: (_, __, ctx) => badges.listBadges(ctx.db),
  },
  Mutation: {
    grantBadge: (_, args, ctx) =>
      badges.grantBadge(ctx.db, ctx.events, args.restaurantId, args),
    revokeBadge: (_, args, ctx) =>
      badges.revokeBadge(ctx.db, ctx.events, args.restaurantId, args.badgeId),
  },
  Restaurant: {
    badges: (r, _, ctx) => broughtWith(r)?.badges ?? badgesOf(ctx, r.id),
  },
};
