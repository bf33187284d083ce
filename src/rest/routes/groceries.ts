// Grocery operations of the legacy interface (docs/rest-contract.md).
//
// Answers:
// - 201s carry the thing created or changed in legacy shape: Add grocery and Edit grocery -> the
//   grocery, Add to shopping list -> the entry ({grocery, quantity, added_at, updated_at}).
//   Clients that ignore bodies are unaffected.
// - 200s: Search (array of groceries), Get (grocery), Report grocery (the report: {_id,
//   target_type, target_id, reason_type, reason_body, status, created, created_at}).
//   204 without body: both removals. A get that finds nothing: 404.
// Shared method + path pairs:
// - PUT /groceries/:grocery_id carrying reason_type (body or query) is Report (200), otherwise Add
//   to shopping list (201, quantity default 1; adding again raises the quantity).
// - DELETE /groceries/:grocery_id: ?from=shopping_list takes it off the caller's list;
//   ?from=catalogue removes the grocery; neither: off the list if it is on it, else removed
//   (removeGrocery's SHOPPING_LIST_OR_CATALOGUE). 204 either way.
// Edit grocery's target: `_id` (also `id`, `grocery_id`) in the body or query; missing -> 400.
// Paths answer with and without a trailing slash (the spec writes some with one, two without a
// leading slash: they are the same routes).
import { boolean, choice, file, integer, text, textList } from "../requests/fields.ts";
import * as s from "../openapi/json-schema.ts";
import { inBody, inPath, inQuery } from "../requests/params.ts";
import type { RestParam, RestRequest, RestRoute } from "../route-row.ts";
import { found } from "../answers.ts";
import {
  GROCERY_FIELDS,
  grocerySchema,
  legacyGrocery,
  legacyShoppingListEntry,
  shoppingListEntrySchema,
} from "../shapes/grocery.ts";
import { legacyReport, REPORT_FIELDS, reportSchema } from "../shapes/report.ts";
import { reportParams, reportVariables } from "./report-request.ts";

const groceryId = inPath("grocery_id", { to: "id", description: "the grocery's _id" });

function groceryFields({ titleRequired }: { titleRequired: boolean }): RestParam[] {
  return [
    inBody("title", text, { required: titleRequired, to: "input.title", description: "the grocery's name" }),
    inBody("description", text, { to: "input.description", description: "a short description" }),
    inBody("also_known_as", text, { to: "input.alsoKnownAs", description: "may be empty" }),
    inBody("cover", file, { to: "input.cover", description: "PNG, JPEG, WebP or GIF; 5 MB at most by default" }),
    inBody("metric_units", textList, { to: "input.metricUnits", description: "units it is sold in, e.g. g, l" }),
    inBody("categories", textList, { to: "input.categories", description: "e.g. pantry, dairy" }),
  ];
}

/** DELETE's `from`: the same field for both removal rows (the rows' `when` tells them apart). */
const removalScope = inQuery(
  "from",
  choice({ shopping_list: "SHOPPING_LIST", catalogue: "CATALOGUE", catalog: "CATALOGUE" }),
  {
    to: "from",
    default: "SHOPPING_LIST_OR_CATALOGUE",
    description:
      "shopping_list or catalogue; without it: off the caller's list if the grocery is on it, else removed from the catalogue",
  },
);

const fromIs = (req: RestRequest, value: string) => {
  const from = req.field("from");
  return typeof from === "string" && from.trim().toLowerCase() === value;
};

export const groceryRoutes: RestRoute[] = [
  {
    operation: "Add grocery",
    summary: "Adds a grocery to the catalogue; the caller becomes its owner. Send the cover as multipart/form-data.",
    tag: "groceries",
    method: "POST",
    path: "/groceries",
    params: groceryFields({ titleRequired: true }),
    document: `mutation AddGrocery($input: CreateGroceryInput!) { createGrocery(input: $input) { ...LegacyGrocery } } ${GROCERY_FIELDS}`,
    status: 201,
    response: grocerySchema,
    body: (data) => legacyGrocery(data.createGrocery),
  },
  {
    operation: "Search groceries",
    summary: "Searches groceries: best match first with search, else newest first.",
    tag: "groceries",
    method: "GET",
    path: "/groceries",
    params: [
      inQuery("title", text, { to: "filter.title", description: "case-insensitive part of the title" }),
      inQuery("search", text, {
        to: "filter.search",
        description: 'words in the title, other name, categories and description, best match first, e.g. "olive oil"',
      }),
      inQuery("categories", text, { aliases: ["category"], to: "filter.category", description: "a category name" }),
      inQuery("categories_any", textList, {
        to: "filter.categories.anyOf",
        description: "categories, any of them (repeat the key)",
      }),
      inQuery("categories_all", textList, {
        to: "filter.categories.allOf",
        description: "categories, all of them (repeat the key)",
      }),
      inQuery("sort", choice({ relevance: "RELEVANCE", newest: "NEWEST" }), {
        to: "sort",
        description: "default relevance with search, else newest",
      }),
      inQuery("limit", integer, { to: "first", default: 20, description: "1 to 100" }),
      inQuery("offset", integer, { to: "offset", description: "items to skip" }),
    ],
    document: `query SearchGroceries($filter: GroceryFilter, $sort: GrocerySort, $first: Int, $offset: Int) {
      groceries(filter: $filter, sort: $sort, first: $first, offset: $offset) { nodes { ...LegacyGrocery } }
    } ${GROCERY_FIELDS}`,
    status: 200,
    response: s.arrayOf(grocerySchema),
    body: (data) => data.groceries.nodes.map(legacyGrocery),
  },
  {
    operation: "Edit grocery",
    summary:
      "Changes a grocery (owner or admin): only the fields given change. Send a new cover as multipart/form-data.",
    tag: "groceries",
    method: "PATCH",
    path: "/groceries",
    params: [
      inBody("_id", text, {
        required: true,
        aliases: ["id", "grocery_id"],
        to: "id",
        description: "the grocery to change (also id or grocery_id; body or query)",
      }),
      ...groceryFields({ titleRequired: false }),
      inBody("remove_cover", boolean, { to: "input.removeCover", description: "true removes the cover" }),
    ],
    document: `mutation EditGrocery($id: ID!, $input: UpdateGroceryInput!) { updateGrocery(id: $id, input: $input) { ...LegacyGrocery } } ${GROCERY_FIELDS}`,
    variables: () => ({ input: {} }),
    status: 201,
    response: grocerySchema,
    body: (data) => legacyGrocery(data.updateGrocery),
  },
  {
    operation: "Get grocery",
    summary: "A grocery.",
    tag: "groceries",
    method: "GET",
    path: "/groceries/:grocery_id",
    params: [groceryId],
    document: `query GetGrocery($id: ID!) { grocery(id: $id) { ...LegacyGrocery } } ${GROCERY_FIELDS}`,
    status: 200,
    response: grocerySchema,
    body: (data, values) => legacyGrocery(found(data.grocery, "Grocery", values.grocery_id)),
  },
  {
    operation: "Report grocery",
    summary: "Reports a grocery; a repeat by the same user changes nothing.",
    tag: "groceries",
    method: "PUT",
    path: "/groceries/:grocery_id",
    when: (req) => req.has("reason_type"),
    whenText: "when the request carries reason_type",
    params: [groceryId, ...reportParams],
    variables: reportVariables,
    document: `mutation ReportGrocery($id: ID!, $input: ReportInput!) { reportGrocery(id: $id, input: $input) { ...LegacyReport } } ${REPORT_FIELDS}`,
    status: 200,
    response: reportSchema,
    body: (data) => legacyReport(data.reportGrocery),
  },
  {
    operation: "Add grocery to shopping list",
    summary: "Adds a grocery to the caller's shopping list; adding again raises the quantity.",
    tag: "groceries",
    method: "PUT",
    path: "/groceries/:grocery_id",
    whenText: "otherwise",
    params: [
      inPath("grocery_id", { to: "groceryId", description: "the grocery's _id" }),
      inBody("quantity", integer, { to: "quantity", default: 1, description: "1 to 1000" }),
    ],
    document: `mutation AddToShoppingList($groceryId: ID!, $quantity: Int) {
      addToShoppingList(groceryId: $groceryId, quantity: $quantity) { grocery { ...LegacyGrocery } quantity addedAt updatedAt }
    } ${GROCERY_FIELDS}`,
    status: 201,
    response: shoppingListEntrySchema,
    body: (data) => legacyShoppingListEntry(data.addToShoppingList),
  },
  {
    operation: "Remove grocery from shopping list",
    summary: "Takes a grocery off the caller's shopping list.",
    tag: "groceries",
    method: "DELETE",
    path: "/groceries/:grocery_id",
    when: (req) => fromIs(req, "shopping_list"),
    whenText: "with from=shopping_list",
    params: [groceryId, removalScope],
    document: `mutation RemoveFromShoppingList($id: ID!, $from: GroceryRemovalScope) { removeGrocery(id: $id, from: $from) { removedFrom } }`,
    status: 204,
  },
  {
    operation: "Remove grocery",
    summary:
      "Removes a grocery (owner or admin); without `from`, takes it off the caller's list instead when it is on it.",
    tag: "groceries",
    method: "DELETE",
    path: "/groceries/:grocery_id",
    whenText: "with from=catalogue, or without from",
    params: [groceryId, removalScope],
    document: `mutation RemoveGrocery($id: ID!, $from: GroceryRemovalScope) { removeGrocery(id: $id, from: $from) { removedFrom } }`,
    status: 204,
  },
];
