// SQLite's counts and samples: a count or a sample reads the keys of a text or spatial index alone
// when that index holds every condition, and a sample is spread evenly over the keys.
import { Prisma } from "../../prisma.ts";
import type { SqlReader } from "../../raw-rows.ts";
import { conditionsOf, matchingCatalogueRows } from "../../search/conditions.ts";
import { rowTestCount, type Near, type Sample, type SearchPlan, type TagCondition } from "../../search-plan.ts";
import { OWNER_KEY, query, table, whereAll } from "../../search/sql.ts";
import { leadRows, leadSample, ledCount, onlyWordsCounted, sampleSelect } from "../../search/totals.ts";
import {
  integerKey,
  matchesOfKeys,
  placeBox,
  placeKeys,
  rowsOfKeys,
  searchRows,
  trigramExact,
  trigramKeys,
  wordKeys,
} from "./keys.ts";

/**
 * The rows matching every condition, to be counted: led by the words' FTS5 table, else the R*Tree
 * for a near search, each with the other conditions tested row by row (the catalogue's row read
 * only for a condition its search row does not hold); else the catalogue, its conditions in the
 * forms the planner reads from indexes.
 */
export function matchingRows(p: SearchPlan): Prisma.Sql {
  if (p.words) return rowsOfKeys(p, wordKeys(p), p, Prisma.empty, { rowsRead: false });
  if (p.near) return rowsOfKeys(p, placeKeys(p.near), { ...p, near: undefined }, Prisma.empty, { rowsRead: false });
  return matchingCatalogueRows(p);
}

/** The matches as "m" (id, city key, city), led as matchingRows (`range`: of the words' keys, for a sample). */
export function matches(p: SearchPlan, range: Prisma.Sql = Prisma.empty): Prisma.Sql {
  if (p.words) return matchesOfKeys(p, wordKeys(p, { range }));
  if (p.near) return matchesOfKeys(p, placeKeys(p.near), { ...p, near: undefined });
  return sampleSelect(p, matchingCatalogueRows(p));
}

/** The keys matching every condition from the text indexes alone, when they are the only conditions. */
function textKeysAlone(p: SearchPlan): Prisma.Sql | undefined {
  if (p.tags.length || p.cityKey || p.minRating != null || p.near || rowTestCount(p)) return undefined;
  if (p.titleKey && !trigramExact(p)) return undefined;
  if (p.words && p.titleKey)
    return Prisma.sql`SELECT "w"."key" FROM (${wordKeys(p)}) "w" WHERE "w"."key" IN (${trigramKeys(p)})`;
  return p.words ? wordKeys(p) : p.titleKey ? trigramKeys(p) : undefined;
}

/** The keys within a near search's circle from the R*Tree alone, when it is the only condition. */
function placeKeysAlone(p: SearchPlan): Prisma.Sql | undefined {
  if (!p.near || p.words || p.titleKey || p.tags.length || p.cityKey || p.minRating != null || rowTestCount(p))
    return undefined;
  return placeKeys(p.near);
}

/** The rows of the lead list's values, each other condition tested row by row: DISTINCT streams, and stops at the limit. */
function tagLedRows(p: SearchPlan, lead: TagCondition, rest: SearchPlan): Prisma.Sql {
  const t = table(p.catalogue);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  const tags = Prisma.raw(`"${p.catalogue}Tag"`);
  const value = lead.keys.length === 1 ? Prisma.sql`= ${lead.keys[0]}` : Prisma.sql`IN (${Prisma.join(lead.keys)})`;
  const listed = Prisma.sql`"lead"."kind" = ${lead.kind} AND "lead"."valueKey" ${value}`;
  // A row holds a value once, but may hold several of the values.
  const distinct = Prisma.raw(lead.keys.length > 1 ? "DISTINCT" : "");
  const tested = whereAll([listed, ...conditionsOf(rest, true)]);
  return Prisma.sql`SELECT ${distinct} ${t}."id" FROM ${tags} "lead" JOIN ${t} ON ${t}."id" = "lead".${owner} ${tested}`;
}

/** The keys of an index alone, or the rows led by the rarest list. */
export const countShortcut = (p: SearchPlan): Prisma.Sql | undefined =>
  textKeysAlone(p) ?? placeKeysAlone(p) ?? ledCount(p, tagLedRows);

/**
 * Index entries of a list hashed for the cost of one row of the catalogue's windows read and
 * tested (at 200,000 restaurants: 24,321 entries 3-5 ms of CPU, 10,000 rows 15-18 ms).
 */
const INDEX_ENTRIES_PER_ROW = 10;

/**
 * Rows in each window of a sample of the catalogue: few enough that a window holds a street's
 * rows, not a city's; enough that the windows' seeks cost little (10,000 rows in windows of 4:
 * 19 ms at 200,000 restaurants, of 32: 5 ms, one window: 3 ms).
 */
const WINDOW_ROWS = 32;

/**
 * A sample spread evenly over the key space: with words, the keys of the words' FTS5 table whose
 * hash falls under the share (FTS5 finds the matches; only those kept are read); led by a list
 * (leadSample), the lead's tag rows whose key hashes under the share, each row counted under its
 * first listed value alone so that each is kept with the share's chance; else many small windows
 * of the catalogue's keys, one at a hashed place in each equal stretch, read by key. A catalogue
 * smaller than the sample is read whole.
 */
export async function sample(db: SqlReader, p: SearchPlan, { countOnly = false }): Promise<Sample> {
  const led = leadSample(p, p.limits.sampleRows, INDEX_ENTRIES_PER_ROW);
  if (led) {
    const t = table(p.catalogue);
    const kept = hashedUnder(led.share, `"lead"."rowid"`);
    // The lead's rows first (CROSS JOIN), each row then read by its key.
    const from = Prisma.sql`FROM (${leadRows(p, led.lead, kept)}) "lead" CROSS JOIN ${t} ON ${t}."id" = "lead"."id" ${whereAll(conditionsOf(led.rest, true))}`;
    return { m: sampleSelect(p, from), share: led.share };
  }
  const placed = !p.words && p.near ? await placeSample(db, p, p.near, countOnly) : undefined;
  if (placed) return placed;
  const t = table(p.catalogue);
  const keyed = Boolean(p.words);
  const keys = keyed ? searchRows(p.catalogue) : t;
  // The last key, as recently read (as PostgreSQL's table size: one statement fewer in most searches).
  const name = keyed ? `${p.catalogue}SearchRow` : p.catalogue;
  const lastKey = async () =>
    new Map([
      [
        name,
        (
          await query<{ n: number }>(db, { n: "int" }, Prisma.sql`SELECT COALESCE(MAX("rowid"), 0) AS "n" FROM ${keys}`)
        )[0]?.n ?? 0,
      ],
    ]);
  const last = (await (p.recentCounts ? p.recentCounts(`last key\u0000${name}`, lastKey) : lastKey())).get(name) ?? 0;
  // Only the words' matches are read, so their sample spans 10 times the rows.
  const wanted = Math.max(1, Math.ceil((keyed ? 10 : 1) * p.limits.sampleRows));
  if (wanted >= last) {
    const all = keyed ? matches(p) : sampleSelect(p, Prisma.sql`FROM ${t} ${whereAll(conditionsOf(p, true))}`);
    return { m: onlyWordsCounted(p, countOnly) ? wordKeys(p) : all, share: 1 };
  }
  if (keyed) {
    const share = wanted / last;
    const range = Prisma.sql`AND ${hashedUnder(share, `"rowid"`)[0]}`;
    return {
      m: onlyWordsCounted(p, countOnly) ? wordKeys(p, { range }) : matches(p, range),
      share,
    };
  }
  const windows = Math.ceil(wanted / WINDOW_ROWS);
  const stretch = Math.ceil(last / windows);
  const first = Prisma.raw(`"k" * ${stretch} + 1 + ${hashOf(`"k"`)} % ${stretch - WINDOW_ROWS + 1}`);
  const starts = Prisma.sql`WITH RECURSIVE "window"("k") AS (SELECT 0 UNION ALL SELECT "k" + 1 FROM "window" WHERE "k" < ${Prisma.raw(String(windows - 1))})
    SELECT ${first} AS "first" FROM "window"`;
  // The windows first (CROSS JOIN), each read by its keys (NOT INDEXED): the planner led with a
  // city's index, or built an automatic index of a flag, and read every window for each row.
  const inWindow = Prisma.sql`${t}."rowid" BETWEEN "w"."first" AND "w"."first" + ${Prisma.raw(String(WINDOW_ROWS - 1))}`;
  return {
    m: sampleSelect(
      p,
      Prisma.sql`FROM (${starts}) "w" CROSS JOIN ${t} NOT INDEXED ON ${inWindow} ${whereAll(conditionsOf(p, true))}`,
    ),
    share: WINDOW_ROWS / stretch,
  };
}

/**
 * A near search's sample, led by the R*Tree: of the keys in the box around the circle (counted
 * first, from the R*Tree alone, up to SEARCH_SAMPLE_ROWS; past that, none), those whose hash falls
 * under the share that keeps a tenth of SEARCH_SAMPLE_ROWS, each then tested on the distance (the
 * dear test) and the other conditions. The box holds the matches, so the sample holds many more of
 * them than a sample of the catalogue (near alone: about 0.78 of its keys).
 */
async function placeSample(db: SqlReader, p: SearchPlan, near: Near, countOnly: boolean): Promise<Sample | undefined> {
  const limit = p.limits.sampleRows;
  const boxed =
    (
      await query<{ n: number }>(
        db,
        { n: "int" },
        Prisma.sql`SELECT COUNT(*) AS "n" FROM (SELECT 1 FROM "RestaurantPlace" WHERE ${placeBox(near)} LIMIT ${Prisma.raw(String(limit + 1))}) "boxed"`,
      )
    )[0]?.n ?? 0;
  // A box of more keys than a sample of the catalogue holds rows (a wide circle in a dense city):
  // the catalogue's windows then hold enough matches, and the count of the box stops there.
  if (boxed > limit) return undefined;
  const share = Math.min(1, p.limits.sampleRows / 10 / Math.max(boxed, 1));
  const kept = share >= 1 ? Prisma.empty : Prisma.sql`AND ${hashedUnder(share, `"rowid"`)[0]}`;
  const keys = placeKeys(near, { kept });
  return {
    m: countOnly && placeKeysAlone(p) ? keys : matchesOfKeys(p, keys, { ...p, near: undefined }),
    share,
  };
}

/** 2^32: the range of hashOf. */
const HASH_RANGE = 2 ** 32;

/** Knuth's multiplicative hash of an integer key into [0, 2^32): consecutive keys land far apart. */
const hashOf = (key: string) => `((${key} * 2654435761) % 4294967296)`;

/** The integer key hashes under the share (none when the share is whole). */
const hashedUnder = (share: number, key: string) =>
  share >= 1 ? [] : [Prisma.sql`${Prisma.raw(hashOf(key))} < ${integerKey(Math.floor(share * HASH_RANGE))}`];

/** "m" joined to its rows' list values of these kinds, each row's once (n: 1). */
export function facetTags(p: SearchPlan, kinds: string[]): Prisma.Sql {
  const tags = Prisma.raw(`"${p.catalogue}Tag"`);
  const owner = Prisma.raw(OWNER_KEY[p.catalogue]);
  // "m" first (CROSS JOIN), each row's values read by its key: the planner read every value of the kinds.
  return Prisma.sql`"m" CROSS JOIN (SELECT *, 1 AS "n" FROM ${tags}) t ON t.${owner} = "m"."id" AND t."kind" IN (${Prisma.join(kinds)})`;
}
