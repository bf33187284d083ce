// node(id:) and nodes(ids:). An id does not name its type (every table's ids are the same kind of
// string, the ones the REST shim and existing clients use), so a node is found by probing tables
// by primary key, each through its per-request loader: one statement per table per batch of ids.
// First the types the selection's fragments name (a Relay refetch query names its type: one
// statement), then, for ids not found there, every other type the caller may see, together. A
// type the caller may not see (node-access.ts) is never probed, so it reads as no object at all.
import type { GraphQLResolveInfo } from "graphql";
import { badInput } from "../../contract/errors.ts";
import type { BadgeRow, CommentRow, GroceryRow, OrderRow, ReportRow, RestaurantPartial, UserRow } from "../../db/rows.ts";
import { badgesByIds } from "../../domain/catalogue/badges.ts";
import { commentsByIds } from "../../domain/catalogue/comments.ts";
import { viewerOrdersByIds } from "../../domain/orders/orders.ts";
import { MAX_PAGE_SIZE } from "../../domain/pagination.ts";
import { reportsByIds } from "../../domain/catalogue/reports.ts";
import { checkId } from "../../domain/text.ts";
import { visibleNodeTypes, type NodeType } from "../policy/node-access.ts";
import { viewerOf, type Context } from "./context.ts";
import { defineLoader } from "./loader-definition.ts";
import { loadGrocery, loadUser, rowsById } from "./loaders.ts";
import { restaurantShowing } from "./restaurant-plan.ts";
import { selectionOf, typeConditionsOf } from "./selection.ts";

export type NodeRow = RestaurantPartial | GroceryRow | CommentRow | UserRow | OrderRow | BadgeRow | ReportRow;

const commentById = defineLoader("commentById", (ctx: Context, ids: readonly string[]) =>
  rowsById(ids, (some) => commentsByIds(ctx.db, some)),
);
const viewerOrderById = defineLoader("viewerOrderById", (ctx: Context, ids: readonly string[]) =>
  rowsById(ids, (some) => viewerOrdersByIds(ctx.db, viewerOf(ctx), some)),
);
const badgeById = defineLoader("badgeById", (ctx: Context, ids: readonly string[]) =>
  rowsById(ids, (some) => badgesByIds(ctx.db, some)),
);
const reportById = defineLoader("reportById", (ctx: Context, ids: readonly string[]) =>
  rowsById(ids, (some) => reportsByIds(ctx.db, some)),
);

/** How each type is read by id; a restaurant with what the fragments on Restaurant show, as Query.restaurant reads it. */
const READS: Record<NodeType, (ctx: Context, id: string, info: GraphQLResolveInfo) => Promise<NodeRow | null>> = {
  Restaurant: (ctx, id, info) => restaurantShowing(ctx, id, selectionOf(info, "Restaurant")),
  Grocery: (ctx, id) => loadGrocery(ctx, id),
  Comment: (ctx, id) => ctx.loaderOf(commentById).load(id),
  User: (ctx, id) => loadUser(ctx, id),
  // The caller's own orders only: viewerOrdersByIds applies the domain's rule.
  Order: (ctx, id) => ctx.loaderOf(viewerOrderById).load(id),
  Badge: (ctx, id) => ctx.loaderOf(badgeById).load(id),
  Report: (ctx, id) => ctx.loaderOf(reportById).load(id),
};

/** The type each row a node answered was found as (Node's __resolveType reads it). */
const foundAs = new WeakMap<object, NodeType>();

export function nodeTypeOf(row: NodeRow): NodeType {
  const type = foundAs.get(row);
  if (!type) throw new Error("a Node value that node(id:) did not find");
  return type;
}

/** The first of `types` that has a row with this id (they are probed together), or null. */
async function probe(ctx: Context, id: string, info: GraphQLResolveInfo, types: NodeType[]): Promise<NodeRow | null> {
  const rows = await Promise.all(types.map((type) => READS[type](ctx, id, info)));
  const at = rows.findIndex((row) => row !== null);
  if (at < 0) return null;
  foundAs.set(rows[at]!, types[at]!);
  return rows[at]!;
}

async function nodeWithId(ctx: Context, id: string, info: GraphQLResolveInfo, types: NodeType[], named: Set<string>) {
  const first = types.filter((type) => named.has(type));
  const found = first.length ? await probe(ctx, id, info, first) : null;
  return found ?? probe(ctx, id, info, types.filter((type) => !named.has(type)));
}

/** Query.node: the object with this id that the caller may see, or null. */
export function nodeFor(ctx: Context, id: string, info: GraphQLResolveInfo): Promise<NodeRow | null> {
  checkId(id, "id");
  return nodeWithId(ctx, id, info, visibleNodeTypes(ctx, info.schema), typeConditionsOf(info));
}

/** Query.nodes: each id as node(id:) answers it, in order; at most MAX_PAGE_SIZE ids, like a page. */
export function nodesFor(ctx: Context, ids: readonly string[], info: GraphQLResolveInfo): Promise<(NodeRow | null)[]> {
  if (ids.length > MAX_PAGE_SIZE) throw badInput(`ids: at most ${MAX_PAGE_SIZE} ids`, { field: "ids", max: MAX_PAGE_SIZE });
  ids.forEach((id, i) => checkId(id, `ids[${i}]`));
  const types = visibleNodeTypes(ctx, info.schema);
  const named = typeConditionsOf(info);
  return Promise.all(ids.map((id) => nodeWithId(ctx, id, info, types, named)));
}
