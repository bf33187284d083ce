// Every search's pages, in every order, hold exactly what its total counts (issue 48): random
// combinations of filters on the demo data (npm run seed), each read page by page in every sort.
// What one search matches must not depend on its order or its page size; where a filter is simple
// enough to recompute here (lists, city, rating, flags, a circle), the matches are compared with
// that brute-force answer too. A sort that dropped a condition (DISTANCE once ignored the words)
// fails the first check.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.ts";
import { seededServer } from "../relay/seeded-server.ts";

type Row = {
  id: string;
  title: string;
  cuisines: string[];
  categories: string[];
  priceRange: string[];
  rating: number | null;
  acceptsReservations: boolean;
  canHomeDeliver: boolean;
  address: { city: string | null; geo: { latitude: number; longitude: number } | null } | null;
};
type Filter = Record<string, unknown>;

const FIELDS = `id title cuisines categories priceRange rating acceptsReservations canHomeDeliver
  address { city geo { latitude longitude } }`;
const PAGE = `query($filter: RestaurantFilter, $sort: RestaurantSort, $first: Int, $after: String) {
  restaurants(filter: $filter, sort: $sort, first: $first, after: $after) {
    totalCount totalCountIsEstimate nodes { id } pageInfo { hasNextPage endCursor }
  }
}`;
const SORTS = ["RELEVANCE", "RATING", "TITLE", "NEWEST"];
const COMBINATIONS = 40;

let s: TestServer;
let token: string;
let all: Row[];

/** A small deterministic generator (mulberry32): the same combinations every run. */
function randomFrom(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(list: T[]): T => list[Math.floor(next() * list.length)];
  return { next, pick };
}

const lower = (values: string[]) => values.map((v) => v.toLowerCase());
const distinct = (values: string[]) => [...new Set(values)];

/** Great-circle distance in km (the mean Earth radius). */
function km(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }) {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.latitude - a.latitude) * rad) / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(((b.longitude - a.longitude) * rad) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.sqrt(h));
}

/** The ids a filter without words matches, recomputed here; undefined where a row sits on the circle's edge. */
function bruteForce(filter: Filter): Set<string> | undefined {
  const found = new Set<string>();
  for (const r of all) {
    const f = filter as {
      cuisine?: string;
      category?: string;
      city?: string;
      minRating?: number;
      priceRange?: string[];
      acceptsReservations?: boolean;
      canHomeDeliver?: boolean;
      cuisines?: { anyOf: string[] };
      near?: { latitude: number; longitude: number; radiusKm: number };
    };
    if (f.cuisine && !lower(r.cuisines).includes(f.cuisine.toLowerCase())) continue;
    if (f.category && !lower(r.categories).includes(f.category.toLowerCase())) continue;
    if (f.cuisines && !f.cuisines.anyOf.some((c) => lower(r.cuisines).includes(c.toLowerCase()))) continue;
    if (f.city && r.address?.city?.toLowerCase() !== f.city.toLowerCase()) continue;
    if (f.minRating != null && (r.rating == null || r.rating < f.minRating)) continue;
    if (f.priceRange && !f.priceRange.some((p) => lower(r.priceRange).includes(p.toLowerCase()))) continue;
    if (f.acceptsReservations != null && r.acceptsReservations !== f.acceptsReservations) continue;
    if (f.canHomeDeliver != null && r.canHomeDeliver !== f.canHomeDeliver) continue;
    if (f.near) {
      if (!r.address?.geo) continue;
      const d = km(f.near, r.address.geo);
      if (Math.abs(d - f.near.radiusKm) < 0.01) return undefined;
      if (d > f.near.radiusKm) continue;
    }
    found.add(r.id);
  }
  return found;
}

/** A combination of one to three filters, from the values the demo data holds. */
function combination(random: ReturnType<typeof randomFrom>): Filter {
  const cities = distinct(all.flatMap((r) => (r.address?.city ? [r.address.city] : [])));
  const cuisines = distinct(all.flatMap((r) => r.cuisines));
  const categories = distinct(all.flatMap((r) => r.categories));
  const prices = distinct(all.flatMap((r) => r.priceRange));
  const words = distinct(
    all.flatMap((r) => [...r.title.split(/\s+/), ...r.cuisines]).filter((w) => /^\p{L}{4,}$/u.test(w)),
  );
  const placed = all.filter((r) => r.address?.geo);
  const makers: (() => Filter)[] = [
    () => ({ search: random.pick(words).toLowerCase() }),
    () => ({ city: random.pick(cities) }),
    () => ({ cuisine: random.pick(cuisines) }),
    () => ({ category: random.pick(categories) }),
    () => ({ cuisines: { anyOf: [random.pick(cuisines), random.pick(cuisines)] } }),
    () => ({ minRating: 1 + Math.floor(random.next() * 8) / 2 }),
    () => ({ priceRange: [random.pick(prices)] }),
    () => ({ acceptsReservations: random.next() < 0.5 }),
    () => ({ canHomeDeliver: random.next() < 0.5 }),
    () => {
      const at = random.pick(placed).address!.geo!;
      return {
        near: { latitude: at.latitude + 0.01, longitude: at.longitude, radiusKm: 1 + Math.floor(random.next() * 30) },
      };
    },
  ];
  const filter: Filter = {};
  const count = 1 + Math.floor(random.next() * 3);
  for (let i = 0; i < count; i++) Object.assign(filter, random.pick(makers)());
  return filter;
}

/** Every id of the search, read `first` at a time; the total as the first page reported it. */
async function readAll(filter: Filter, sort: string, first: number) {
  const ids: string[] = [];
  let after: string | undefined;
  let total: number | undefined;
  for (let pages = 0; pages < 60; pages++) {
    const r = await s.graphql(PAGE, { filter, sort, first, after }, token);
    expect(r.errors, `${JSON.stringify(filter)} ${sort}: ${JSON.stringify(r.errors)}`).toBeUndefined();
    const page = r.data.restaurants;
    expect(page.totalCountIsEstimate).toBe(false);
    total ??= page.totalCount;
    ids.push(...page.nodes.map((n: { id: string }) => n.id));
    if (!page.pageInfo.hasNextPage) return { ids, total: total! };
    after = page.pageInfo.endCursor;
  }
  throw new Error(`${JSON.stringify(filter)} ${sort}: more than 60 pages`);
}

beforeAll(async () => {
  ({ s, token } = await seededServer());
  const r = await s.graphql(`{ restaurants(first: 100) { totalCount nodes { ${FIELDS} } } }`, {}, token);
  expect(r.errors).toBeUndefined();
  all = r.data.restaurants.nodes;
  expect(all.length).toBe(r.data.restaurants.totalCount);
  expect(all.length).toBeGreaterThanOrEqual(20);
}, 120_000);
afterAll(async () => s?.close());

describe("random searches on the demo data, page by page in every order", () => {
  it(`match the same restaurants in every order and page size, as many as the total (${COMBINATIONS} combinations)`, async () => {
    const random = randomFrom(48);
    let nonEmpty = 0;
    let checkedByHand = 0;
    for (let i = 0; i < COMBINATIONS; i++) {
      const filter = combination(random);
      const whole = await readAll(filter, "NEWEST", 100);
      const matches = new Set(whole.ids);
      expect(whole.ids.length, JSON.stringify(filter)).toBe(whole.total);
      expect(matches.size, `${JSON.stringify(filter)}: an id twice`).toBe(whole.ids.length);
      if (matches.size > 0) nonEmpty++;
      const sorts = filter.near ? [...SORTS, "DISTANCE"] : SORTS;
      for (const sort of sorts) {
        const paged = await readAll(filter, sort, 3);
        const label = `${JSON.stringify(filter)} sorted by ${sort}, 3 a page`;
        expect(paged.total, label).toBe(whole.total);
        expect(new Set(paged.ids).size, `${label}: an id twice`).toBe(paged.ids.length);
        expect(new Set(paged.ids), label).toEqual(matches);
      }
      if (!filter.search && !filter.text) {
        const expected = bruteForce(filter);
        if (expected) {
          expect(matches, `${JSON.stringify(filter)}: what the filters select`).toEqual(expected);
          checkedByHand++;
        }
      }
    }
    // The combinations are not all empty, nor all without a recomputed answer.
    expect(nonEmpty).toBeGreaterThanOrEqual(COMBINATIONS / 4);
    expect(checkedByHand).toBeGreaterThanOrEqual(COMBINATIONS / 4);
  }, 600_000);
});
