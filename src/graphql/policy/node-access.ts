// Who sees an object through node(id:) and nodes(ids:): whoever the Query field that reads its
// type admits, by that field's declared rule (@requireAuth / @public in schema.graphql), so a
// node never shows what the typed field would refuse. Ownership (an order is its customer's) is
// the domain's rule, applied in the read itself (data/nodes.ts).
import { getDirective } from "@graphql-tools/utils";
import { assertInterfaceType, type GraphQLSchema } from "graphql";
import type { Context } from "../data/context.ts";
import { ruleRefusal, type AuthRule } from "./auth.ts";

/** For each type that implements Node, the Query field whose declared rule says who may see it. */
export const READ_BY = {
  Restaurant: "restaurant",
  Grocery: "grocery",
  Comment: "restaurant", // comments are read through their restaurant
  User: "user",
  Badge: "badges",
  Order: "myOrders",
  Report: "reports",
} as const;

export type NodeType = keyof typeof READ_BY;
export const NODE_TYPES = Object.keys(READ_BY) as NodeType[];

type Rule = { field: string; rule: AuthRule | "public" };
const rulesOf = new WeakMap<GraphQLSchema, Map<NodeType, Rule>>();

/**
 * Each Node type's rule, read from the schema's declarations. Throws (at start-up: schema.ts calls
 * it) when a type implementing Node has no reading field here, or that field declares no rule.
 */
export function nodeReadRules(schema: GraphQLSchema): Map<NodeType, Rule> {
  const known = rulesOf.get(schema);
  if (known) return known;
  const implementing = schema.getPossibleTypes(assertInterfaceType(schema.getType("Node"))).map((t) => t.name);
  const missing = implementing.filter((name) => !(name in READ_BY));
  if (missing.length)
    throw new Error(`Node: ${missing.join(", ")} implement it, but node-access.ts READ_BY does not say who sees them`);
  const rules = new Map<NodeType, Rule>();
  for (const type of NODE_TYPES) {
    if (!implementing.includes(type))
      throw new Error(`node-access.ts READ_BY names ${type}, which does not implement Node`);
    const name = READ_BY[type];
    const field = schema.getQueryType()?.getFields()[name];
    if (!field) throw new Error(`node-access.ts READ_BY: ${type} is read by Query.${name}, which does not exist`);
    const declared = getDirective(schema, field, "requireAuth")?.[0] as AuthRule | undefined;
    const isPublic = Boolean(getDirective(schema, field, "public")?.[0]);
    if (!declared && !isPublic) throw new Error(`Query.${name} declares neither @requireAuth nor @public`);
    rules.set(type, { field: name, rule: declared ?? "public" });
  }
  rulesOf.set(schema, rules);
  return rules;
}

/** The Node types this request may see (in READ_BY's order). */
export function visibleNodeTypes(ctx: Context, schema: GraphQLSchema): NodeType[] {
  const rules = nodeReadRules(schema);
  return NODE_TYPES.filter((type) => {
    const { field, rule } = rules.get(type)!;
    return rule === "public" || ruleRefusal(ctx, rule, field) === null;
  });
}
