// Words + near through the map cells of the search documents (src/db/search/cells.ts, migration
// 20261126040000_search_cells), through the real server: the cells only narrow what the word index
// returns, so every answer is the circle's, near a cell's border, across a grid-line crossing, over
// the antimeridian, at high latitudes and around a pole; the cells follow a restaurant that moves;
// and no word a user types ever meets a cell.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CELL_SIZES, cellsOf, WORD_CELL_LEVELS } from "../../src/db/search/cells.ts";
import { postgresSearch } from "../../src/db/postgres/search/engine.ts";
import { testProvider } from "../helpers/database.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let token: string;
let ownerId: string;

type Point = { latitude: number; longitude: number };
const EARTH_RADIUS_KM = 6371.0088;
const rad = (deg: number) => (deg * Math.PI) / 180;
/** Great-circle distance, as the databases compute it (haversine). */
const km = (a: Point, b: Point) =>
  2 *
  EARTH_RADIUS_KM *
  Math.asin(
    Math.sqrt(
      Math.sin(rad(b.latitude - a.latitude) / 2) ** 2 +
        Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(rad(b.longitude - a.longitude) / 2) ** 2,
    ),
  );
/** km south of a point. */
const south = (p: Point, distance: number) => ({
  latitude: p.latitude - (distance / (Math.PI * EARTH_RADIUS_KM)) * 180,
  longitude: p.longitude,
});

// A crossing of grid lines of the two finest levels (1/32° and 1/8°): 38.75 + 90 and -9.125 + 180
// are whole multiples of 1/8.
const CROSSING = { latitude: 38.75, longitude: -9.125 };

const CREATE = `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`;
const MOVE = `mutation($id: ID!, $input: UpdateRestaurantInput!) { updateRestaurant(id: $id, input: $input) { id } }`;
const SEARCH = `query($filter: RestaurantFilter, $sort: RestaurantSort) {
  restaurants(filter: $filter, sort: $sort, first: 50) { totalCount nodes { title } facets { exact cuisines { value count } } }
}`;

async function ok(query: string, variables: Record<string, unknown> = {}) {
  const r = await s.graphql(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

const places = new Map<string, Point>();
async function create(title: string, geo: Point | null, words: string) {
  places.set(title, geo!);
  return (
    await ok(CREATE, {
      input: { title, description: words, cuisines: ["Italian"], address: { city: "Somewhere", geo } },
    })
  ).createRestaurant.id as string;
}

/** Titles found by words + near (sorted by title: a page led by the words), and the total and facet count. */
async function found(search: string, near: Point & { radiusKm: number }, sort = "TITLE") {
  const { restaurants } = await ok(SEARCH, { filter: { search, near }, sort });
  const titles: string[] = restaurants.nodes.map((n: { title: string }) => n.title);
  const italian = restaurants.facets.cuisines.find((c: { value: string }) => c.value === "Italian")?.count ?? 0;
  expect(restaurants.totalCount, `total of ${search} near ${JSON.stringify(near)}`).toBe(titles.length);
  expect(italian, `facet of ${search} near ${JSON.stringify(near)}`).toBe(titles.length);
  return sort === "TITLE" ? titles : [...titles].sort();
}

// A fixed scatter of restaurants around the crossing, up to ~40 km away (pseudo-random, seeded).
const SCATTER: Point[] = [];
let seed = 31;
const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
for (let i = 0; i < 36; i++)
  SCATTER.push({
    latitude: CROSSING.latitude + (next() - 0.5) * 0.7,
    longitude: CROSSING.longitude + (next() - 0.5) * 0.9,
  });

beforeAll(async () => {
  s = await startServer();
  ({ token, id: ownerId } = await s.signUp("cells"));
  for (const [i, p] of SCATTER.entries()) await create(`Scatter ${String(i).padStart(2, "0")}`, p, "scatterword");
  await create("No Place", null, "scatterword");
});
afterAll(async () => s?.close());

describe("words + near read through map cells", () => {
  it("finds exactly the restaurants within the circle, for circles of every level around a grid crossing", async () => {
    const centres = [CROSSING, { latitude: 38.7523, longitude: -9.1261 }, { latitude: 38.6, longitude: -9.3 }];
    for (const centre of centres) {
      for (const radiusKm of [0.5, 2, 5, 12, 30, 50]) {
        // Restaurants within a metre of the circle are left out of the comparison (rounding).
        const near = SCATTER.map((p, i) => ({
          title: `Scatter ${String(i).padStart(2, "0")}`,
          d: km(centre, p),
        })).filter((x) => Math.abs(x.d - radiusKm) > 0.001);
        const expected = near
          .filter((x) => x.d <= radiusKm)
          .map((x) => x.title)
          .sort();
        const unsure = SCATTER.length - near.length;
        const titles = await found("scatterword", { ...centre, radiusKm });
        if (unsure === 0) expect(titles, `${JSON.stringify(centre)} ${radiusKm} km`).toEqual(expected);
        else for (const t of expected) expect(titles).toContain(t);
        expect(await found("scatterword", { ...centre, radiusKm }, "RELEVANCE")).toEqual(titles);
      }
    }
  });

  it("finds one just inside the circle across a cell's border, and one in the cell across a grid-line crossing", async () => {
    // 55 m north of the 38.75° line; 1 km reaches across it, into the cells below (1/32° cells: the finest level).
    const centre = { latitude: 38.7505, longitude: -9.105 };
    await create("Border Inside", south(centre, 0.995), "borderword");
    await create("Border Outside", south(centre, 1.005), "borderword");
    expect(await found("borderword", { ...centre, radiusKm: 1 })).toEqual(["Border Inside"]);
    expect(await found("borderword", { ...centre, radiusKm: 1 }, "RELEVANCE")).toEqual(["Border Inside"]);

    // The circle around a point just north-east of the crossing touches the cell south-west of it.
    const corner = { latitude: CROSSING.latitude + 0.002, longitude: CROSSING.longitude + 0.002 };
    await create(
      "Corner Diagonal",
      { latitude: CROSSING.latitude - 0.002, longitude: CROSSING.longitude - 0.002 },
      "cornerword",
    );
    expect(cellsOf(corner.latitude, corner.longitude)[0]).not.toBe(
      cellsOf(CROSSING.latitude - 0.002, CROSSING.longitude - 0.002)[0],
    );
    expect(await found("cornerword", { ...corner, radiusKm: 1 })).toEqual(["Corner Diagonal"]);
    expect(await found("cornerword", { ...corner, radiusKm: 0.5 })).toEqual([]);
  });

  it("across the antimeridian, at high latitudes and around a pole", async () => {
    await create("Date Line East", { latitude: 10, longitude: -179.99 }, "datelineword");
    await create("Date Line Far", { latitude: 10, longitude: -179.9 }, "datelineword");
    expect(await found("datelineword", { latitude: 10, longitude: 179.99, radiusKm: 5 })).toEqual(["Date Line East"]);
    expect(await found("datelineword", { latitude: 10, longitude: 179.99, radiusKm: 20 })).toEqual([
      "Date Line East",
      "Date Line Far",
    ]);
    expect(await found("datelineword", { latitude: 10, longitude: -179.95, radiusKm: 5 })).toEqual(["Date Line East"]);
    expect(await found("datelineword", { latitude: 10, longitude: -179.95, radiusKm: 6 })).toEqual([
      "Date Line East",
      "Date Line Far",
    ]);
    expect(await found("datelineword", { latitude: 10, longitude: 179.9, radiusKm: 10 })).toEqual([]);

    // At 80°, the circle's widest longitude (asin(sin d / cos 80°) away) lies ~17 m beyond d / cos 80°:
    // a restaurant there, just inside the circle, was outside the box read before the circle's test.
    const centre = { latitude: 80, longitude: 20 };
    const d = 50 / EARTH_RADIUS_KM;
    const widest = {
      latitude: (Math.asin(Math.sin(rad(80)) / Math.cos(d)) * 180) / Math.PI,
      longitude: 20 + (Math.asin(Math.sin(d) / Math.cos(rad(80))) * (1 - 1e-4) * 180) / Math.PI,
    };
    expect(km(centre, widest)).toBeLessThan(50);
    await create("Far North Edge", widest, "northword");
    expect(await found("northword", { ...centre, radiusKm: 50 })).toEqual(["Far North Edge"]);
    expect(await found("northword", { ...centre, radiusKm: 49 })).toEqual([]);

    // A circle around the pole spans every longitude: 47.8 km away across the pole.
    await create("Across The Pole", { latitude: 89.97, longitude: 180 }, "poleword");
    expect(await found("poleword", { latitude: 89.6, longitude: 0, radiusKm: 50 })).toEqual(["Across The Pole"]);
    expect(await found("poleword", { latitude: 89.6, longitude: 0, radiusKm: 45 })).toEqual([]);
    // Near search without words reads the same box.
    const { restaurants } = await ok(`query($f: RestaurantFilter) { restaurants(filter: $f) { nodes { title } } }`, {
      f: { near: { latitude: 89.6, longitude: 0, radiusKm: 50 } },
    });
    expect(restaurants.nodes.map((n: { title: string }) => n.title)).toEqual(["Across The Pole"]);
  });

  it("follows a restaurant that moves: its cells are those of its new place", async () => {
    const here = { latitude: 38.7, longitude: -9.2 };
    const there = { latitude: 38.78, longitude: -9.05 }; // another cell at every level but the coarsest three
    const id = await create("Cell Mover", here, "moverword");
    expect(await found("moverword", { ...here, radiusKm: 1 })).toEqual(["Cell Mover"]);
    await ok(MOVE, { id, input: { address: { geo: there } } });
    expect(await found("moverword", { ...here, radiusKm: 1 })).toEqual([]);
    expect(await found("moverword", { ...here, radiusKm: 5 })).toEqual([]);
    expect(await found("moverword", { ...there, radiusKm: 1 })).toEqual(["Cell Mover"]);
    expect(await found("moverword", { ...there, radiusKm: 5 })).toEqual(["Cell Mover"]);
    await ok(MOVE, { id, input: { address: { city: "Somewhere", geo: null } } });
    expect(await found("moverword", { ...there, radiusKm: 50 })).toEqual([]);
    await ok(MOVE, { id, input: { address: { city: "Somewhere", geo: here } } });
    expect(await found("moverword", { ...here, radiusKm: 1 })).toEqual(["Cell Mover"]);
    await ok(`mutation($id: ID!) { deleteRestaurant(id: $id) }`, { id });
    expect(await found("moverword", { ...here, radiusKm: 1 })).toEqual([]);
  });

  it("past the ranked window of the first 2,000 word matches, still finds those within the circle, page by page", async () => {
    // 2,500 matches of the words, in one statement; near Porto: the first two (in the window) and
    // the last three (past it, whichever order the word index keeps); the others 130 km away.
    await s.db.prisma
      .$executeRawUnsafe(`INSERT INTO "Restaurant" ("id", "title", "titleSearch", "city", "citySearch", "ownerId", "createdAt", "updatedAt", "latitude", "longitude")
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500)
      SELECT 'window-' || i, 'Windowword ' || i, 'windowword ' || i, 'Porto', 'porto', '${ownerId}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP,
        CASE WHEN i <= 2 OR i > 2497 THEN 41.15 ELSE 40.0 END, -8.61 FROM n`);
    const porto = { latitude: 41.15, longitude: -8.61, radiusKm: 1 };
    const near = ["Windowword 1", "Windowword 2", "Windowword 2498", "Windowword 2499", "Windowword 2500"];
    const page = `query($f: RestaurantFilter, $first: Int, $offset: Int) { restaurants(filter: $f, first: $first, offset: $offset) { totalCount nodes { title } pageInfo { hasNextPage } } }`;
    for (const size of [2, 3, 5]) {
      const seen: string[] = [];
      for (let offset = 0; offset < 6; offset += size) {
        const { restaurants } = await ok(page, { f: { search: "windowword", near: porto }, first: size, offset });
        expect(restaurants.totalCount).toBe(5);
        seen.push(...restaurants.nodes.map((n: { title: string }) => n.title));
        expect(restaurants.pageInfo.hasNextPage, `${size} from ${offset}`).toBe(offset + size < 5);
      }
      expect(seen, `pages of ${size}`).toHaveLength(5);
      expect([...seen].sort(), `pages of ${size}`).toEqual(near);
    }
    // With facets asked, the one statement of the total and facets counts every match: the matches
    // past the ranked ones are read only when there are more than were ranked. PostgreSQL ranks the
    // first matches within the circle (all 5 here), SQLite the first matches of the words (the
    // first two of the 5 among them).
    const faceted = `query($f: RestaurantFilter) { restaurants(filter: $f, first: 2) { totalCount facets { exact cuisines { value count } } nodes { title } } }`;
    const restRead = () =>
      s.sql.some((sql) =>
        testProvider() === "postgres" ? sql.includes(`NOT IN (SELECT "id" FROM "ranked")`) : /"rowid" > /.test(sql),
      );
    for (const [text, titles, rest] of [
      ["windowword 1", ["Windowword 1"], false],
      ["2500", ["Windowword 2500"], true],
      ["windowword", near.slice(0, 2), true],
    ] as const) {
      s.sql.length = 0;
      const { restaurants } = await ok(faceted, {
        f: { search: "windowword", near: porto, ...(text === "windowword" ? {} : { text }) },
      });
      expect(restaurants.nodes.map((n: { title: string }) => n.title).sort(), text).toEqual(titles);
      expect(restaurants.totalCount, text).toBe(text === "windowword" ? 5 : 1);
      expect(restRead(), text).toBe(rest && testProvider() !== "postgres");
    }
  });

  it("never matches a cell with a word a user types, whole or as a prefix", async () => {
    const [finest, second] = cellsOf(CROSSING.latitude + 0.001, CROSSING.longitude + 0.001);
    for (const typed of [finest!, second!, second!.slice(0, 7), "g1y", finest!.slice(0, 2)]) {
      const { restaurants } = await ok(
        `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { title } } }`,
        { f: { search: typed } },
      );
      expect(restaurants.nodes, typed).toEqual([]);
      expect(await found(typed, { ...CROSSING, radiusKm: 5 })).toEqual([]);
    }
  });

  it("the database writes the cells the server names, from the coordinates on the search documents, and none without", async () => {
    const points: Point[] = [
      CROSSING,
      { latitude: -90, longitude: -180 },
      { latitude: 90, longitude: 180 },
      { latitude: -33.8688, longitude: 151.2093 },
      { latitude: 0, longitude: 0 },
    ];
    for (const p of points) {
      const cells =
        testProvider() === "postgres"
          ? (
              await s.db.prisma.$queryRawUnsafe<{ c: string }[]>(
                `SELECT CAST(restaurant_cells($1, $2) AS TEXT) AS c`,
                p.latitude,
                p.longitude,
              )
            )[0]!.c
              .replace(/'/g, "")
              .split(" ")
          : await sqliteCells(p);
      expect(cells.sort(), JSON.stringify(p)).toEqual(cellsOf(p.latitude, p.longitude).sort());
      expect(cells).toHaveLength(CELL_SIZES.length);
    }
    // A restaurant without coordinates has no cell.
    const none =
      testProvider() === "postgres"
        ? await s.db.prisma.$queryRawUnsafe<{ c: string | null }[]>(
            `SELECT CAST(restaurant_cells(d."latitude", d."longitude") AS TEXT) AS c FROM "RestaurantSearch" d JOIN "Restaurant" r ON r."id" = d."restaurantId" WHERE r."title" = 'No Place'`,
          )
        : await s.db.prisma.$queryRawUnsafe<{ c: string | null }[]>(
            `SELECT "place" AS c FROM "RestaurantSearchDocument" WHERE "title" = 'No Place'`,
          );
    expect(none).toEqual([{ c: null }]);
  });
});

it.skipIf(testProvider() !== "postgres")(
  "PostgreSQL writes each word within the cells of the three finest levels, the words the server asks within them",
  async () => {
    const words = `'pizza' & 'marg':*`;
    for (const p of [CROSSING, { latitude: -33.8688, longitude: 151.2093 }, { latitude: 90, longitude: 180 }]) {
      const cells = cellsOf(p.latitude, p.longitude).slice(0, WORD_CELL_LEVELS);
      const [row] = await s.db.prisma.$queryRawUnsafe<{ lexemes: string[]; hit: boolean; other: boolean }[]>(
        `SELECT tsvector_to_array(restaurant_word_cells(to_tsvector('simple', 'pizza margherita'), $1, $2)) AS "lexemes",
          restaurant_word_cells(to_tsvector('simple', 'pizza margherita'), $1, $2) @@ CAST($3 AS tsquery) AS "hit",
          restaurant_word_cells(to_tsvector('simple', 'pizza margherita'), $1, $2) @@ CAST($4 AS tsquery) AS "other"`,
        p.latitude,
        p.longitude,
        postgresSearch.words.wordsInCells!(words, cells),
        postgresSearch.words.wordsInCells!(words, [cellsOf(p.latitude + 1, p.longitude + 1)[0]!]),
      );
      expect(row!.lexemes.sort(), JSON.stringify(p)).toEqual(
        cells.flatMap((cell) => [`${cell}_margherita`, `${cell}_pizza`]).sort(),
      );
      expect(row!.hit).toBe(true);
      expect(row!.other).toBe(false);
    }
    // No coordinates, no lexeme.
    const [none] = await s.db.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT length(restaurant_word_cells(to_tsvector('simple', 'pizza'), NULL, NULL)) AS "n"`,
    );
    expect(none!.n).toBe(0);
  },
);

/** SQLite: the cells the documents' view writes for a point (through a search row of a scratch restaurant). */
async function sqliteCells(p: Point): Promise<string[]> {
  const id = await create(`Probe ${p.latitude} ${p.longitude}`, p, "probeword");
  const [row] = await s.db.prisma.$queryRawUnsafe<{ place: string }[]>(
    `SELECT "place" FROM "RestaurantSearchDocument" WHERE "restaurantId" = ?`,
    id,
  );
  // And the FTS5 table holds them in "place".
  for (const cell of row!.place.split(" ")) {
    const hits = await s.db.prisma.$queryRawUnsafe<{ n: number | bigint }[]>(
      `SELECT COUNT(*) AS n FROM "RestaurantSearch" WHERE "RestaurantSearch" MATCH ? AND "rowid" = (SELECT "rowid" FROM "RestaurantSearchRow" WHERE "restaurantId" = ?)`,
      `place : "${cell}"`,
      id,
    );
    expect(Number(hits[0]!.n), cell).toBe(1);
  }
  return row!.place.split(" ");
}
