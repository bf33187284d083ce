// The stored counts: how many rows each list value and city has, and the catalogue in all, kept by
// triggers in "<Catalogue>FacetCount" (migration 20261125200000_search_scale), each with its label:
// the spelling most rows have now, from the spellings counted beside them in
// "<Catalogue>FacetSpelling" (migration 20261128210000_facet_labels). They answer exactly,
// without counting rows, the total of the whole catalogue or of one value alone, and the facets of
// the whole catalogue; and they choose how a search reads (which index leads a count, whether
// walking an order's index finds a page soon, whether a total is estimated from the sample first).
// For that, the counts a plan reads are reused for a few seconds (recent counts): they cost at worst
// a slower plan near a threshold, never a wrong answer.
import type { RecentCounts } from "../db.ts";
import { Prisma } from "../prisma.ts";
import type { SqlReader } from "../raw-rows.ts";
import { rowTestCount, type Catalogue, type CountRow, type SearchPlan, type TagCondition } from "../search-plan.ts";
import { query } from "./sql.ts";

export const COUNT_ROW = { kind: "text", valueKey: "text", value: "text", n: "int" } as const;
export const countsTable = (catalogue: Catalogue) => Prisma.raw(`"${catalogue}FacetCount"`);

/** The key of a stored count in a plan's map: its kind ('ALL' for the catalogue) and value key. */
export const countKey = (kind: string, key: string) => `${kind}\u0000${key}`;

/** The stored counts of these (kind, key) pairs ('ALL', '' for the catalogue). */
export async function storedCounts(
  db: SqlReader,
  catalogue: Catalogue,
  pairs: [string, string][],
): Promise<Map<string, number>> {
  if (pairs.length === 0) return new Map();
  const rows = await query<CountRow>(
    db,
    COUNT_ROW,
    Prisma.sql`SELECT "kind", "valueKey", "value", "n" FROM ${countsTable(catalogue)}
      WHERE ${Prisma.join(
        pairs.map(([kind, key]) => Prisma.sql`("kind" = ${kind} AND "valueKey" = ${key})`),
        " OR ",
      )}`,
  );
  return new Map(rows.map((r) => [countKey(r.kind, r.valueKey), r.n]));
}

/** The (kind, key) pairs of the stored counts of a plan's list values and city. */
export const countPairsOf = (p: Pick<SearchPlan, "tags" | "cityKey">): [string, string][] => [
  ...p.tags.flatMap((c) => c.keys.map((k): [string, string] => [c.kind, k])),
  ...(p.cityKey ? [["CITY", p.cityKey] as [string, string]] : []),
];

/** The one stored count that is a search's exact total, if its conditions are one value or none. */
export function storedTotalOf(p: SearchPlan): [string, string] | undefined {
  const others = p.words || p.titleKey || p.minRating != null || p.near || rowTestCount(p) > 0;
  if (others) return undefined;
  if (p.tags.length === 0 && !p.cityKey) return ["ALL", ""];
  if (p.tags.length === 1 && p.tags[0].keys.length === 1 && !p.cityKey) return [p.tags[0].kind, p.tags[0].keys[0]];
  if (p.tags.length === 0 && p.cityKey) return ["CITY", p.cityKey];
  return undefined;
}

/**
 * Whether each list value and the city a search names has at most `limit` rows by the stored
 * counts (and it names one at least), so that whichever of their indexes leads, a statement reads
 * few rows.
 */
export function everyValueFew(p: SearchPlan, limit: number): boolean {
  const counts = p.storedCounts;
  const pairs = countPairsOf(p);
  return (
    counts !== undefined && pairs.length > 0 && pairs.every((pair) => (counts.get(countKey(...pair)) ?? 0) <= limit)
  );
}

/**
 * The share of the catalogue a search's lists and city keep, by the stored counts, each other
 * condition taken to keep half (words, a title substring and near are not judged here).
 */
export function expectedShare(p: SearchPlan): number {
  const counts = p.storedCounts;
  if (!counts) return 1;
  const all = Math.max(1, counts.get(countKey("ALL", "")) ?? 0);
  let share = p.cityKey ? (counts.get(countKey("CITY", p.cityKey)) ?? 0) / all : 1;
  for (const c of p.tags)
    share *= Math.min(1, c.keys.reduce((sum, k) => sum + (counts.get(countKey(c.kind, k)) ?? 0), 0) / all);
  return share * 0.5 ** (rowTestCount(p) + (p.minRating != null ? 1 : 0));
}

/**
 * Whether the stored counts say a search of lists and a city matches far more rows than are
 * counted one by one (5 times the limit): its total is then estimated from the sample first.
 */
export function farPastLimit(p: SearchPlan): boolean {
  if (!p.storedCounts || p.words || p.titleKey || p.near || storedTotalOf(p)) return false;
  return expectedShare(p) * (p.storedCounts.get(countKey("ALL", "")) ?? 0) >= 5 * p.limits.exactCountLimit;
}

/** Rows of the lists and the city together from which a count is led by the rarest of them (fewer are gathered faster). */
const LEAD_FROM_ROWS = 5_000;

/**
 * The list or city condition with the fewest rows, by the stored counts, when lists or the city are
 * the only conditions an index reads. A count led by it reads its rows from its index and tests
 * the others on each, so it stops after about (limit / share of matches) rows whatever the
 * catalogue's size, where `id IN (...)` of every list gathered all the rows of the commonest first.
 */
export function rarestCondition(p: SearchPlan): TagCondition | "city" | undefined {
  if (!p.storedCounts || p.words || p.titleKey || p.near) return undefined;
  const rowsOf = (kind: string, keys: string[]) =>
    keys.reduce((sum, k) => sum + (p.storedCounts!.get(countKey(kind, k)) ?? 0), 0);
  let rarest: { condition: TagCondition | "city"; rows: number } | undefined;
  let listed = 0;
  for (const tag of p.tags) {
    const rows = rowsOf(tag.kind, tag.keys);
    listed += rows;
    if (!rarest || rows < rarest.rows) rarest = { condition: tag, rows };
  }
  const cityRows = p.cityKey ? rowsOf("CITY", [p.cityKey]) : 0;
  listed += cityRows;
  if (p.cityKey && (!rarest || cityRows < rarest.rows)) rarest = { condition: "city", rows: cityRows };
  return listed >= LEAD_FROM_ROWS ? rarest?.condition : undefined;
}

// ---- Recent counts ---------------------------------------------------------------------------------

/** Distinct sets of counts kept (each a few numbers): a client can name as many values as it likes. */
const MAX_RECENT_SETS = 1_000;

type Counts = Map<string, number>;

/** The recent counts of one database, kept `maxAgeMs`; past MAX_RECENT_SETS the oldest set goes first. */
export function createRecentCounts(maxAgeMs: number): RecentCounts {
  const entries = new Map<string, { at: number; counts: Promise<Counts> }>();
  return (key, read) => {
    const now = Date.now();
    const kept = entries.get(key);
    if (kept && now - kept.at < maxAgeMs) return kept.counts;
    if (kept) entries.delete(key);
    const counts = read();
    const entry = { at: now, counts };
    entries.set(key, entry);
    counts.catch(() => {
      if (entries.get(key) === entry) entries.delete(key);
    });
    for (const oldest of entries.keys()) {
      if (entries.size <= MAX_RECENT_SETS) break;
      entries.delete(oldest);
    }
    return counts;
  };
}
