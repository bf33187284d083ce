// The answer to Order Recipe: the entry placed on the caller's order list.
import type { LegacyOrderFragment } from "../../graphql/__generated__/operations.ts";
import * as s from "../openapi/json-schema.ts";

export const ORDER_FIELDS = `fragment LegacyOrder on Order { id recipe quantity createdAt restaurant { id } }`;

export const orderSchema = s.answer({
  _id: s.string(),
  restaurant_id: s.string(),
  recipe: s.string(),
  quantity: s.integer(),
  created_at: s.string({ format: "date-time" }),
});

export const legacyOrder = (o: LegacyOrderFragment) => ({
  _id: o.id,
  restaurant_id: o.restaurant.id,
  recipe: o.recipe,
  quantity: o.quantity,
  created_at: o.createdAt,
});
