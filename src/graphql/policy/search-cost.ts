// What a search field costs beyond the one unit of any field (cost.ts adds it): the statements
// and index reads its arguments cause. A word search, a near search or an opening-time test reads
// an index and tests rows the way a page of fields never does, so each is priced as tens of
// fields; facets group every match (up to 2,000, or a sample) and cost as much as a large page.
// docs/search.md ("Cost") shows this table.
type Args = Record<string, any>;

/** Per field coordinate ("Type.field"): its extra cost for the arguments given. */
const PRICES: Record<string, (args: () => Args) => number> = {
  "Query.restaurants": (args) => restaurantFilterPrice(args().filter) + fromEndPrice(args()),
  "Query.groceries": (args) => groceryFilterPrice(args().filter) + fromEndPrice(args()),
  "RestaurantConnection.totalCount": () => SEARCH_PRICES.totalCount,
  "GroceryConnection.totalCount": () => SEARCH_PRICES.totalCount,
  "RestaurantConnection.totalCountIsEstimate": () => SEARCH_PRICES.totalCount,
  "GroceryConnection.totalCountIsEstimate": () => SEARCH_PRICES.totalCount,
  "RestaurantConnection.facets": () => SEARCH_PRICES.facets,
  "GroceryConnection.facets": () => SEARCH_PRICES.facets,
};

/** The units each part of a search adds (docs/search.md, "Cost"). */
export const SEARCH_PRICES = {
  /** Words: an FTS lookup, and a vocabulary probe per long word. */
  search: 50,
  perExtraWord: 10,
  /** A title substring: a trigram lookup (or, under 3 characters, a scan that stops at the page). */
  text: 30,
  /** A near search: the box read from the index grows with the radius squared. */
  near: 30,
  perSquareKm: 1 / 25,
  /** Opening hours tested in each candidate's time zone. */
  openAt: 30,
  /** A list condition (cuisine, category, price range), each. */
  list: 10,
  /** The other column tests (city, rating, delivery, reservations), each. */
  column: 2,
  /** A total, counted up to 10,000 or estimated from a sample (also asked by `last` without `before`). */
  totalCount: 20,
  /** Facets: the matches' list values grouped and counted. */
  facets: 200,
};

/** `last` without `before` counts the page from the end: the search's total is counted first. */
const fromEndPrice = (args: Args) => (args.last != null && args.before == null ? SEARCH_PRICES.totalCount : 0);

const words = (text: unknown) => (typeof text === "string" ? text.split(/\s+/).filter(Boolean).length : 0);
const values = (match: { anyOf?: unknown[]; allOf?: unknown[] } | null | undefined) =>
  (match?.anyOf?.length ? 1 : 0) + (match?.allOf?.length ?? 0);

function textPrice(filter: Args, wordsField: string, substringField: string): number {
  const n = words(filter[wordsField]);
  return (
    (n > 0 ? SEARCH_PRICES.search + SEARCH_PRICES.perExtraWord * Math.min(n - 1, 7) : 0) +
    (filter[substringField] ? SEARCH_PRICES.text : 0)
  );
}

function restaurantFilterPrice(filter: Args | null | undefined): number {
  if (!filter) return 0;
  const radius = typeof filter.near?.radiusKm === "number" ? filter.near.radiusKm : 5;
  const lists =
    (filter.category ? 1 : 0) +
    (filter.cuisine ? 1 : 0) +
    values(filter.cuisines) +
    values(filter.categories) +
    (filter.priceRange?.length ? 1 : 0);
  const columns = ["city", "canHomeDeliver", "acceptsReservations", "minRating"].filter(
    (k) => filter[k] != null,
  ).length;
  return (
    textPrice(filter, "search", "text") +
    (filter.near ? SEARCH_PRICES.near + Math.ceil(radius * radius * SEARCH_PRICES.perSquareKm) : 0) +
    (filter.openAt || filter.openNow ? SEARCH_PRICES.openAt : 0) +
    lists * SEARCH_PRICES.list +
    columns * SEARCH_PRICES.column
  );
}

function groceryFilterPrice(filter: Args | null | undefined): number {
  if (!filter) return 0;
  return (
    textPrice(filter, "search", "title") + ((filter.category ? 1 : 0) + values(filter.categories)) * SEARCH_PRICES.list
  );
}

/** PRICES by type, then field: the cost walk asks for every field of every request, and a lookup
 * by type and field builds no "Type.field" string each time. */
const PRICES_BY_TYPE = new Map<string, Map<string, (args: () => Args) => number>>();
for (const [coordinate, price] of Object.entries(PRICES)) {
  const [type, field] = coordinate.split(".") as [string, string];
  (PRICES_BY_TYPE.get(type) ?? PRICES_BY_TYPE.set(type, new Map()).get(type)!).set(field, price);
}

/** The extra cost of field `field` of `type`; `args` coerces its arguments (only called for priced fields). */
export function searchWork(type: string, field: string, args: () => Args): number {
  const price = PRICES_BY_TYPE.get(type)?.get(field);
  if (!price) return 0;
  try {
    return price(args);
  } catch {
    return 0; // arguments that do not coerce: the operation fails before any resolver runs
  }
}
