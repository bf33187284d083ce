// The examples a newcomer meets first, kept in one place: the account that the README, the start
// banner, the start page (/) and the GraphQL IDE register and sign in with, the demo restaurant
// and grocery they read, and the searches they show, each with what it finds in the demo data
// (`npm run seed`, src/seed/). The /docs page takes its request examples from here too.
// test/operability/examples.test.ts runs them, and every example of README.md and docs/, against a
// freshly seeded demo database, and checks that README.md shows these very ones.
//
// The examples follow the demo data, not the other way round: the data set is drawn from fixed
// random streams that the benchmarks and other tests rely on, and an example is cheaper to change.

/** The account every first-steps example registers, then signs in with. */
export const EXAMPLE_ACCOUNT = { username: "ann", password: "password-1", firstName: "Ann" } as const;

/** A restaurant of the demo data (Lisbon). */
export const EXAMPLE_RESTAURANT = { id: "seed-r-00033", title: "Leila's Pizzeria" } as const;

/** A grocery of the demo data. */
export const EXAMPLE_GROCERY = { id: "seed-g-00011", title: "Olive oil, 1 l" } as const;

/** Registers the example account: 201 with an access_token. */
export const registerCommand = (address: string) =>
  `curl -s ${address}/users -H 'content-type: application/json' -d '${JSON.stringify({
    username: EXAMPLE_ACCOUNT.username,
    password: EXAMPLE_ACCOUNT.password,
    first_name: EXAMPLE_ACCOUNT.firstName,
  })}'`;

/** Signs the example account in: 200 with a new access_token. */
export const tokenCommand = (address: string) =>
  `curl -s ${address}/auth/token -d 'username=${EXAMPLE_ACCOUNT.username}&password=${EXAMPLE_ACCOUNT.password}'`;

/** Reads the access_token out of a JSON answer with the Node that runs the project (no jq needed). */
export const TOKEN_FROM_ANSWER = `node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token'`;

/** Signs in and keeps the token in $TOKEN, for the commands that follow. */
export const keepTokenCommand = (address: string) => `TOKEN=$(${tokenCommand(address)} | ${TOKEN_FROM_ANSWER})`;

export type SearchExample = {
  /** What it shows, as the comment above it. */
  what: string;
  /** The GraphQL document (README "Finding restaurants"). */
  graphql: string;
  /** The same search on the legacy REST interface: its path and query string (none for facets). */
  rest?: string;
  /** The titles it finds in the demo data (in any order: relevance ranks differ a little between the databases). */
  finds: string[];
  /** Depends on the clock ("open now"): the demo data is open somewhere at every hour (the test checks a year of it). */
  clock?: true;
};

/** The searches README.md shows, in GraphQL and in REST. */
export const SEARCH_EXAMPLES: SearchExample[] = [
  {
    what: "Words, best match first: the last word may be unfinished, one typo in a word of 5+ letters, accents ignored",
    graphql: `{ restaurants(filter: { search: "pastel de nat" }) { nodes { title cuisines } } }`,
    rest: "/restaurants?search=pastel%20de%20nat",
    finds: ["Casa Fig", "Nomad & Pepper", "The Lotus Noodle Bar"],
  },
  {
    what: "Near a point, nearest first, open at an instant in each restaurant's own time zone",
    graphql: `{ restaurants(filter: { near: { latitude: 38.72, longitude: -9.14, radiusKm: 5 }, openAt: "2026-11-27T20:30:00Z" }) {
    totalCount nodes { title distanceKm rating openingHours { open close } } } }`,
    rest: "/restaurants?latitude=38.72&longitude=-9.14&radius_km=5&open_at=2026-11-27T20:30:00Z",
    finds: ["Casa Fig", "The Harbour Taverna", "The Lotus Noodle Bar"],
  },
  {
    what: "Open now somewhere in the world, rated 4 or more, best first",
    graphql: `{ restaurants(filter: { openNow: true, minRating: 4 }, sort: RATING) { totalCount nodes { title rating address { city } } } }`,
    rest: "/restaurants?open_now=true&min_rating=4&sort=rating",
    finds: [],
    clock: true,
  },
  {
    what: "Several cuisines (any of), categories (all of), price ranges, reservations, open at an instant",
    graphql: `{ restaurants(filter: { cuisines: { anyOf: ["italian", "indian"] }, categories: { allOf: ["vegan-friendly"] },
    priceRange: ["$", "$$"], acceptsReservations: true, openAt: "2026-11-27T12:30:00Z" }, sort: RATING) {
    nodes { title rating } } }`,
    rest: "/restaurants?cuisines_any=italian&cuisines_any=indian&categories_all=vegan-friendly&price_range=%24&price_range=%24%24&accepts_reservations=true&open_at=2026-11-27T12:30:00Z&sort=rating",
    finds: ["Tandoor Garden", "Masala Fig", "Fig & Lantern"],
  },
  {
    what: 'Facets: counts per cuisine, category, price range and city of what matches ("indian (5)")',
    graphql: `{ restaurants(filter: { search: "masala" }, first: 10) {
    totalCount totalCountIsEstimate
    facets { exact cuisines { value count } categories { value count } priceRanges { value count } cities { value count } }
    nodes { title } } }`,
    finds: ["Masala Fig", "The Copper Masala", "The Ember Dhaba", "The Copper Dhaba", "Tandoor Garden"],
  },
  {
    what: "A part of the title, as the legacy q parameter reads it",
    graphql: `{ restaurants(filter: { text: "pizz" }) { nodes { title } } }`,
    rest: "/restaurants?q=pizz",
    finds: ["Leila's Pizzeria"],
  },
  {
    what: "Groceries: words with relevance, categories (any of)",
    graphql: `{ groceries(filter: { search: "oil", categories: { anyOf: ["pantry"] } }) { nodes { title } } }`,
    rest: "/groceries?search=oil&categories_any=pantry",
    finds: ["Olive oil, 1 l", "Sunflower oil, 1 l"],
  },
];

/** The GraphQL IDE's search (its default document), and what it finds in the demo data. */
export const IDE_SEARCH = {
  document: `query SearchRestaurants {
  # Words, best match first; "pizz" is unfinished, so it finds pizza and Pizzeria
  restaurants(filter: { search: "pizz" }, sort: RATING, first: 10) {
    totalCount
    nodes { id title rating cuisines address { city } }
    pageInfo { hasNextPage endCursor }
  }
}`,
  finds: ["Leila's Pizzeria", "Fig & Lantern"],
};

/** One request of a REST operation: its path segments, query string and body. */
export type RestExample = {
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean | string[]>;
  body?: Record<string, unknown>;
};

/** The account that owns some demo data (src/seed/dataset.ts): its edits and removals succeed. */
export const DEMO_OWNER = { username: "demo", owns: ["seed-r-00001", "seed-r-00002", "seed-g-00001"] } as const;

/**
 * A request per REST operation (by its legacy name), from the demo data: /docs shows each, and
 * "Try it out" sends it. The edits and removals name what the demo user owns (DEMO_OWNER).
 */
export const REST_EXAMPLES: Record<string, RestExample> = {
  Register: {
    body: {
      username: EXAMPLE_ACCOUNT.username,
      password: EXAMPLE_ACCOUNT.password,
      first_name: EXAMPLE_ACCOUNT.firstName,
    },
  },
  "Sign in": { body: { username: EXAMPLE_ACCOUNT.username, password: EXAMPLE_ACCOUNT.password } },
  "Sign out": {},
  "Sign in (alias)": { body: { username: EXAMPLE_ACCOUNT.username, password: EXAMPLE_ACCOUNT.password } },
  "Sign out (alias)": {},
  "Add restaurant": {
    body: {
      title: "Tasca do Bairro",
      description: "Grilled fish and petiscos on a quiet square.",
      type: ["restaurant"],
      serves_cuisine: ["portuguese", "seafood"],
      categories: ["family", "outdoor seating"],
      price_range: ["$$"],
      accepts_reservations: true,
      can_home_delever: false,
      payment_methods: ["cash", "card", "MB Way"],
      opening_hours: [
        { open: "12:00", close: "15:00" },
        { open: "19:00", close: "23:30" },
      ],
      email: "ola@tasca-do-bairro.example",
      phone: "+351 21 555 0101",
      website: "https://tasca-do-bairro.example",
      url: "tasca-do-bairro-lisbon",
      address: {
        addressLine1: "Rua dos Remédios 12",
        city: "Lisbon",
        district: "Alfama",
        country: "Portugal",
        geo: { latitude: 38.7115, longitude: -9.129 },
      },
    },
  },
  "Search restaurants": { query: { search: "pastel de nat", city: "Lisbon", limit: 10 } },
  "Order Recipe": { body: { restaurant_id: EXAMPLE_RESTAURANT.id, recipe: "Lasagne", quantity: 2 } },
  "Get Restaurant": { path: { restaurant_id: EXAMPLE_RESTAURANT.id } },
  "Report Restaurant": {
    path: { restaurant_id: DEMO_OWNER.owns[0] },
    body: { reason_type: "wrong information", reason_body: "It opens at 11:00 now." },
  },
  "Edit Restaurant": {
    path: { restaurant_id: DEMO_OWNER.owns[0] },
    body: { phone: "+351 21 555 0199", opening_hours: [{ open: "11:00", close: "21:00" }] },
  },
  "Remove Restaurant": { path: { restaurant_id: DEMO_OWNER.owns[1] } },
  "Comment Restaurant": {
    path: { restaurant_id: EXAMPLE_RESTAURANT.id },
    body: { title: "Best lasagne in town", body: "Generous portions and friendly staff.", rating: 5 },
  },
  "Get Comments": { path: { restaurant_id: EXAMPLE_RESTAURANT.id }, query: { limit: 5 } },
  "Add grocery": {
    body: {
      title: "Smoked paprika, 75 g",
      description: "Sweet smoked paprika.",
      also_known_as: "Pimentón de la Vera",
      metric_units: ["g"],
      categories: ["spices", "pantry"],
    },
  },
  "Search groceries": { query: { search: "oil", limit: 10 } },
  "Edit grocery": { body: { _id: DEMO_OWNER.owns[2], description: "Long-grain rice from the Himalayan foothills." } },
  "Get grocery": { path: { grocery_id: EXAMPLE_GROCERY.id } },
  "Report grocery": {
    path: { grocery_id: EXAMPLE_GROCERY.id },
    body: { reason_type: "wrong information", reason_body: "The bottle holds 750 ml." },
  },
  "Add grocery to shopping list": { path: { grocery_id: EXAMPLE_GROCERY.id }, body: { quantity: 2 } },
  "Remove grocery from shopping list": {
    path: { grocery_id: DEMO_OWNER.owns[2] },
    query: { from: "shopping_list" },
  },
  "Remove grocery": { path: { grocery_id: DEMO_OWNER.owns[2] }, query: { from: "catalogue" } },
};
