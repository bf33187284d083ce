// Restaurant operations of the legacy interface (docs/rest-contract.md).
//
// Answers:
// - 201s carry the created thing in legacy shape: Add restaurant -> the restaurant detail,
//   Order Recipe -> the order entry, Comment Restaurant -> the comment as Get Comments lists it,
//   Report Restaurant -> the report ({_id, target_type, target_id, reason_type, reason_body,
//   status, created, created_at}; `created` false for a repeat, which changes nothing).
//   Clients that ignore bodies are unaffected.
// - 200s: Search (array of search items), Get (detail), Get Comments, Edit (detail without
//   badges and comments). 204 without body: Remove. A get that finds nothing: 404.
// - Absent optional values are null; lists are arrays; `address` is always an object.
// Shared method + path: PUT /restaurants/:restaurant_id carrying reason_type or reason_body
// (body or query) is Report, otherwise Edit. PUT /restaurants/order is a static path, which
// Fastify's router prefers over /restaurants/:restaurant_id.
// Fields other than path segments are read from the body, else from the query string.
import { found } from "../answers.ts";
import { badInput } from "../../contract/errors.ts";
import {
  address,
  boolean,
  choice,
  contact,
  decimal,
  integer,
  openingHours,
  text,
  textList,
} from "../requests/fields.ts";
import * as s from "../openapi/json-schema.ts";
import { inBody, inPath, inQuery } from "../requests/params.ts";
import type { FieldValues, RestParam, RestRoute } from "../route-row.ts";
import { reportParams, reportVariables } from "./report-request.ts";
import { COMMENT_FIELDS, commentSchema, commentsSchema, legacyComment, legacyComments } from "../shapes/comment.ts";
import { legacyOrder, ORDER_FIELDS, orderSchema } from "../shapes/order.ts";
import { legacyReport, REPORT_FIELDS, reportSchema } from "../shapes/report.ts";
import {
  legacyRestaurantDetail,
  legacyRestaurantEdited,
  legacyRestaurantSearchItem,
  RESTAURANT_DETAIL,
  RESTAURANT_EDITED,
  RESTAURANT_SEARCH_ITEM,
  restaurantDetailSchema,
  restaurantEditedSchema,
  restaurantSearchItemSchema,
} from "../shapes/restaurant.ts";

const restaurantId = inPath("restaurant_id", { to: "id", description: "the restaurant's _id" });

/** Registration fields (spec "parameters of registration"), plus what Edit may also set. */
function restaurantFields({ titleRequired }: { titleRequired: boolean }): RestParam[] {
  return [
    inBody("title", text, { required: titleRequired, to: "input.title", description: "the restaurant's name" }),
    inBody("description", text, { to: "input.description", description: "free text about the place" }),
    inBody("logo", text, { to: "input.logo", description: "URL or file name" }),
    inBody("cover", text, { to: "input.cover", description: "URL or file name" }),
    inBody("url", text, { to: "input.url", description: "free text, e.g. a slug such as kababish-bangalore" }),
    inBody("type", textList, {
      aliases: ["types"],
      to: "input.types",
      description: "kinds of place, e.g. restaurant, cafe",
    }),
    inBody("categories", textList, { to: "input.categories", description: "e.g. vegan-friendly, family" }),
    inBody("accepts_reservations", boolean, { to: "input.acceptsReservations", description: "true or false" }),
    inBody("serves_cuisine", textList, { to: "input.cuisines", description: "cuisines, e.g. portuguese, seafood" }),
    inBody("star_rating", decimal, { to: "input.starRating", description: "0 to 5" }),
    inBody("opening_hours", openingHours, {
      to: "input.openingHours",
      description: 'HH:MM 24-hour times; also "HH:MM-HH:MM" strings',
    }),
    inBody("payment_methods", textList, { to: "input.paymentMethods", description: "e.g. cash, card" }),
    inBody("can_home_delever", boolean, {
      aliases: ["can_home_deliver"],
      to: "input.canHomeDeliver",
      description: "spelt so",
    }),
    inBody("price_range", textList, { to: "input.priceRange", description: "price range labels, e.g. $$" }),
    inBody("photos", textList, { to: "input.photos", description: "URLs or file names of pictures" }),
    inBody("email", text, { to: "input.email", description: "contact e-mail address" }),
    inBody("phone", text, { to: "input.phone", description: "contact phone number" }),
    inBody("website", text, { to: "input.website", description: "an http(s) web address" }),
    inBody("address", address, {
      to: "input.address",
      description:
        "{addressLine1, addressLine2, landmark, state, city, district, country, geo: {latitude, longitude}, timeZone}; without timeZone, the zone geo falls in",
    }),
    inBody("contact", contact, { description: "{email, phone}; top-level email and phone win over it" }),
  ];
}

/** `contact` fills in email and phone where the top-level fields do not give them. */
function contactVariables(values: FieldValues) {
  const c = values.contact as { email?: unknown; phone?: unknown } | null | undefined;
  if (c === undefined) return {};
  const pick = (key: "email" | "phone") => (Object.hasOwn(values, key) ? undefined : c === null ? null : c[key]);
  return { input: { email: pick("email"), phone: pick("phone") } };
}

/** latitude and longitude make a point only together; radius_km needs them. */
function nearVariables(values: FieldValues) {
  const given = ["latitude", "longitude", "radius_km"].filter(
    (name) => Object.hasOwn(values, name) && values[name] != null,
  );
  if (given.length > 0 && !(given.includes("latitude") && given.includes("longitude"))) {
    throw badInput(
      `${given.join(" and ")}: give latitude and longitude together (radius_km with them) for a near search`,
      {
        field: given[0],
      },
    );
  }
  return {};
}

const paging = [
  inQuery("limit", integer, { to: "first", default: 20, description: "1 to 100" }),
  inQuery("offset", integer, { to: "offset", description: "items to skip" }),
];

export const restaurantRoutes: RestRoute[] = [
  {
    operation: "Add restaurant",
    summary: "Registers a restaurant; the caller becomes its owner.",
    tag: "restaurants",
    method: "POST",
    path: "/restaurants",
    params: restaurantFields({ titleRequired: true }),
    variables: contactVariables,
    document: `mutation AddRestaurant($input: CreateRestaurantInput!) { createRestaurant(input: $input) { ...LegacyRestaurantDetail } } ${RESTAURANT_DETAIL}`,
    status: 201,
    response: restaurantDetailSchema,
    body: (data) => legacyRestaurantDetail(data.createRestaurant),
  },
  {
    operation: "Search restaurants",
    summary: "Searches restaurants; all given filters must match.",
    tag: "restaurants",
    method: "GET",
    path: "/restaurants",
    params: [
      inQuery("q", text, { to: "filter.text", description: "case-insensitive part of the title" }),
      inQuery("search", text, {
        to: "filter.search",
        description:
          'words in the title, description, cuisines, categories and dishes, best match first, e.g. "creme brulee" (accents and case ignored, the last word may be unfinished, one typo in a word of 5 letters or more)',
      }),
      inQuery("category", text, { to: "filter.category", description: "one category, e.g. vegan-friendly" }),
      inQuery("cuisine", text, { to: "filter.cuisine", description: "one cuisine, e.g. italian" }),
      inQuery("cuisines_any", textList, {
        to: "filter.cuisines.anyOf",
        description: "cuisines, any of them (repeat the key: cuisines_any=italian&cuisines_any=greek)",
      }),
      inQuery("cuisines_all", textList, {
        to: "filter.cuisines.allOf",
        description: "cuisines, all of them (repeat the key)",
      }),
      inQuery("categories_any", textList, {
        to: "filter.categories.anyOf",
        description: "categories, any of them (repeat the key)",
      }),
      inQuery("categories_all", textList, {
        to: "filter.categories.allOf",
        description: "categories, all of them (repeat the key)",
      }),
      inQuery("city", text, { to: "filter.city", description: "a city, e.g. Lisbon" }),
      inQuery("can_home_delever", boolean, {
        aliases: ["can_home_deliver"],
        to: "filter.canHomeDeliver",
        description: "true: only those that deliver (spelt so)",
      }),
      inQuery("accepts_reservations", boolean, {
        to: "filter.acceptsReservations",
        description: "true: only those that take reservations",
      }),
      inQuery("min_rating", decimal, {
        to: "filter.minRating",
        description:
          "users' mean rating at least this, 0 to 5 (0 keeps every rated restaurant); unrated ones are left out",
      }),
      inQuery("price_range", textList, {
        to: "filter.priceRange",
        description: "price range labels, any of them (repeat the key: price_range=$&price_range=$$)",
      }),
      inQuery("latitude", decimal, {
        aliases: ["lat"],
        to: "filter.near.latitude",
        description: "with longitude: only restaurants within radius_km of this point",
      }),
      inQuery("longitude", decimal, {
        aliases: ["lng", "lon"],
        to: "filter.near.longitude",
        description: "with latitude",
      }),
      inQuery("radius_km", decimal, {
        to: "filter.near.radiusKm",
        description: "more than 0, at most 50; default 5 (with latitude and longitude)",
      }),
      inQuery("open_now", boolean, {
        to: "filter.openNow",
        description: "true: open now, in each restaurant's own time zone",
      }),
      inQuery("open_at", text, {
        to: "filter.openAt",
        description: "open at this ISO-8601 instant, e.g. 2026-11-27T20:30:00Z, in each restaurant's own time zone",
      }),
      inQuery(
        "sort",
        choice({ relevance: "RELEVANCE", distance: "DISTANCE", rating: "RATING", title: "TITLE", newest: "NEWEST" }),
        {
          to: "sort",
          description: "default relevance with search, distance with latitude and longitude, else newest",
        },
      ),
      ...paging,
    ],
    variables: nearVariables,
    document: `query SearchRestaurants($filter: RestaurantFilter, $sort: RestaurantSort, $first: Int, $offset: Int) {
      restaurants(filter: $filter, sort: $sort, first: $first, offset: $offset) { nodes { ...LegacyRestaurantSearchItem } }
    } ${RESTAURANT_SEARCH_ITEM}`,
    status: 200,
    response: s.arrayOf(restaurantSearchItemSchema),
    body: (data) => data.restaurants.nodes.map(legacyRestaurantSearchItem),
  },
  {
    operation: "Order Recipe",
    summary: "Places a recipe on the caller's order list.",
    tag: "restaurants",
    method: "PUT",
    path: "/restaurants/order",
    params: [
      inBody("restaurant_id", text, { required: true, to: "input.restaurantId", description: "the restaurant's _id" }),
      inBody("recipe", text, {
        required: true,
        aliases: ["item_id"],
        to: "input.recipe",
        description: "the dish's name",
      }),
      inBody("quantity", integer, { to: "input.quantity", default: 1, description: "1 to 1000" }),
    ],
    document: `mutation OrderRecipe($input: OrderRecipeInput!) { orderRecipe(input: $input) { ...LegacyOrder } } ${ORDER_FIELDS}`,
    status: 201,
    response: orderSchema,
    body: (data) => legacyOrder(data.orderRecipe),
  },
  {
    operation: "Get Restaurant",
    summary: "A restaurant's detail.",
    tag: "restaurants",
    method: "GET",
    path: "/restaurants/:restaurant_id",
    params: [restaurantId],
    document: `query GetRestaurant($id: ID!) { restaurant(id: $id) { ...LegacyRestaurantDetail } } ${RESTAURANT_DETAIL}`,
    status: 200,
    response: restaurantDetailSchema,
    body: (data, values) => legacyRestaurantDetail(found(data.restaurant, "Restaurant", values.restaurant_id)),
  },
  {
    operation: "Report Restaurant",
    summary: "Reports a restaurant; a repeat by the same user changes nothing.",
    tag: "restaurants",
    method: "PUT",
    path: "/restaurants/:restaurant_id",
    when: (req) => req.has("reason_type") || req.has("reason_body"),
    whenText: "when the request carries reason_type or reason_body",
    params: [restaurantId, ...reportParams],
    variables: reportVariables,
    document: `mutation ReportRestaurant($id: ID!, $input: ReportInput!) { reportRestaurant(id: $id, input: $input) { ...LegacyReport } } ${REPORT_FIELDS}`,
    status: 201,
    response: reportSchema,
    body: (data) => legacyReport(data.reportRestaurant),
  },
  {
    operation: "Edit Restaurant",
    summary: "Changes a restaurant (owner or admin): only the fields given change; a list given replaces the list.",
    tag: "restaurants",
    method: "PUT",
    path: "/restaurants/:restaurant_id",
    whenText: "otherwise",
    params: [restaurantId, ...restaurantFields({ titleRequired: false })],
    // The original documentation once sent comments here as {comment, rating}.
    emptyEditHint:
      "To comment on and rate the restaurant, send title, body and rating to PUT /restaurants/:restaurant_id/comments.",
    variables: (values) => ({ input: {}, ...contactVariables(values) }),
    document: `mutation EditRestaurant($id: ID!, $input: UpdateRestaurantInput!) { updateRestaurant(id: $id, input: $input) { ...LegacyRestaurantEdited } } ${RESTAURANT_EDITED}`,
    status: 200,
    response: restaurantEditedSchema,
    body: (data) => legacyRestaurantEdited(data.updateRestaurant),
  },
  {
    operation: "Remove Restaurant",
    summary: "Removes a restaurant with its comments, orders and badges (owner or admin).",
    tag: "restaurants",
    method: "DELETE",
    path: "/restaurants/:restaurant_id",
    params: [restaurantId],
    document: `mutation RemoveRestaurant($id: ID!) { deleteRestaurant(id: $id) }`,
    status: 204,
  },
  {
    operation: "Comment Restaurant",
    summary: "Comments on and rates a restaurant.",
    tag: "restaurants",
    method: "PUT",
    path: "/restaurants/:restaurant_id/comments",
    params: [
      inPath("restaurant_id", { to: "restaurantId", description: "the restaurant's _id" }),
      inBody("title", text, { required: true, to: "input.title", description: "a brief summary" }),
      inBody("body", text, { required: true, to: "input.body", description: "the comment's text" }),
      inBody("rating", integer, { required: true, to: "input.rating", description: "1 to 5" }),
    ],
    document: `mutation CommentRestaurant($restaurantId: ID!, $input: CommentInput!) { addComment(restaurantId: $restaurantId, input: $input) { ...LegacyComment } } ${COMMENT_FIELDS}`,
    status: 201,
    response: commentSchema,
    body: (data) => legacyComment(data.addComment),
  },
  {
    operation: "Get Comments",
    summary: "A restaurant's comments, newest first.",
    tag: "restaurants",
    method: "GET",
    path: "/restaurants/:restaurant_id/comments",
    params: [
      restaurantId,
      inQuery("limit", integer, { to: "first", default: 20, description: "1 to 100" }),
      inQuery("offset", integer, { to: "offset", description: "comments to skip (paging)" }),
    ],
    document: `query GetComments($id: ID!, $first: Int, $offset: Int) {
      restaurant(id: $id) { id title description comments(first: $first, offset: $offset) { nodes { ...LegacyComment } } }
    } ${COMMENT_FIELDS}`,
    status: 200,
    response: commentsSchema,
    body: (data, values) => legacyComments(found(data.restaurant, "Restaurant", values.restaurant_id)),
  },
];
