// `npm run bench -- --reads`: each raw-SQL read of src/db (reads.ts, searches.ts) against the
// Prisma call that returns the same rows, on a freshly seeded database, in this process (no HTTP).
// Both go through the service's own client (createDb): the raw read on the connection Prisma
// opened, the Prisma call through its query compiler. Before timing, each pair must give the same
// result. Calls alternate (raw, Prisma, raw, ...) so drift on a busy machine hits both alike;
// each call is timed alone and the table shows medians.
import { isDeepStrictEqual } from "node:util";
import { createDb } from "../src/db/client.ts";
import type { Db } from "../src/db/db.ts";
import * as rowsById from "../src/db/reads/by-id.ts";
import * as columns from "../src/db/reads/columns.ts";
import * as comments from "../src/db/reads/comments.ts";
import * as related from "../src/db/reads/related.ts";
import { groceryPage, restaurantPage } from "../src/db/search/searches.ts";
import type { SizeName } from "../src/seed/dataset.ts";
import { DEFAULT_SEED_PASSWORD } from "../src/seed/seed.ts";
import { seededDatabase } from "./databases.ts";

/** The raw reads of src/db/reads/. */
const reads = { ...rowsById, ...columns, ...comments, ...related };

export type ReadPair = {
  name: string;
  raw: () => Promise<unknown>;
  prisma: () => Promise<unknown>;
};

export type ReadTiming = { database: string; name: string; rawMedianUs: number; prismaMedianUs: number; calls: number };

const PAGE = 50;
/** Timing stops after `calls` pairs of calls or this long, whichever comes first (but not before MIN_CALLS). */
const BUDGET_MS = 15_000;
const MIN_CALLS = 100;

/** Rows in a stable order, for comparing results whose order neither side promises. */
const sorted = <T>(rows: T[], key: (row: T) => string) =>
  [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
const byId = <T extends { id: string }>(rows: T[]) => sorted(rows, (r) => r.id);

/** The pairs, built on ids read from the seeded data: a page of restaurants, its owners, a page of groceries. */
async function pairs(db: Db): Promise<ReadPair[]> {
  const restaurants = await db.prisma.restaurant.findMany({
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: PAGE,
    select: { id: true, ownerId: true },
  });
  const ids = restaurants.map((r) => r.id);
  const one = [ids[0]!];
  const owners = [...new Set(restaurants.map((r) => r.ownerId))];
  const groceryIds = (
    await db.prisma.grocery.findMany({
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: PAGE,
      select: { id: true },
    })
  ).map((g) => g.id);
  // The most common cuisine: a filter people use, whose page fills from the first rows read.
  const [popular] = await db.prisma.restaurantTag.groupBy({
    by: ["valueKey"],
    where: { kind: "CUISINE" },
    _count: { _all: true },
    orderBy: { _count: { valueKey: "desc" } },
    take: 1,
  });
  const cuisine = popular?.valueKey ?? "none";
  const groceryTitle = "rice";

  const restaurantWhere = { tags: { some: { kind: "CUISINE" as const, valueKey: cuisine } } };

  return [
    {
      name: "usersByIds (owners of a page)",
      raw: () => reads.usersByIds(db, owners).then(byId),
      prisma: () => db.prisma.user.findMany({ where: { id: { in: owners } }, omit: { passwordHash: true } }).then(byId),
    },
    {
      name: "restaurantsByIds (1 id)",
      raw: () => reads.restaurantsByIds(db, one),
      prisma: () => db.prisma.restaurant.findMany({ where: { id: { in: one } } }),
    },
    {
      name: `restaurantsByIds (${PAGE} ids)`,
      raw: () => reads.restaurantsByIds(db, ids).then(byId),
      prisma: () => db.prisma.restaurant.findMany({ where: { id: { in: ids } } }).then(byId),
    },
    {
      name: `groceriesByIds (${PAGE} ids)`,
      raw: () => reads.groceriesByIds(db, groceryIds).then(byId),
      prisma: () => db.prisma.grocery.findMany({ where: { id: { in: groceryIds } } }).then(byId),
    },
    {
      name: `restaurantTagsFor (${PAGE} restaurants)`,
      raw: () => reads.restaurantTagsFor(db, ids),
      prisma: () =>
        db.prisma.restaurantTag.findMany({
          where: { restaurantId: { in: ids } },
          select: { restaurantId: true, kind: true, value: true },
          orderBy: [{ restaurantId: "asc" }, { kind: "asc" }, { position: "asc" }],
        }),
    },
    {
      name: `restaurantPhotosFor (${PAGE} restaurants)`,
      raw: () => reads.restaurantPhotosFor(db, ids),
      prisma: () =>
        db.prisma.restaurantPhoto.findMany({
          where: { restaurantId: { in: ids } },
          select: { restaurantId: true, url: true },
          orderBy: [{ restaurantId: "asc" }, { position: "asc" }],
        }),
    },
    {
      name: `openingHoursFor (${PAGE} restaurants)`,
      raw: () => reads.openingHoursFor(db, ids),
      prisma: () =>
        db.prisma.openingHours.findMany({
          where: { restaurantId: { in: ids } },
          select: { restaurantId: true, open: true, close: true },
          orderBy: [{ restaurantId: "asc" }, { position: "asc" }],
        }),
    },
    {
      name: `restaurantBadgesFor (${PAGE} restaurants)`,
      raw: () => reads.restaurantBadgesFor(db, ids),
      prisma: () =>
        db.prisma.restaurantBadge.findMany({
          where: { restaurantId: { in: ids } },
          include: { badge: true },
          orderBy: [{ receivedAt: "asc" }, { badgeId: "asc" }],
        }),
    },
    {
      name: `latestCommentsFor (${PAGE} restaurants)`,
      raw: () => reads.latestCommentsFor(db, ids).then(byId),
      prisma: async () => {
        const rows = await db.prisma.restaurant.findMany({
          where: { id: { in: ids } },
          select: {
            comments: {
              orderBy: [{ createdAt: "desc" }, { id: "desc" }],
              take: 1,
              include: { author: { omit: { passwordHash: true } } },
            },
          },
        });
        return byId(rows.flatMap((r) => r.comments));
      },
    },
    {
      name: `ownerRatingSums (owners of a page)`,
      raw: () => reads.ownerRatingSums(db, owners).then((rows) => sorted(rows, (r) => r.ownerId)),
      prisma: async () => {
        const groups = await db.prisma.restaurant.groupBy({
          by: ["ownerId"],
          where: { ownerId: { in: owners } },
          _sum: { ratingSum: true, ratingCount: true },
        });
        return sorted(
          groups.map((g) => ({ ownerId: g.ownerId, ratingSum: g._sum.ratingSum, ratingCount: g._sum.ratingCount })),
          (r) => r.ownerId,
        );
      },
    },
    {
      name: `groceryTagsFor (${PAGE} groceries)`,
      raw: () => reads.groceryTagsFor(db, groceryIds),
      prisma: () =>
        db.prisma.groceryTag.findMany({
          where: { groceryId: { in: groceryIds } },
          select: { groceryId: true, kind: true, value: true },
          orderBy: [{ groceryId: "asc" }, { kind: "asc" }, { position: "asc" }],
        }),
    },
    {
      name: `restaurantPage (newest, ${PAGE}+1 rows)`,
      raw: async () =>
        (await restaurantPage(db, { tags: [], sort: "NEWEST" }, { skip: 0, take: PAGE })).rows.map((r) => r.restaurant),
      prisma: () =>
        db.prisma.restaurant.findMany({ orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: PAGE + 1, skip: 0 }),
    },
    {
      name: `restaurantPage (cuisine, by rating, ${PAGE}+1 rows)`,
      raw: async () =>
        (
          await restaurantPage(
            db,
            { tags: [{ kind: "CUISINE", keys: [cuisine] }], sort: "RATING" },
            { skip: 0, take: PAGE },
          )
        ).rows.map((r) => r.restaurant),
      prisma: () =>
        db.prisma.restaurant.findMany({
          where: restaurantWhere,
          orderBy: [{ ratingAvg: { sort: "desc", nulls: "last" } }, { id: "asc" }],
          take: PAGE + 1,
          skip: 0,
        }),
    },
    {
      name: "restaurantPage count (cuisine)",
      // The smallest page a window allows (1) before its count: page sizes start at 1.
      raw: async () =>
        (
          await (
            await restaurantPage(
              db,
              { tags: [{ kind: "CUISINE", keys: [cuisine] }], sort: "RATING" },
              { skip: 0, take: 1 },
            )
          ).count()
        ).count,
      prisma: () => db.prisma.restaurant.count({ where: restaurantWhere }),
    },
    {
      name: `groceryPage (title "${groceryTitle}", ${PAGE}+1 rows)`,
      raw: async () =>
        (await groceryPage(db, { titleKey: groceryTitle, tags: [], sort: "NEWEST" }, { skip: 0, take: PAGE })).rows,
      prisma: () =>
        db.prisma.grocery.findMany({
          where: { titleSearch: { contains: groceryTitle } },
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
          take: PAGE + 1,
          skip: 0,
        }),
    },
  ];
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return (performance.now() - started) * 1000;
}

/** Checks each pair answers alike, then times `calls` alternating calls of each side. */
export async function timePairs(
  database: string,
  list: ReadPair[],
  calls: number,
  log: (text: string) => void,
): Promise<ReadTiming[]> {
  const results: ReadTiming[] = [];
  for (const pair of list) {
    const [raw, prisma] = [await pair.raw(), await pair.prisma()];
    if (!isDeepStrictEqual(raw, prisma)) throw new Error(`${pair.name}: the raw read and the Prisma call disagree`);
    if (Array.isArray(raw) && raw.length === 0) log(`  ${pair.name}: note, both return no rows`);
    const warmup = Math.min(100, calls);
    for (let i = 0; i < warmup; i++) await Promise.all([pair.raw(), pair.prisma()]);
    const rawTimes: number[] = [];
    const prismaTimes: number[] = [];
    const until = performance.now() + BUDGET_MS;
    for (let i = 0; i < calls && (i < MIN_CALLS || performance.now() < until); i++) {
      rawTimes.push(await timed(pair.raw));
      prismaTimes.push(await timed(pair.prisma));
    }
    const result = {
      database,
      name: pair.name,
      rawMedianUs: median(rawTimes),
      prismaMedianUs: median(prismaTimes),
      calls: rawTimes.length,
    };
    log(`  ${pair.name}: raw ${result.rawMedianUs.toFixed(0)} µs, Prisma ${result.prismaMedianUs.toFixed(0)} µs`);
    results.push(result);
  }
  return results;
}

export function formatReadTimings(rows: ReadTiming[]): string {
  const head = ["database", "read", "calls", "raw µs", "Prisma µs", "Prisma / raw"];
  const body = rows.map((r) => [
    r.database,
    r.name,
    String(r.calls),
    r.rawMedianUs.toFixed(0),
    r.prismaMedianUs.toFixed(0),
    `${(r.prismaMedianUs / r.rawMedianUs).toFixed(2)}x`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ");
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

/** Seeds a fresh database of each kind and times every pair on it. */
export async function benchReads(
  opts: { databases: ("sqlite" | "postgres")[]; serverUrl?: string; size: SizeName; calls: number },
  log: (text: string) => void,
  cleanups: (() => Promise<void>)[],
): Promise<ReadTiming[]> {
  const all: ReadTiming[] = [];
  for (const name of opts.databases) {
    log(`\n[${name}] fresh database, seeding ${opts.size}...`);
    const { database, settings } = await seededDatabase(
      name,
      { size: opts.size, serverUrl: opts.serverUrl, password: DEFAULT_SEED_PASSWORD },
      cleanups,
    );
    const db = createDb(settings);
    try {
      log(`[${name}] seeded; ${opts.calls} calls of each side per read`);
      all.push(...(await timePairs(name, await pairs(db), opts.calls, log)));
    } finally {
      await db.close();
      cleanups.splice(cleanups.indexOf(database.drop), 1);
      await database.drop();
    }
  }
  return all;
}
