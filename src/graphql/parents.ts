// What each GraphQL object type's field resolvers receive as parent: the row the resolver that
// produces it returns (a Prisma row, a page of rows, a live event), not the schema's shape.
// scripts/codegen.ts maps every `<Type>Parent` here onto the generated resolver types, so a
// resolver returning something else, or reading a parent field the row lacks, fails `tsc`.
// Types not listed here are plain objects shaped as the schema says (GeoPoint, Contact, ...).
import type { Prisma } from "../db/client.ts";
import type { UserRow } from "../db/reads.ts";
import type { Comment } from "../domain/comments.ts";
import type { GroceryRow } from "../domain/groceries.ts";
import type { Connection, LazyConnection } from "../domain/pagination.ts";
import type { RestaurantRow } from "../domain/restaurants.ts";
import type { ShoppingListRow } from "../domain/shopping-list.ts";
import type { LiveOf } from "./subscriptions/live-source.ts";


/** Never holds the password hash (db/reads.ts): no field shows it. */
export type UserParent = UserRow;
/** register and login: the new token and its account. */
export type AuthPayloadParent = { accessToken: string; expiresAt: Date; user: UserRow };

export type RestaurantParent = RestaurantRow;
/** Searches count their matches only when totalCount is asked for. */
export type RestaurantConnectionParent = LazyConnection<RestaurantRow>;
export type RestaurantBadgeParent = Prisma.RestaurantBadgeGetPayload<{ include: { badge: true } }>;
export type BadgeParent = Prisma.BadgeGetPayload<object>;

export type CommentParent = Comment;
export type CommentConnectionParent = Connection<Comment>;

export type OrderParent = Prisma.OrderGetPayload<object>;
export type OrderConnectionParent = Connection<OrderParent>;

export type GroceryParent = GroceryRow;
export type GroceryConnectionParent = LazyConnection<GroceryRow>;
export type ShoppingListEntryParent = ShoppingListRow;
export type ShoppingListConnectionParent = Connection<ShoppingListRow>;

export type ReportParent = Prisma.ReportGetPayload<object>;
export type ReportConnectionParent = Connection<ReportParent>;
export type ReportResultParent = { report: ReportParent; created: boolean };

/** Subscriptions resolve to the event itself; its fields load what it names. */
export type RestaurantChangeParent = LiveOf<"restaurantChanged">;
export type ShoppingListChangeParent = LiveOf<"shoppingListChanged">;
