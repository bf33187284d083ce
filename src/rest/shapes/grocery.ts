// The legacy grocery shape (spec "Grocery"), and a shopping-list entry holding one.
import type { AddToShoppingListMutation, LegacyGroceryFragment } from "../../graphql/__generated__/operations.ts";
import * as s from "../openapi/json-schema.ts";

type GraphqlShoppingListEntry = AddToShoppingListMutation["addToShoppingList"];

export const GROCERY_FIELDS = `fragment LegacyGrocery on Grocery { id title description alsoKnownAs cover metricUnits categories }`;

export const grocerySchema = s.answer({
  _id: s.string(),
  title: s.string(),
  description: s.string({ description: "may be empty" }),
  also_known_as: s.string({ description: "may be empty" }),
  cover: s.nullable(s.string({ description: "file name of the cover image, served at /uploads/<name>" })),
  metric_units: s.arrayOf(s.string()),
  categories: s.arrayOf(s.string()),
});

export const legacyGrocery = (g: LegacyGroceryFragment) => ({
  _id: g.id,
  title: g.title,
  description: g.description,
  also_known_as: g.alsoKnownAs,
  cover: g.cover,
  metric_units: g.metricUnits,
  categories: g.categories,
});

export const shoppingListEntrySchema = s.answer({
  grocery: grocerySchema,
  quantity: s.integer({ description: "how many are now on the list" }),
  added_at: s.string({ format: "date-time" }),
  updated_at: s.string({ format: "date-time" }),
});

export const legacyShoppingListEntry = (e: GraphqlShoppingListEntry) => ({
  grocery: legacyGrocery(e.grocery),
  quantity: e.quantity,
  added_at: e.addedAt,
  updated_at: e.updatedAt,
});
