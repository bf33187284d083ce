// What PostgreSQL's search statements read (docs/performance.md, "Dense 1M, PostgreSQL"). Two reads
// of a search's total from an index alone: the catalogue's sample (the restaurants whose id hashes under a share,
// each tested on the search's conditions) from "Restaurant_id_hash_idx", which carries every column
// it tests; and a circle's count up to the limit from the (latitude, longitude) index, in its
// order, where the GiST index built a bitmap of every row of the box before the first was counted.
// The statements are the ones the server sends for real requests, planned again with sequential
// and bitmap scans off: on this small catalogue the planner would read the table whatever the
// indexes. The sample's statements are also checked to read only columns its index holds.
// And a misspelt last word sent whole: no stored word starts with it (else no typo is looked
// for), and as a prefix the planner priced the word index so high that it read the documents in
// order. And words within a circle, open at an instant, in a city, found on the search documents'
// copies of the pattern and city (migration 20261129053000_search_document_opening): replayed with
// EXPLAIN ANALYZE, no restaurant row is read but the page's. A relevance page whose ranked documents
// are all matches counts them itself (no count statement beside it); a sample takes the table's
// estimated rows as recently read (test/graphql/search-sample-size.test.ts). PostgreSQL only: SQLite reads these
// through its R*Tree, rowid windows and FTS5 (src/db/sqlite/search/).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Prisma } from "../../src/db/prisma.ts";
import { boxOf } from "../../src/db/search/conditions.ts";
import { coveringCells, WORD_CELL_LEVELS } from "../../src/db/search/cells.ts";
import { testProvider } from "../helpers/database.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const RESTAURANTS = 400;
const CENTRE = { latitude: 38.72, longitude: -9.14 };
const TOTAL = `query($f: RestaurantFilter, $sort: RestaurantSort) { restaurants(filter: $f, sort: $sort, first: 5) {
  totalCount totalCountIsEstimate nodes { id } } }`;

type PlanNode = {
  "Node Type": string;
  "Index Name"?: string;
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
};
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** Hands every statement the server's searches send to `record` too. */
function recordSearches(server: TestServer, record: (sql: Prisma.Sql) => void) {
  const readSearch = server.db.readSearch;
  (server.db as { readSearch: typeof readSearch }).readSearch = (sql) => {
    record(sql);
    return readSearch(sql);
  };
}

describe.skipIf(testProvider() !== "postgres")(
  "PostgreSQL reads a total's sample and a circle's count from an index alone",
  () => {
    let s: TestServer;
    let token: string;
    let sent: Prisma.Sql[] = [];

    beforeAll(async () => {
      // Past 20 matches a total is estimated; a sample of 100 rows (half of it without words) keeps
      // an eighth of the 400 by their id's hash. A rank window of 100 holds a quarter of them (one
      // that held them all would count them exactly: search-window-matches.test.ts). No estimate is
      // given again (each search here reads its sample).
      s = await startServer({
        SEARCH_EXACT_COUNT_LIMIT: "20",
        SEARCH_RANK_WINDOW: "100",
        SEARCH_SAMPLE_ROWS: "100",
        SEARCH_PLAN_COUNTS_MAX_AGE: "0",
        SEARCH_ESTIMATES_MAX_AGE: "0",
      });
      const owner = await s.signUp("index-only");
      token = owner.token;
      await s.db.prisma.$executeRawUnsafe(`INSERT INTO "Restaurant" ("id", "title", "titleSearch", "city", "citySearch",
        "latitude", "longitude", "ratingAvg", "timeZone", "ownerId", "createdAt", "updatedAt")
      SELECT 'index-only-' || i, 'Place ' || i, 'place ' || i, 'Lisbon', 'lisbon', ${CENTRE.latitude} + (i % 20) * 0.001,
        ${CENTRE.longitude} + (i / 20) * 0.001, 1 + i % 5, 'Europe/Lisbon', '${owner.id}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP
      FROM generate_series(0, ${RESTAURANTS - 1}) AS i`);
      // Open 12:00-23:00 (a trigger names each restaurant's opening pattern).
      await s.db.prisma.$executeRawUnsafe(`INSERT INTO "OpeningHours" ("restaurantId", "position", "open", "close")
      SELECT 'index-only-' || i, 0, '12:00', '23:00' FROM generate_series(0, ${RESTAURANTS - 1}) AS i`);
      const created = await s.graphql(
        `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`,
        { input: { title: "Pizzeria Uno" } },
        token,
      );
      expect(created.errors, JSON.stringify(created.errors)).toBeUndefined();
      await s.db.prisma.$executeRawUnsafe(`ANALYZE`);
      // Every statement the searches send, with its values, to plan them again below.
      recordSearches(s, (sql) => sent.push(sql));
    }, 60_000);
    afterAll(async () => s?.close());

    /** The statements a search sent, each as the indexes PostgreSQL reads it with (sequential and bitmap scans off). */
    async function plansOf(filter: Record<string, unknown>, sort?: string) {
      sent = [];
      const r = await s.graphql(TOTAL, { f: filter, sort }, token);
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      expect(r.data.restaurants.totalCountIsEstimate).toBe(true);
      return plansOfSent([...sent]);
    }

    /** Each statement planned again (and run, with `analyze`) with sequential and bitmap scans off. */
    function plansOfSent(statements: Prisma.Sql[], analyze = false) {
      return s.db.prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL enable_seqscan = off`);
        await tx.$executeRawUnsafe(`SET LOCAL enable_bitmapscan = off`);
        const plans = [];
        for (const sql of statements) {
          const [row] = await tx.$queryRawUnsafe<{ "QUERY PLAN": [{ Plan: PlanNode }] }[]>(
            `EXPLAIN (${analyze ? "ANALYZE, " : ""}FORMAT JSON) ${sql.text}`,
            ...sql.values,
          );
          plans.push({ text: sql.text, nodes: nodesOf(row!["QUERY PLAN"][0].Plan) });
        }
        return plans;
      });
    }

    /** Rows of "Restaurant" a statement run with EXPLAIN ANALYZE read (each scan's rows, kept or filtered out). */
    const restaurantRowsRead = (nodes: PlanNode[]) =>
      nodes
        .filter((n) => n["Relation Name"] === "Restaurant")
        .reduce(
          (read, n) => read + ((n["Actual Rows"] ?? 0) + (n["Rows Removed by Filter"] ?? 0)) * (n["Actual Loops"] ?? 0),
          0,
        );

    const indexes = (nodes: PlanNode[]) =>
      nodes.filter((n) => n["Index Name"]).map((n) => `${n["Node Type"]} ${n["Index Name"]}`);

    it("samples the catalogue from the id's hash index alone, whatever the search tests (near, city, open at, rating, flags)", async () => {
      // Every column of the restaurant a sample statement reads is in the index (key or INCLUDE).
      const indexed = (
        await s.db.prisma.$queryRawUnsafe<{ name: string }[]>(`SELECT a.attname AS "name" FROM pg_index i
        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indexrelid = CAST('"Restaurant_id_hash_idx"' AS regclass)`)
      ).map((c) => c.name);
      const searches = [
        { near: { ...CENTRE, radiusKm: 50 } },
        { city: "Lisbon", openAt: "2026-11-26T20:00:00Z" },
        { city: "Lisbon", minRating: 2, canHomeDeliver: false, acceptsReservations: false },
      ];
      for (const filter of searches) {
        const samples = (await plansOf(filter, "RATING")).filter((p) => p.text.includes("hashtext"));
        expect(samples.length, JSON.stringify(filter)).toBeGreaterThan(0);
        for (const sample of samples) {
          const read = [...new Set([...sample.text.matchAll(/"Restaurant"\."(\w+)"/g)].map((m) => m[1]!))];
          expect(
            read.filter((column) => !indexed.includes(column)),
            JSON.stringify(filter),
          ).toEqual([]);
          // Read from it first, whatever other index a condition has (the city's, the rating's).
          expect(indexes(sample.nodes), JSON.stringify(filter)).toContain("Index Only Scan Restaurant_id_hash_idx");
        }
      }
    });

    it("sends a misspelt last word whole, its correction beside it, and a correct one as a prefix", async () => {
      const sentWords = async (search: string) => {
        sent = [];
        const r = await s.graphql(
          `query($f: RestaurantFilter) { restaurants(filter: $f) { totalCount nodes { title } } }`,
          { f: { search } },
          token,
        );
        expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
        const words = sent.flatMap((sql) => sql.values).filter((v) => typeof v === "string" && v.includes("'pizz"));
        return { titles: r.data.restaurants.nodes.map((n: { title: string }) => n.title), words: [...new Set(words)] };
      };
      expect(await sentWords("pizzaria")).toEqual({ titles: ["Pizzeria Uno"], words: ["'pizzaria' | 'pizzeria'"] });
      expect(await sentWords("pizze")).toEqual({ titles: ["Pizzeria Uno"], words: ["'pizze':*"] });
    });

    it("counts words within a circle, and samples them, from the search documents alone", async () => {
      // "place" is in all 400 titles, all within the circle: past 20, counted (by the ranked page's
      // statement, below), then sampled.
      const plans = await plansOf({ search: "place", near: { ...CENTRE, radiusKm: 50 } }, "RELEVANCE");
      const counts = plans.filter((p) => p.text.includes("hashtext"));
      expect(counts.length).toBe(1);
      for (const count of counts) {
        expect(count.text).toContain(`FROM "RestaurantSearch"`);
        expect(count.text).not.toMatch(/"Restaurant"[^S]/); // no restaurant read to count it
      }
    });

    it("finds words within a circle from the index of each word within its cell, not the words' and the cells' entries apart", async () => {
      // Within 1 km of the centre: cells of 1/32°, whose words within them are indexed.
      const near = { ...CENTRE, radiusKm: 1 };
      const covering = coveringCells(boxOf(near))!;
      expect(covering.level).toBeLessThan(WORD_CELL_LEVELS);
      sent = [];
      const r = await s.graphql(
        `query($f: RestaurantFilter) { restaurants(filter: $f, sort: RELEVANCE, first: 5) { nodes { id distanceKm } } }`,
        { f: { search: "place", near } },
        token,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      expect(r.data.restaurants.nodes.length).toBe(5);
      // Replayed with sequential scans off (this small table would be read whole), bitmap scans
      // on: a GIN index is read only so.
      const pages = await s.db.prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL enable_seqscan = off`);
        return Promise.all(
          sent
            .filter((sql) => sql.text.includes(`"ranked"`))
            .map(async (sql) => {
              const [row] = await tx.$queryRawUnsafe<{ "QUERY PLAN": [{ Plan: PlanNode }] }[]>(
                `EXPLAIN (ANALYZE, FORMAT JSON) ${sql.text}`,
                ...sql.values,
              );
              return { text: sql.text, nodes: nodesOf(row!["QUERY PLAN"][0].Plan) };
            }),
        );
      });
      expect(pages.length).toBe(1);
      const scans = pages[0]!.nodes.filter((n) => n["Index Name"]?.startsWith("RestaurantSearch_"));
      expect(
        scans.map((n) => n["Index Name"]),
        pages[0]!.text,
      ).toEqual(["RestaurantSearch_word_cells_idx"]);
      // Which documents it keeps is test/graphql/search-cells.test.ts's: every circle's answer, exactly.
    });

    it("counts the matches of a relevance page in its own statement, from the ranked documents, when they are all matches", async () => {
      // Words alone, and words within a circle (the window then the first matches within it): the
      // page's statement counts its window (400 matches, more than the limit of 20), so no
      // statement counts them again; the total is then estimated from the sample, as before.
      for (const filter of [{ search: "place" }, { search: "place", near: { ...CENTRE, radiusKm: 50 } }]) {
        const plans = await plansOf(filter, "RELEVANCE");
        expect(
          plans.filter((p) => p.text.includes(`"bounded"`)).map((p) => p.text),
          JSON.stringify(filter),
        ).toEqual([]);
        const pages = plans.filter((p) => p.text.includes(`"ranked"`));
        expect(pages.length, JSON.stringify(filter)).toBe(1);
        expect(pages[0]!.text).toContain(`(SELECT COUNT(*) FROM "ranked")`);
        expect(plans.filter((p) => p.text.includes("hashtext")).length, JSON.stringify(filter)).toBe(1);
      }
      // Another condition the documents do not hold: the ranked documents are not all matches.
      const tested = await plansOf({ search: "place", minRating: 1 }, "RELEVANCE");
      expect(tested.filter((p) => p.text.includes(`"bounded"`)).length).toBe(1);
    });

    it("reads no restaurant to find which words within a circle are open at an instant, in a city: only the page's", async () => {
      // Open at 05:00 somewhere else, so that the open patterns are not none (which no row needs reading to answer).
      await s.db.prisma.$executeRawUnsafe(`INSERT INTO "Restaurant" ("id", "title", "titleSearch", "city", "citySearch",
        "latitude", "longitude", "timeZone", "ownerId", "createdAt", "updatedAt")
        SELECT 'index-only-night', 'Night Owl', 'night owl', 'Tokyo', 'tokyo', 35.68, 139.65, 'Europe/Lisbon', "ownerId",
          CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM "Restaurant" WHERE "id" = 'index-only-0'`);
      await s.db.prisma.$executeRawUnsafe(`INSERT INTO "OpeningHours" ("restaurantId", "position", "open", "close")
        VALUES ('index-only-night', 0, '04:00', '06:00')`);
      /** Rows of "Restaurant" the statements of the search read (each scan's rows, kept or filtered out), and its answer. */
      const restaurantsRead = async (filter: Record<string, unknown>) => {
        sent = [];
        const r = await s.graphql(
          `query($f: RestaurantFilter) { restaurants(filter: $f, first: 5) {
            totalCount facets { cities { value count } } nodes { id } } }`,
          { f: filter },
          token,
        );
        expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
        let read = 0;
        for (const sql of [...sent]) {
          const [row] = await s.db.prisma.$queryRawUnsafe<{ "QUERY PLAN": [{ Plan: PlanNode }] }[]>(
            `EXPLAIN (ANALYZE, FORMAT JSON) ${sql.text}`,
            ...sql.values,
          );
          read += restaurantRowsRead(nodesOf(row!["QUERY PLAN"][0].Plan));
        }
        const { totalCount, facets, nodes } = r.data.restaurants;
        return { read, totalCount, cities: facets.cities, nodes: nodes.length };
      };
      const words = { search: "place", near: { ...CENTRE, radiusKm: 50 }, city: "Lisbon" };
      // None of the 400 open at 05:00: found on the documents alone.
      expect(await restaurantsRead({ ...words, openAt: "2026-11-26T05:00:00Z" })).toEqual({
        read: 0,
        totalCount: 0,
        cities: [],
        nodes: 0,
      });
      // All open at 13:00: the total and facets from the documents, the page's 5 restaurants (and the
      // one that says a next page exists) read.
      const open = await restaurantsRead({ ...words, openAt: "2026-11-26T13:00:00Z" });
      expect(open).toMatchObject({ nodes: 5, cities: [{ value: "Lisbon" }] });
      expect(open.totalCount).toBeGreaterThan(20);
      expect(open.read).toBeLessThanOrEqual(6);
    });

    it("reads a city's page by rating from the city's own restaurants, in that order (as many as the page needs)", async () => {
      // Porto's restaurants all rate 5: walking the rating's index across every city read them all
      // before Lisbon's first; led by the city's index, every Lisbon restaurant was read and sorted.
      await s.db.prisma.$executeRawUnsafe(`INSERT INTO "Restaurant" ("id", "title", "titleSearch", "city", "citySearch",
        "latitude", "longitude", "ratingAvg", "timeZone", "ownerId", "createdAt", "updatedAt")
        SELECT 'index-only-porto-' || i, 'Porto ' || i, 'porto ' || i, 'Porto', 'porto', 41.15, -8.61, 5, 'Europe/Lisbon',
          "ownerId", CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM "Restaurant", generate_series(0, ${RESTAURANTS - 1}) AS i
        WHERE "id" = 'index-only-0'`);
      await s.db.prisma.$executeRawUnsafe(`ANALYZE "Restaurant"`);
      sent = [];
      const r = await s.graphql(
        `query { restaurants(filter: { city: "Lisbon" }, sort: RATING, first: 5) { nodes { id rating } } }`,
        {},
        token,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      const ratings = r.data.restaurants.nodes.map((n: { rating: number }) => n.rating);
      expect(ratings).toEqual([5, 5, 5, 5, 5]);
      expect(r.data.restaurants.nodes.filter((n: { id: string }) => n.id.includes("porto"))).toEqual([]);
      const pages = await plansOfSent(
        sent.filter((sql) => sql.text.includes("ORDER BY")),
        true,
      );
      expect(pages.length).toBe(1);
      const page = pages[0];
      expect(indexes(page!.nodes).join(), page!.text).toContain("Scan Restaurant_citySearch_ratingAvg_id_idx");
      // The page's 5 and the one that says a next page exists.
      expect(restaurantRowsRead(page!.nodes)).toBeLessThanOrEqual(6);
    });

    it("counts a small city's cuisine by rating in the page's statement, and reads the owners of the page's rows only", async () => {
      // Évora's 15 restaurants, 12 of them Alentejan: under the exact-count limit (20), so the page
      // counts its matches in its own pass. Joined before the window was cut, every match's owner was read.
      await s.db.prisma.$executeRawUnsafe(`INSERT INTO "Restaurant" ("id", "title", "titleSearch", "city", "citySearch",
        "latitude", "longitude", "ratingAvg", "timeZone", "ownerId", "createdAt", "updatedAt")
        SELECT 'index-only-evora-' || i, 'Evora ' || i, 'evora ' || i, 'Évora', 'évora', 38.57, -7.91, 1 + i % 5,
          'Europe/Lisbon', "ownerId", CURRENT_TIMESTAMP, CURRENT_TIMESTAMP
        FROM "Restaurant", generate_series(0, 14) AS i WHERE "id" = 'index-only-0'`);
      await s.db.prisma
        .$executeRawUnsafe(`INSERT INTO "RestaurantTag" ("restaurantId", "kind", "position", "value", "valueKey")
        SELECT 'index-only-evora-' || i, 'CUISINE', 0, 'Alentejan', 'alentejan' FROM generate_series(0, 11) AS i`);
      sent = [];
      const r = await s.graphql(
        `query { restaurants(filter: { cuisine: "Alentejan", city: "Évora" }, sort: RATING, first: 5) {
          totalCount totalCountIsEstimate nodes { id rating owner { id } } } }`,
        {},
        token,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      expect(r.data.restaurants).toMatchObject({ totalCount: 12, totalCountIsEstimate: false });
      expect(r.data.restaurants.nodes.map((n: { rating: number }) => n.rating)).toEqual([5, 5, 4, 4, 3]);
      expect(r.data.restaurants.nodes.every((n: { owner: { id: string } | null }) => n.owner?.id)).toBe(true);
      const pages = sent.filter((sql) => sql.text.includes("ORDER BY"));
      expect(pages.length).toBe(1);
      expect(pages[0]!.text, "the total is counted in the page's statement").toContain("COUNT(*) OVER ()");
      const [page] = await plansOfSent(pages, true);
      const usersRead = page!.nodes
        .filter((n) => n["Relation Name"] === "User")
        .reduce((read, n) => read + (n["Actual Rows"] ?? 0) * (n["Actual Loops"] ?? 0), 0);
      // The page's 5 and the one that says a next page exists, not the 12 matches.
      expect(usersRead, page!.text).toBe(6);
    });

    it("samples a list-led total from the entries its index holds under the share, not every entry of the value", async () => {
      // Faro's 6,000 restaurants, half of them Italian: a list and a city of 5,000 rows or more lead
      // a sample by the rarer, the cuisine (3,000 rows).
      const FARO = 6_000;
      await s.db.prisma.$executeRawUnsafe(`INSERT INTO "Restaurant" ("id", "title", "titleSearch", "city", "citySearch",
        "latitude", "longitude", "ratingAvg", "timeZone", "ownerId", "createdAt", "updatedAt")
        SELECT 'index-only-faro-' || i, 'Faro ' || i, 'faro ' || i, 'Faro', 'faro', 37.02, -7.93, 1 + i % 5, 'Europe/Lisbon',
          "ownerId", CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM "Restaurant", generate_series(0, ${FARO - 1}) AS i
        WHERE "id" = 'index-only-0'`);
      await s.db.prisma
        .$executeRawUnsafe(`INSERT INTO "RestaurantTag" ("restaurantId", "kind", "position", "value", "valueKey")
        SELECT 'index-only-faro-' || i, 'CUISINE', 0, 'Italian', 'italian' FROM generate_series(0, ${FARO - 1}, 2) AS i`);
      await s.db.prisma.$executeRawUnsafe(`ANALYZE`);
      const samples = (await plansOf({ cuisine: "Italian", city: "Faro" }, "RATING")).filter((p) =>
        p.text.includes("hashtext"),
      );
      expect(samples.length).toBe(1);
      const [sample] = await plansOfSent(
        sent.filter((sql) => sql.text.includes("hashtext")),
        true,
      );
      expect(indexes(sample!.nodes), sample!.text).toContain("Index Scan RestaurantTag_kind_valueKey_hash_idx");
      // The share keeps about 1 in 135 of the 3,000 (a sample of 50 rows among ~6,800); testing the
      // hash on every entry of the value read all 3,000.
      const tagRowsRead = sample!.nodes
        .filter((n) => n["Index Name"]?.startsWith("RestaurantTag"))
        .reduce(
          (read, n) => read + ((n["Actual Rows"] ?? 0) + (n["Rows Removed by Filter"] ?? 0)) * (n["Actual Loops"] ?? 0),
          0,
        );
      expect(tagRowsRead).toBeGreaterThan(0);
      expect(tagRowsRead).toBeLessThan(300);
    });

    it("reads the rows of a relevance page with another condition in the page's order, until it is full", async () => {
      // A condition on the restaurant (a minimum rating every one of the 400 meets): the ranked
      // documents were each joined to their restaurant before the sort (400 read for 5).
      sent = [];
      const r = await s.graphql(
        TOTAL,
        { f: { search: "place", near: { ...CENTRE, radiusKm: 50 }, minRating: 1 } },
        token,
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      expect(r.data.restaurants.nodes).toHaveLength(5);
      const pages = sent.filter((sql) => sql.text.includes(`"ranked"`) && !sql.text.includes(`AS "all"`));
      expect(pages.length).toBe(1);
      const [row] = await s.db.prisma.$queryRawUnsafe<{ "QUERY PLAN": [{ Plan: PlanNode }] }[]>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${pages[0]!.text}`,
        ...pages[0]!.values,
      );
      const read = nodesOf(row!["QUERY PLAN"][0].Plan)
        .filter((n) => n["Relation Name"] === "Restaurant")
        .reduce(
          (sum, n) => sum + ((n["Actual Rows"] ?? 0) + (n["Rows Removed by Filter"] ?? 0)) * (n["Actual Loops"] ?? 0),
          0,
        );
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThanOrEqual(6);
    });

    it("keeps 1,000 histogram entries of the titles a substring is looked for in (migration 20261129121000)", async () => {
      // With the default 100, "pizz" (0.7% of the titles) at 1,000,000 restaurants was estimated
      // at 93 rows, and its newest 20 were found by reading and sorting all 7,182.
      const rows = await s.db.prisma.$queryRawUnsafe<{ table: string; target: number }[]>(
        `SELECT c."relname" AS "table", a."attstattarget" AS "target" FROM pg_attribute a JOIN pg_class c ON c."oid" = a."attrelid"
        WHERE c."relname" IN ('Restaurant', 'Grocery') AND a."attname" = 'titleSearch' ORDER BY 1`,
      );
      expect(rows.map((r) => [r.table, Number(r.target)])).toEqual([
        ["Grocery", 1000],
        ["Restaurant", 1000],
      ]);
    });

    it("counts a circle's rows up to the limit from the (latitude, longitude) index alone, in its order", async () => {
      const plans = await plansOf({ near: { ...CENTRE, radiusKm: 50 } }, "RATING");
      const counts = plans.filter((p) => p.text.includes(`LIMIT 21`) && !p.text.includes("hashtext"));
      expect(counts.length).toBeGreaterThan(0);
      for (const count of counts)
        expect(indexes(count.nodes)).toContain("Index Only Scan Restaurant_latitude_longitude_idx");
      // Not the GiST index of the points: a bitmap of the whole box came before the first row counted.
      expect(plans.flatMap((p) => indexes(p.nodes)).filter((i) => i.includes("Restaurant_point_idx"))).toEqual([]);
    });
  },
);
