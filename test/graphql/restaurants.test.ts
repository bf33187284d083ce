// Restaurants through the real server: create, read, update, delete (who may do what, what bad
// input does), search (filters, sorts, pages) and the owner's rating.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let owner: { token: string; id: string };
let other: { token: string; id: string };
let admin: { token: string; id: string };

beforeAll(async () => {
  s = await startServer();
  owner = await s.signUp("owner");
  other = await s.signUp("other");
  admin = await s.signUp("adm", "ADMIN");
});
afterAll(async () => s?.close());

const FIELDS = `id title description logo cover url types categories cuisines acceptsReservations starRating
  openingHours { open close overnight } paymentMethods canHomeDeliver priceRange photos contact { email phone } website
  address { addressLine1 addressLine2 landmark state city district country geo { latitude longitude } }
  owner { id } rating commentCount viewerCanEdit createdAt updatedAt`;

const CREATE = `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateRestaurantInput!) { updateRestaurant(id: $id, input: $input) { ${FIELDS} } }`;
const DELETE = `mutation($id: ID!) { deleteRestaurant(id: $id) }`;
const GET = `query($id: ID!) { restaurant(id: $id) { ${FIELDS} } }`;

const FULL_INPUT = {
  title: "  Chez Ann  ",
  description: "Small and friendly",
  logo: "logo.png",
  cover: "https://img.example.com/cover.jpg",
  url: "https://chez-ann.example.com",
  types: ["cafe", "takeaway"],
  categories: ["Vegan", "family"],
  cuisines: ["Italian"],
  acceptsReservations: true,
  starRating: 4.5,
  openingHours: [
    { open: "08:00", close: "14:00" },
    { open: "18:30", close: "01:00" },
  ],
  paymentMethods: ["cash", "card"],
  canHomeDeliver: true,
  priceRange: ["$$"],
  photos: ["a.jpg", "b.jpg"],
  email: "ann@example.com",
  phone: "+33 1 23 45 67 89",
  website: "chez-ann.example.com",
  address: { addressLine1: "1 Main St", city: "Lyon", country: "France", geo: { latitude: 45.76, longitude: 4.83 } },
};

/** Runs an operation that must succeed and returns its data. */
async function ok(query: string, variables: Record<string, unknown>, token: string) {
  const r = await s.graphql(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

/** Runs an operation that must fail with `code` and returns the first error. */
async function fails(code: string, query: string, variables: Record<string, unknown>, token?: string) {
  const r = await s.graphql(query, variables, token);
  expect(r.errors?.[0]?.extensions?.code, JSON.stringify(r.body)).toBe(code);
  expect(r.data?.[Object.keys(r.data ?? {})[0]] ?? null).toBeNull();
  return r.errors![0];
}

const create = async (input: Record<string, unknown>, token = owner.token) =>
  (await ok(CREATE, { input }, token)).createRestaurant;

/** Everything stored about a restaurant, to prove a refused call changed nothing. */
const snapshot = (id: string) =>
  s.db.prisma.restaurant.findUnique({
    where: { id },
    include: {
      tags: { orderBy: [{ kind: "asc" }, { position: "asc" }] },
      photos: true,
      openingHours: true,
      badges: true,
    },
  });

describe("createRestaurant", () => {
  it("registers every field, with the caller as owner", async () => {
    const r = await create(FULL_INPUT);
    expect(r).toMatchObject({
      title: "  Chez Ann  ", // kept as sent
      description: "Small and friendly",
      logo: "logo.png",
      cover: "https://img.example.com/cover.jpg",
      url: "https://chez-ann.example.com",
      types: ["cafe", "takeaway"],
      categories: ["Vegan", "family"],
      cuisines: ["Italian"],
      acceptsReservations: true,
      starRating: 4.5,
      openingHours: [
        { open: "08:00", close: "14:00", overnight: false },
        { open: "18:30", close: "01:00", overnight: true },
      ],
      paymentMethods: ["cash", "card"],
      canHomeDeliver: true,
      priceRange: ["$$"],
      photos: ["a.jpg", "b.jpg"],
      contact: { email: "ann@example.com", phone: "+33 1 23 45 67 89" },
      website: "chez-ann.example.com",
      address: {
        addressLine1: "1 Main St",
        addressLine2: null,
        landmark: null,
        state: null,
        city: "Lyon",
        district: null,
        country: "France",
        geo: { latitude: 45.76, longitude: 4.83 },
      },
      owner: { id: owner.id },
      rating: null,
      commentCount: 0,
      viewerCanEdit: true,
    });
    const row = await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id: r.id } });
    expect(row).toMatchObject({ ownerId: owner.id, titleSearch: "chez ann", citySearch: "lyon" });
  });

  it("trims list items and drops repeats that differ only in case", async () => {
    const r = await create({ title: "Lists", cuisines: [" Thai ", "thai", "Street food", "THAI"] });
    expect(r.cuisines.map((c: string) => c.toLowerCase())).toEqual(["thai", "street food"]);
  });

  // The url was refused unless it looked like a web address: that check was the bug (issue 14).
  // The spec types url as a String and the original documentation's example is a slug.
  it("stores url as free text (a slug, words), on create and on update", async () => {
    const r = await create({ title: "Kababish", url: "kababish-bangalore" });
    expect(r.url).toBe("kababish-bangalore");
    const updated = await ok(UPDATE, { id: r.id, input: { url: "not a url at all" } }, owner.token);
    expect(updated.updateRestaurant.url).toBe("not a url at all");
    expect((await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id: r.id } })).url).toBe("not a url at all");
  });

  it("keeps the loose web-address check on website", async () => {
    const error = await fails(
      "BAD_USER_INPUT",
      CREATE,
      { input: { title: "Valid", website: "not a url" } },
      owner.token,
    );
    expect(error.message).toMatch(/website must be a web address/);
  });

  it("fills defaults when only a title is given", async () => {
    const r = await create({ title: "Bare" });
    expect(r).toMatchObject({
      title: "Bare",
      description: null,
      types: [],
      categories: [],
      openingHours: [],
      photos: [],
      acceptsReservations: false,
      canHomeDeliver: false,
      starRating: null,
      contact: { email: null, phone: null },
      address: null,
    });
  });

  it("reads an address with only empty parts as none, and coordinates alone as an address", async () => {
    expect((await create({ title: "Empty address", address: { city: "  ", country: "" } })).address).toBeNull();
    const geoOnly = await create({ title: "Geo only", address: { geo: { latitude: -90, longitude: 180 } } });
    expect(geoOnly.address).toMatchObject({ city: null, geo: { latitude: -90, longitude: 180 } });
  });

  it("refuses a caller without a token and creates nothing", async () => {
    const before = await s.db.prisma.restaurant.count();
    await fails("UNAUTHENTICATED", CREATE, { input: { title: "Nope" } });
    expect(await s.db.prisma.restaurant.count()).toBe(before);
  });

  it.each([
    ["an empty title", { title: "   " }, /title/],
    ["a title over 200 characters", { title: "x".repeat(201) }, /title.*200/],
    ["a star rating over 5", { starRating: 5.5 }, /starRating/],
    ["a negative star rating", { starRating: -1 }, /starRating/],
    ["an e-mail without @", { email: "ann.example.com" }, /email/],
    ["a url over 2000 characters", { url: "u".repeat(2001) }, /url.*2000/],
    ["a website with another scheme", { website: "javascript:alert(1)" }, /website/],
    ["a description over 2000 characters", { description: "d".repeat(2001) }, /description.*2000/],
    ["a latitude over 90", { address: { geo: { latitude: 90.5, longitude: 0 } } }, /latitude/],
    ["a longitude under -180", { address: { geo: { latitude: 0, longitude: -181 } } }, /longitude/],
    [
      "51 opening periods",
      { openingHours: Array.from({ length: 51 }, () => ({ open: "08:00", close: "09:00" })) },
      /openingHours/,
    ],
    ["a time that is not HH:MM", { openingHours: [{ open: "25:00", close: "09:00" }] }, /HH:MM/],
    ["a list of 51 items", { categories: Array.from({ length: 51 }, (_, i) => `c${i}`) }, /50 items/],
    ["an empty list item", { cuisines: ["thai", " "] }, /cuisines/],
    ["a list item over 200 characters", { types: ["t".repeat(201)] }, /200/],
  ])("refuses %s with BAD_USER_INPUT and creates nothing", async (_, fields, message) => {
    const before = await s.db.prisma.restaurant.count();
    const error = await fails("BAD_USER_INPUT", CREATE, { input: { title: "Valid", ...fields } }, owner.token);
    expect(error.message).toMatch(message);
    expect(await s.db.prisma.restaurant.count()).toBe(before);
  });

  it("names every field to fix in one answer", async () => {
    const error = await fails(
      "BAD_USER_INPUT",
      CREATE,
      { input: { title: "", starRating: 9, email: "x" } },
      owner.token,
    );
    expect(error.message).toMatch(/title/);
    expect(error.message).toMatch(/starRating/);
    expect(error.message).toMatch(/email/);
  });
});

describe("restaurant(id)", () => {
  it("answers any signed-in user; only the owner and admins may edit", async () => {
    const { id } = await create({ title: "Readable" });
    expect((await ok(GET, { id }, owner.token)).restaurant).toMatchObject({
      id,
      title: "Readable",
      viewerCanEdit: true,
    });
    expect((await ok(GET, { id }, other.token)).restaurant).toMatchObject({ id, viewerCanEdit: false });
    expect((await ok(GET, { id }, admin.token)).restaurant).toMatchObject({ id, viewerCanEdit: true });
  });

  it("answers null for an unknown id", async () => {
    expect((await ok(GET, { id: "no-such-restaurant" }, other.token)).restaurant).toBeNull();
  });

  it("refuses a caller without a token", async () => {
    const { id } = await create({ title: "Hidden" });
    await fails("UNAUTHENTICATED", GET, { id });
  });
});

describe("updateRestaurant", () => {
  it("changes only the fields given; a list replaces the list; null clears", async () => {
    const before = await create(FULL_INPUT);
    const r = (
      await ok(
        UPDATE,
        { id: before.id, input: { title: "Chez Bob", categories: ["Brunch"], description: null, starRating: null } },
        owner.token,
      )
    ).updateRestaurant;
    expect(r).toMatchObject({ title: "Chez Bob", categories: ["Brunch"], description: null, starRating: null });
    // Untouched: every other field, other lists included.
    const { title, categories, description, starRating, updatedAt, ...rest } = r;
    const {
      title: _t,
      categories: _c,
      description: _d,
      starRating: _s,
      updatedAt: oldUpdatedAt,
      ...restBefore
    } = before;
    expect(rest).toEqual(restBefore);
    expect(Date.parse(updatedAt)).toBeGreaterThanOrEqual(Date.parse(oldUpdatedAt));
    expect((await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id: r.id } })).titleSearch).toBe("chez bob");
    // What the mutation answered is what a later read gives.
    expect((await ok(GET, { id: r.id }, owner.token)).restaurant).toEqual(r);
  });

  it("replaces the address as a whole, keeps citySearch in step, and null removes it", async () => {
    const { id } = await create(FULL_INPUT);
    const moved = (await ok(UPDATE, { id, input: { address: { city: "Paris" } } }, owner.token)).updateRestaurant;
    expect(moved.address).toEqual({
      addressLine1: null,
      addressLine2: null,
      landmark: null,
      state: null,
      city: "Paris",
      district: null,
      country: null,
      geo: null,
    });
    expect((await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id } })).citySearch).toBe("paris");
    const gone = (await ok(UPDATE, { id, input: { address: null } }, owner.token)).updateRestaurant;
    expect(gone.address).toBeNull();
    expect((await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id } })).citySearch).toBeNull();
  });

  it("empties lists, opening hours and photos given as [] or null, and resets flags given as null", async () => {
    const { id } = await create(FULL_INPUT);
    const r = (
      await ok(
        UPDATE,
        { id, input: { cuisines: [], types: null, openingHours: [], photos: null, canHomeDeliver: null, email: null } },
        owner.token,
      )
    ).updateRestaurant;
    expect(r).toMatchObject({
      cuisines: [],
      types: [],
      openingHours: [],
      photos: [],
      canHomeDeliver: false,
      contact: { email: null, phone: "+33 1 23 45 67 89" },
      categories: ["Vegan", "family"],
    });
    expect(
      await s.db.prisma.restaurantTag.count({ where: { restaurantId: id, kind: { in: ["CUISINE", "TYPE"] } } }),
    ).toBe(0);
  });

  it("replaces opening hours and photos in the order given", async () => {
    const { id } = await create(FULL_INPUT);
    const r = (
      await ok(
        UPDATE,
        { id, input: { openingHours: [{ open: "22:00", close: "22:30" }], photos: ["c.jpg", "a.jpg", "d.jpg"] } },
        owner.token,
      )
    ).updateRestaurant;
    expect(r.openingHours).toEqual([{ open: "22:00", close: "22:30", overnight: false }]);
    expect(r.photos).toEqual(["c.jpg", "a.jpg", "d.jpg"]);
  });

  it("lets an admin change someone else's restaurant", async () => {
    const { id } = await create({ title: "Owned" });
    const r = (await ok(UPDATE, { id, input: { title: "Fixed by admin" } }, admin.token)).updateRestaurant;
    expect(r).toMatchObject({ title: "Fixed by admin", owner: { id: owner.id } });
  });

  it("refuses another user with FORBIDDEN and changes nothing", async () => {
    const { id } = await create(FULL_INPUT);
    const before = await snapshot(id);
    const error = await fails("FORBIDDEN", UPDATE, { id, input: { title: "Stolen", categories: ["x"] } }, other.token);
    expect(error.message).toMatch(/owner or an admin/);
    expect(await snapshot(id)).toEqual(before);
  });

  it("refuses a caller without a token and changes nothing", async () => {
    const { id } = await create(FULL_INPUT);
    const before = await snapshot(id);
    await fails("UNAUTHENTICATED", UPDATE, { id, input: { title: "Anon" } });
    expect(await snapshot(id)).toEqual(before);
  });

  it("answers NOT_FOUND for an unknown id", async () => {
    await fails("NOT_FOUND", UPDATE, { id: "no-such-restaurant", input: { title: "x" } }, admin.token);
  });

  it.each([
    ["a null title", { title: null, categories: ["new"] }, /title/],
    ["an empty title", { title: "" }, /title/],
    ["a bad star rating beside a valid list", { starRating: 7, cuisines: ["thai"] }, /starRating/],
    ["a bad e-mail beside a valid address", { email: "nobody", address: { city: "Nice" } }, /email/],
    ["a bad latitude", { address: { geo: { latitude: -91, longitude: 0 } } }, /latitude/],
  ])("refuses %s with BAD_USER_INPUT and changes nothing", async (_, input, message) => {
    const { id } = await create(FULL_INPUT);
    const before = await snapshot(id);
    const error = await fails("BAD_USER_INPUT", UPDATE, { id, input }, owner.token);
    expect(error.message).toMatch(message);
    expect(await snapshot(id)).toEqual(before);
  });
});

describe("deleteRestaurant", () => {
  it("lets the owner remove it, with its lists, comments, orders and badges; reports stay", async () => {
    const { id } = await create(FULL_INPUT);
    const badge = await s.db.prisma.badge.create({ data: { name: `kept-${id}` } });
    await s.db.prisma.restaurantBadge.create({ data: { restaurantId: id, badgeId: badge.id } });
    await s.db.prisma.comment.create({
      data: { restaurantId: id, authorId: other.id, title: "t", body: "b", rating: 4 },
    });
    await s.db.prisma.order.create({ data: { restaurantId: id, userId: other.id, recipe: "soup", quantity: 1 } });
    await s.db.prisma.report.create({
      data: { reporterId: other.id, targetKind: "RESTAURANT", targetId: id, reasonType: "spam" },
    });

    expect((await ok(DELETE, { id }, owner.token)).deleteRestaurant).toBe(id);
    expect((await ok(GET, { id }, owner.token)).restaurant).toBeNull();
    const where = { restaurantId: id };
    expect(await s.db.prisma.restaurantTag.count({ where })).toBe(0);
    expect(await s.db.prisma.openingHours.count({ where })).toBe(0);
    expect(await s.db.prisma.restaurantPhoto.count({ where })).toBe(0);
    expect(await s.db.prisma.restaurantBadge.count({ where })).toBe(0);
    expect(await s.db.prisma.comment.count({ where })).toBe(0);
    expect(await s.db.prisma.order.count({ where })).toBe(0);
    expect(await s.db.prisma.badge.count({ where: { id: badge.id } })).toBe(1);
    expect(await s.db.prisma.report.count({ where: { targetId: id } })).toBe(1);
  });

  it("lets an admin remove someone else's restaurant", async () => {
    const { id } = await create({ title: "Doomed" });
    expect((await ok(DELETE, { id }, admin.token)).deleteRestaurant).toBe(id);
    expect(await s.db.prisma.restaurant.count({ where: { id } })).toBe(0);
  });

  it("refuses another user with FORBIDDEN and removes nothing", async () => {
    const { id } = await create(FULL_INPUT);
    const before = await snapshot(id);
    await fails("FORBIDDEN", DELETE, { id }, other.token);
    expect(await snapshot(id)).toEqual(before);
  });

  it("refuses a caller without a token and removes nothing", async () => {
    const { id } = await create({ title: "Safe" });
    await fails("UNAUTHENTICATED", DELETE, { id });
    expect(await s.db.prisma.restaurant.count({ where: { id } })).toBe(1);
  });

  it("answers NOT_FOUND for an unknown id, and for a second removal", async () => {
    const { id } = await create({ title: "Once" });
    await ok(DELETE, { id }, owner.token);
    await fails("NOT_FOUND", DELETE, { id }, owner.token);
    await fails("NOT_FOUND", DELETE, { id: "no-such-restaurant" }, admin.token);
  });
});

describe("restaurants (search)", () => {
  // A town of its own, so other tests' restaurants do not show up in these results.
  const CITY = "Testopolis";
  const SEARCH = `query($filter: RestaurantFilter, $sort: RestaurantSort, $first: Int, $after: String, $offset: Int) {
    restaurants(filter: $filter, sort: $sort, first: $first, after: $after, offset: $offset) {
      totalCount nodes { title } edges { cursor node { title } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
  const titles = async (variables: Record<string, unknown>) => {
    const { restaurants } = await ok(
      SEARCH,
      { ...variables, filter: { city: CITY, ...(variables.filter as object) } },
      other.token,
    );
    return restaurants.nodes.map((n: { title: string }) => n.title);
  };
  const seeded: Record<string, { rating: [number, number] | null; createdAt: string; input: Record<string, unknown> }> =
    {
      "Alpha Bistro": {
        rating: [9, 2],
        createdAt: "2026-01-01T00:00:00Z",
        input: { categories: ["Vegan", "Family"], cuisines: ["Italian"], canHomeDeliver: true },
      },
      "beta Café": {
        rating: [3, 1],
        createdAt: "2026-03-01T00:00:00Z",
        input: { categories: ["vegan"], cuisines: ["French"] },
      },
      "Gamma Diner": {
        rating: null,
        createdAt: "2026-02-01T00:00:00Z",
        input: { cuisines: ["ITALIAN"], canHomeDeliver: true },
      },
      "delta BISTRO": { rating: [5, 1], createdAt: "2026-04-01T00:00:00Z", input: { categories: ["vegan food"] } },
      "100% Pure_Food": { rating: null, createdAt: "2026-05-01T00:00:00Z", input: {} },
    };

  beforeAll(async () => {
    for (const [title, { rating, createdAt, input }] of Object.entries(seeded)) {
      const city = title === "delta BISTRO" ? "TESTOPOLIS" : CITY; // the city matches whole, any case
      const { id } = await create({ title, address: { city }, ...input });
      await s.db.prisma.restaurant.update({
        where: { id },
        data: {
          createdAt: new Date(createdAt),
          ...(rating ? { ratingSum: rating[0], ratingCount: rating[1], ratingAvg: rating[0] / rating[1] } : {}),
        },
      });
    }
    await create({ title: "Alpha Bistro elsewhere", address: { city: "Testopolis Heights" } });
  });

  it("filters by city (whole value, any case) and sorts newest first by default", async () => {
    expect(await titles({})).toEqual(["100% Pure_Food", "delta BISTRO", "beta Café", "Gamma Diner", "Alpha Bistro"]);
  });

  it("sorts by users' rating, unrated last, and by title", async () => {
    const byRating = await titles({ sort: "RATING" });
    expect(byRating.slice(0, 3)).toEqual(["delta BISTRO", "Alpha Bistro", "beta Café"]); // 5, 4.5, 3
    // The two unrated ones tie (broken by id) and come after every rated one.
    expect(new Set(byRating.slice(3))).toEqual(new Set(["100% Pure_Food", "Gamma Diner"]));
    expect(await titles({ sort: "TITLE" })).toEqual([
      "100% Pure_Food",
      "Alpha Bistro",
      "beta Café",
      "delta BISTRO",
      "Gamma Diner",
    ]);
    expect(await titles({ sort: "NEWEST" })).toEqual(await titles({}));
  });

  it("matches text as a case-insensitive substring of the title, wildcards taken literally", async () => {
    expect(await titles({ filter: { text: "bistro" }, sort: "TITLE" })).toEqual(["Alpha Bistro", "delta BISTRO"]);
    expect(await titles({ filter: { text: "CAFÉ" } })).toEqual(["beta Café"]);
    expect(await titles({ filter: { text: "0% P" } })).toEqual(["100% Pure_Food"]);
    expect(await titles({ filter: { text: "e_F" } })).toEqual(["100% Pure_Food"]);
    expect(await titles({ filter: { text: "a%b" } })).toEqual([]); // as a wildcard: "Alpha Bistro"
    expect(await titles({ filter: { text: "a_b" } })).toEqual([]); // as a wildcard: "Alpha Bistro"
    expect(await titles({ filter: { text: "" } })).toHaveLength(5);
    expect(await titles({ filter: { text: "nothing like it" } })).toEqual([]);
  });

  it("takes a backslash in the text literally", async () => {
    await create({ title: "Slash\\Bar", address: { city: "Slashville" } });
    await create({ title: "SlashBar", address: { city: "Slashville" } });
    const search = async (text: string) =>
      (await ok(SEARCH, { filter: { city: "Slashville", text } }, other.token)).restaurants.nodes.map(
        (n: any) => n.title,
      );
    expect(await search("h\\b")).toEqual(["Slash\\Bar"]);
    expect(await search("sh\\")).toEqual(["Slash\\Bar"]);
    expect(await search("shb")).toEqual(["SlashBar"]);
  });

  it("matches a category or cuisine as a whole value in any case, and combines filters", async () => {
    expect(await titles({ filter: { category: "VEGAN" }, sort: "TITLE" })).toEqual(["Alpha Bistro", "beta Café"]);
    expect(await titles({ filter: { category: "vega" } })).toEqual([]);
    expect(await titles({ filter: { cuisine: "italian" }, sort: "TITLE" })).toEqual(["Alpha Bistro", "Gamma Diner"]);
    expect(await titles({ filter: { category: "vegan", cuisine: "italian" } })).toEqual(["Alpha Bistro"]);
    expect(await titles({ filter: { canHomeDeliver: true }, sort: "TITLE" })).toEqual(["Alpha Bistro", "Gamma Diner"]);
    expect(await titles({ filter: { canHomeDeliver: false }, sort: "TITLE" })).toEqual([
      "100% Pure_Food",
      "beta Café",
      "delta BISTRO",
    ]);
    expect(await titles({ filter: { canHomeDeliver: true, text: "gamma" } })).toEqual(["Gamma Diner"]);
    const heights = await ok(SEARCH, { filter: { city: "testopolis heights" } }, other.token);
    expect(heights.restaurants.nodes).toEqual([{ title: "Alpha Bistro elsewhere" }]);
  });

  it("refuses an over-long filter with BAD_USER_INPUT", async () => {
    const error = await fails("BAD_USER_INPUT", SEARCH, { filter: { text: "x".repeat(201) } }, other.token);
    expect(error.message).toMatch(/filter\.text/);
  });

  it("pages with first and after, without gaps or repeats, counting every match", async () => {
    const all = await titles({ sort: "TITLE" });
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const { restaurants: c }: any = await ok(
        SEARCH,
        { filter: { city: CITY }, sort: "TITLE", first: 2, after },
        other.token,
      );
      expect(c.totalCount).toBe(5);
      expect(c.pageInfo.hasPreviousPage).toBe(page > 0);
      expect(c.edges.map((e: any) => e.node)).toEqual(c.nodes);
      expect(c.pageInfo.startCursor).toBe(c.edges[0].cursor);
      expect(c.pageInfo.endCursor).toBe(c.edges.at(-1).cursor);
      seen.push(...c.nodes.map((n: any) => n.title));
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    expect(seen).toEqual(all);
  });

  it("skips with offset, and answers an empty page past the end", async () => {
    expect(await titles({ sort: "TITLE", offset: 3 })).toEqual(["delta BISTRO", "Gamma Diner"]);
    const past = (await ok(SEARCH, { filter: { city: CITY }, offset: 10 }, other.token)).restaurants;
    expect(past).toMatchObject({
      totalCount: 5,
      nodes: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null },
    });
  });

  it("gives one restaurant with first: 1", async () => {
    const c = (await ok(SEARCH, { filter: { city: CITY }, sort: "TITLE", first: 1 }, other.token)).restaurants;
    expect(c.nodes).toEqual([{ title: "100% Pure_Food" }]);
    expect(c.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
  });

  it("accepts first: 100 and refuses 0, 101, a negative offset and a made-up cursor", async () => {
    const city = "Bigtown";
    await s.db.prisma.restaurant.createMany({
      data: Array.from({ length: 101 }, (_, i) => ({
        title: `Big ${i}`,
        titleSearch: `big ${i}`,
        city,
        citySearch: "bigtown",
        ownerId: owner.id,
      })),
    });
    const first = (await ok(SEARCH, { filter: { city }, first: 100 }, other.token)).restaurants;
    expect(first.nodes).toHaveLength(100);
    expect(first.totalCount).toBe(101);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const rest = (await ok(SEARCH, { filter: { city }, first: 100, after: first.pageInfo.endCursor }, other.token))
      .restaurants;
    expect(rest.nodes).toHaveLength(1);
    expect(rest.pageInfo.hasNextPage).toBe(false);
    expect(new Set([...first.nodes, ...rest.nodes].map((n: any) => n.title)).size).toBe(101);

    expect((await fails("BAD_USER_INPUT", SEARCH, { first: 0 }, other.token)).message).toMatch(/first/);
    expect((await fails("BAD_USER_INPUT", SEARCH, { first: 101 }, other.token)).message).toMatch(/first/);
    expect((await fails("BAD_USER_INPUT", SEARCH, { offset: -1 }, other.token)).message).toMatch(/offset/);
    expect((await fails("BAD_USER_INPUT", SEARCH, { after: "bm90LWEtY3Vyc29y" }, other.token)).message).toMatch(
      /cursor/,
    );
  });

  it("refuses a caller without a token", async () => {
    await fails("UNAUTHENTICATED", SEARCH, {});
  });
});

describe("User.rating", () => {
  it("is the mean comment rating over the restaurants the user owns; null when none is rated", async () => {
    const chef = await s.signUp("chef");
    const a = await create({ title: "Chef A" }, chef.token);
    const b = await create({ title: "Chef B" }, chef.token);
    await create({ title: "Chef C (unrated)" }, chef.token);
    const ME_RATING = `{ me { rating } }`;
    expect((await ok(ME_RATING, {}, chef.token)).me.rating).toBeNull();

    await s.db.prisma.restaurant.update({
      where: { id: a.id },
      data: { ratingSum: 9, ratingCount: 2, ratingAvg: 4.5 },
    });
    await s.db.prisma.restaurant.update({ where: { id: b.id }, data: { ratingSum: 4, ratingCount: 1, ratingAvg: 4 } });
    // (9 + 4) / (2 + 1), not the mean of the two means.
    expect((await ok(ME_RATING, {}, chef.token)).me.rating).toBeCloseTo(13 / 3, 10);
    const viaOwner = await ok(
      `query($id: ID!) { restaurant(id: $id) { owner { rating } } }`,
      { id: a.id },
      other.token,
    );
    expect(viaOwner.restaurant.owner.rating).toBeCloseTo(13 / 3, 10);
    expect((await ok(ME_RATING, {}, other.token)).me.rating).toBeNull();
  });
});
