// Legacy restaurant shapes (spec "Restaurant, detail", "item of the search result", Edit's
// answer), each with the GraphQL fragment it is made from and its JSON Schema.
// Absent optional values are null; lists are always arrays.
// Each function reads the type codegen made from its fragment (src/graphql/__generated__).
import type {
  LegacyRestaurantDetailFragment,
  LegacyRestaurantEditedFragment,
  LegacyRestaurantSearchItemFragment,
} from "../../graphql/__generated__/operations.ts";
import * as s from "../openapi/json-schema.ts";
import { legacyAddress, addressSchema, ADDRESS_FIELDS } from "./address.ts";

/** The owner as the detail and edit fragments select it (PERSON). */
type GraphqlPerson = LegacyRestaurantEditedFragment["owner"];

const PERSON = `id username firstName avatar rating`;

const EDITED_FIELDS = `id title logo url types categories cuisines acceptsReservations starRating
  openingHours { open close } paymentMethods canHomeDeliver priceRange photos
  address { ${ADDRESS_FIELDS} } contact { email phone } owner { ${PERSON} }`;

/** Fields of the detail (GET /restaurants/:restaurant_id, Add restaurant's answer). */
export const RESTAURANT_DETAIL = `fragment LegacyRestaurantDetail on Restaurant {
  ${EDITED_FIELDS}
  badges { badge { id name cover } receivedAt }
  latestComment { body rating author { ${PERSON} } }
}`;

/** Fields of Edit restaurant's answer: the detail without badges and comments. */
export const RESTAURANT_EDITED = `fragment LegacyRestaurantEdited on Restaurant { ${EDITED_FIELDS} }`;

/** Fields of an item of GET /restaurants. */
export const RESTAURANT_SEARCH_ITEM = `fragment LegacyRestaurantSearchItem on Restaurant {
  id title url cover openingHours { open close } canHomeDeliver
  address { ${ADDRESS_FIELDS} } contact { email phone } website rating
}`;

const personSchema = s.answer({
  user_id: s.string(),
  user_avatar: s.nullable(s.string()),
  user_username: s.string(),
  user_first_name: s.string(),
  user_rating: s.nullable(s.number({ description: "mean comment rating of the restaurants this user owns" })),
});

const legacyPerson = (u: GraphqlPerson) => ({
  user_id: u.id,
  user_avatar: u.avatar,
  user_username: u.username,
  user_first_name: u.firstName,
  user_rating: u.rating,
});

const editedProperties = {
  _id: s.string(),
  title: s.string(),
  logo: s.nullable(s.string()),
  url: s.nullable(s.string()),
  type: s.arrayOf(s.string()),
  categories: s.arrayOf(s.string()),
  accepts_reservations: s.string({ enum: ["true", "false"] }),
  serves_cuisine: s.arrayOf(s.string()),
  star_rating: s.nullable(s.string({ description: 'the number as a string, e.g. "4.5"' })),
  opening_hours: s.arrayOf(s.string({ pattern: "^\\d{2}:\\d{2}-\\d{2}:\\d{2}$", description: "HH:MM-HH:MM" })),
  payment_methods: s.arrayOf(s.string()),
  can_home_delever: s.boolean(),
  price_range: s.arrayOf(s.string()),
  photos: s.arrayOf(s.string()),
  address: addressSchema,
  contact: s.answer({ email: s.nullable(s.string()), phone: s.nullable(s.string()) }),
  owner: personSchema,
};

export const restaurantEditedSchema = s.answer(editedProperties);

export const restaurantDetailSchema = s.answer({
  ...editedProperties,
  badges: s.arrayOf(
    s.answer({
      badge_id: s.string(),
      badge_name: s.string(),
      badge_cover: s.nullable(s.string()),
      recieved: s.string({ format: "date-time" }),
    }),
  ),
  comments: s.nullable(
    s.answer(
      {
        user_id: s.string(),
        user_avatar: s.nullable(s.string()),
        user_username: s.string(),
        user_first_name: s.string(),
        user_rating: s.nullable(s.number()),
        comment: s.string(),
        rating: s.integer({ minimum: 1, maximum: 5 }),
      },
      { description: "the latest comment; null when there is none" },
    ),
  ),
});

export const restaurantSearchItemSchema = s.answer({
  _id: s.string(),
  title: s.string(),
  url: s.nullable(s.string()),
  cover: s.nullable(s.string()),
  opening_hours: s.arrayOf(
    s.answer({ open: s.string({ description: "HH:MM" }), close: s.string({ description: "HH:MM" }) }),
  ),
  can_home_delever: s.boolean(),
  address: addressSchema,
  email: s.nullable(s.string()),
  phone: s.nullable(s.string()),
  website: s.nullable(s.string()),
  rating: s.nullable(s.number({ description: "mean of the comments' ratings; null when there is none" })),
});

export function legacyRestaurantEdited(r: LegacyRestaurantEditedFragment) {
  return {
    _id: r.id,
    title: r.title,
    logo: r.logo,
    url: r.url,
    type: r.types,
    categories: r.categories,
    accepts_reservations: String(r.acceptsReservations),
    serves_cuisine: r.cuisines,
    star_rating: r.starRating === null ? null : String(r.starRating),
    opening_hours: r.openingHours.map((h) => `${h.open}-${h.close}`),
    payment_methods: r.paymentMethods,
    can_home_delever: r.canHomeDeliver,
    price_range: r.priceRange,
    photos: r.photos,
    address: legacyAddress(r.address),
    contact: { email: r.contact.email, phone: r.contact.phone },
    owner: legacyPerson(r.owner),
  };
}

export function legacyRestaurantDetail(r: LegacyRestaurantDetailFragment) {
  const latest = r.latestComment;
  return {
    ...legacyRestaurantEdited(r),
    badges: r.badges.map((b) => ({
      badge_id: b.badge.id,
      badge_name: b.badge.name,
      badge_cover: b.badge.cover,
      recieved: b.receivedAt,
    })),
    comments: latest ? { ...legacyPerson(latest.author), comment: latest.body, rating: latest.rating } : null,
  };
}

export function legacyRestaurantSearchItem(r: LegacyRestaurantSearchItemFragment) {
  return {
    _id: r.id,
    title: r.title,
    url: r.url,
    cover: r.cover,
    opening_hours: r.openingHours.map((h) => ({ open: h.open, close: h.close })),
    can_home_delever: r.canHomeDeliver,
    address: legacyAddress(r.address),
    email: r.contact.email,
    phone: r.contact.phone,
    website: r.website,
    rating: r.rating,
  };
}
