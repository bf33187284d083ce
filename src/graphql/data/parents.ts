// What each GraphQL object type's field resolvers receive as parent: the row the resolver that
// produces it returns (a Prisma row, a page of rows, a live event), not the schema's shape.
// scripts/codegen.ts maps every `<Type>Parent` here onto the generated resolver types, so a
// resolver returning something else, or reading a parent field the row lacks, fails `tsc`.
// Types not listed here are plain objects shaped as the schema says (GeoPoint, Contact, ...).
import type { BadgeRow, CommentRow, GroceryRow, OrderRow, ReportRow, RestaurantBadgeWithBadge, RestaurantPartial, ShoppingListRow, UserRow } from "../../db/rows.ts";
import type { Connection, LazyConnection, SearchConnection } from "../../domain/pagination.ts";
import type { Facets } from "../../domain/catalogue/restaurants.ts";
import type { LiveOf } from "../subscriptions/events/live-source.ts";

export type UserParent = UserRow;
/** register and login: the new token and its account. */
export type AuthPayloadParent = { accessToken: string; expiresAt: Date; user: UserRow };

/** Read with the columns its selection shows (graphql/data/restaurant-plan.ts): fields read them with `column()`. */
export type RestaurantParent = RestaurantPartial;
/** Searches count their matches (and by list value, facets) only when asked for. */
export type RestaurantConnectionParent = SearchConnection<RestaurantPartial, Facets>;
/** Facets of a search: whether exact, and the values of each list with their counts. */
export type RestaurantFacetsParent = Facets;
export type GroceryFacetsParent = Facets;
export type RestaurantBadgeParent = RestaurantBadgeWithBadge;
export type BadgeParent = BadgeRow;

export type CommentParent = CommentRow;
/** A restaurant's comments count themselves only when asked for. */
export type CommentConnectionParent = LazyConnection<CommentRow>;

export type OrderParent = OrderRow;
export type OrderConnectionParent = Connection<OrderParent>;

export type GroceryParent = GroceryRow;
export type GroceryConnectionParent = SearchConnection<GroceryRow, Facets>;
export type ShoppingListEntryParent = ShoppingListRow;
export type ShoppingListConnectionParent = Connection<ShoppingListRow>;

export type ReportParent = ReportRow;
export type ReportConnectionParent = Connection<ReportParent>;
export type ReportResultParent = { report: ReportParent; created: boolean };

/** Subscriptions resolve to the event itself; its fields load what it names. */
export type RestaurantChangeParent = LiveOf<"restaurantChanged">;
export type ShoppingListChangeParent = LiveOf<"shoppingListChanged">;
