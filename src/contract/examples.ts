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

/** The searches README.md shows, on both faces. */
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
