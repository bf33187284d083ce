// Resolvers for badges and the badges a restaurant holds: thin; the rules live in src/domain/catalogue/badges.ts.
import * as badges from "../../../domain/catalogue/badges.ts";
import type { Resolvers } from "../../__generated__/resolvers.ts";
import { badgesOf } from "../../data/restaurant-plan.ts";

export const badgesResolvers: Resolvers = {
  Query: {
    badges: (_, __, ctx) => badges.listBadges(ctx.db),
  },
  Mutation: {
    grantBadge: (_, args, ctx) => badges.grantBadge(ctx.db, ctx.events, args.restaurantId, args),
    revokeBadge: (_, args, ctx) => badges.revokeBadge(ctx.db, ctx.events, args.restaurantId, args.badgeId),
  },
  Restaurant: {
    badges: (r, _, ctx) => badgesOf(ctx, r),
  },
};
