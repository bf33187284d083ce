// Badge commands: grant a badge to a restaurant (the badge is created on first use) or revoke it.
import type { Db } from "../../db/db.ts";
import { grantBadge, revokeBadge } from "../../domain/catalogue/badges.ts";
import { DomainError, notFound } from "../../contract/errors.ts";
import type { Command } from "./command.ts";
import { shortTime } from "./table.ts";

async function restaurantTitle(db: Db, id: string): Promise<string> {
  const restaurant = await db.prisma.restaurant.findUnique({ where: { id }, select: { title: true } });
  if (!restaurant) throw notFound("restaurant", id);
  return restaurant.title;
}

const grant: Command = {
  name: "grant-badge",
  args: ["restaurant-id", "badge-name"],
  options: { cover: { value: "URL", help: "the badge's picture, used only when this creates the badge" } },
  summary: "Grants a badge to a restaurant; a badge of that name is created if none exists.",
  details: "Granting a badge the restaurant already holds changes nothing.",
  async run({ db, events, print }, { args, options }) {
    const held = await grantBadge(db, events, args["restaurant-id"]!, {
      name: args["badge-name"],
      cover: options.cover,
    });
    const title = await restaurantTitle(db, held.restaurantId);
    print(
      `restaurant "${title}" (${held.restaurantId}) holds badge "${held.badge.name}" since ${shortTime(held.receivedAt)} UTC`,
    );
  },
};

const revoke: Command = {
  name: "revoke-badge",
  args: ["restaurant-id", "badge-name"],
  summary: "Takes a badge back from a restaurant (the badge itself stays, for other restaurants).",
  async run({ db, events, print }, { args }) {
    const restaurantId = args["restaurant-id"]!;
    const name = args["badge-name"]!;
    const title = await restaurantTitle(db, restaurantId);
    const badge = await db.prisma.badge.findUnique({ where: { name }, select: { id: true } });
    if (!badge) {
      const names = (
        await db.prisma.badge.findMany({ select: { name: true }, orderBy: { name: "asc" }, take: 20 })
      ).map((b) => `"${b.name}"`);
      throw new DomainError(
        "NOT_FOUND",
        `badge "${name}" does not exist${names.length ? ` (badges: ${names.join(", ")})` : " (there are no badges yet)"}`,
      );
    }
    const held = await revokeBadge(db, events, restaurantId, badge.id);
    print(
      held
        ? `revoked badge "${name}" from restaurant "${title}" (${restaurantId})`
        : `restaurant "${title}" (${restaurantId}) did not hold badge "${name}"; nothing changed`,
    );
  },
};

export const badgeCommands: Command[] = [grant, revoke];
