// The stored rows, as Prisma returns them: the one home of these types. The raw reads (reads.ts,
// searches.ts) return exactly these shapes, the domain writes and returns them, and the GraphQL
// layer hands them to resolvers as parents (src/graphql/data/parents.ts). Derived from the schema's
// Prisma types (through client.ts, the same on both databases), so a column added there is here.
import type { Prisma } from "./prisma.ts";

/** A user as every field shows it: the row without its password hash (read only at sign-in). */
export type UserRow = Omit<Prisma.UserGetPayload<object>, "passwordHash">;
/** A restaurant as every field shows it: the row without its opening pattern (the database's, for searches). */
export type RestaurantRow = Omit<Prisma.RestaurantGetPayload<object>, "openingPattern">;
/**
 * A restaurant read with only the columns a selection shows (GraphQL's look-ahead): its id, and
 * whichever others were asked; addressGiven when the address was shown in part (reads.ts).
 */
export type RestaurantPartial = Pick<RestaurantRow, "id"> & Partial<RestaurantRow> & { addressGiven?: boolean };
export type GroceryRow = Prisma.GroceryGetPayload<object>;
export type CommentRow = Prisma.CommentGetPayload<object>;
export type BadgeRow = Prisma.BadgeGetPayload<object>;
export type OrderRow = Prisma.OrderGetPayload<object>;
export type ReportRow = Prisma.ReportGetPayload<object>;
export type ShoppingListRow = Prisma.ShoppingListEntryGetPayload<object>;

/** A badge a restaurant holds (the grant), with the badge. */
export type RestaurantBadgeWithBadge = Prisma.RestaurantBadgeGetPayload<{ include: { badge: true } }>;
/** A comment with its author, as the latest comment of a restaurant is read. */
export type CommentWithAuthor = CommentRow & { author: UserRow };

export type RestaurantTagKind = Prisma.RestaurantTagGetPayload<object>["kind"];
export type GroceryTagKind = Prisma.GroceryTagGetPayload<object>["kind"];

/** A rated comment to add (comment-writes.ts). */
export type NewComment = { restaurantId: string; authorId: string; title: string; body: string; rating: number };
