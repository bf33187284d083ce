// Page windows and connections, the same for every list: `first` 1..max (default 20),
// `after` an opaque cursor from a previous page, or `offset`. Cursors encode a position.
import { badInput } from "../contract/errors.ts";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export type PageArgs = { first?: number | null; after?: string | null; offset?: number | null };
export type PageWindow = { skip: number; take: number };

const encodeCursor = (position: number) => Buffer.from(`o:${position}`).toString("base64url");

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, "base64url").toString();
  const match = /^o:(\d{1,9})$/.exec(text);
  if (!match)
    throw badInput(`after: "${cursor.slice(0, 60)}" is not a cursor from this API; pass a pageInfo.endCursor`);
  return Number(match[1]);
}

export function pageWindow(args: PageArgs, maxPageSize = MAX_PAGE_SIZE): PageWindow {
  const take = args.first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(take) || take < 1 || take > maxPageSize) {
    throw badInput(`first must be a whole number from 1 to ${maxPageSize}`, { field: "first", max: maxPageSize });
  }
  if (args.offset != null && (!Number.isInteger(args.offset) || args.offset < 0 || args.offset > 1_000_000)) {
    throw badInput("offset must be a whole number from 0 to 1000000", { field: "offset" });
  }
  const skip = args.after ? decodeCursor(args.after) + 1 : (args.offset ?? 0);
  return { skip, take };
}

export type Connection<T> = {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
};

/** Builds a connection from one page of items (at most `take`) and the total count. */
export function toConnection<T>(items: T[], totalCount: number, window: PageWindow): Connection<T> {
  const edges = items.map((node, i) => ({ cursor: encodeCursor(window.skip + i), node }));
  return {
    edges,
    nodes: items,
    pageInfo: {
      hasNextPage: window.skip + items.length < totalCount,
      hasPreviousPage: window.skip > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount,
  };
}

/**
 * A connection whose total is counted only when asked for: GraphQL's default resolver calls the
 * `totalCount` function only if the field is selected (the REST shim never selects it), so a
 * search that is not asked for its total skips the statement that would scan every match.
 * `fetched` holds up to `take + 1` items: the extra one tells that a next page exists.
 */
export type LazyConnection<T> = Omit<Connection<T>, "totalCount"> & { totalCount: () => Promise<number> };

/** A search's page: its total may be an estimate past a bound, and it can count its matches by list value. */
export type SearchConnection<T, F> = LazyConnection<T> & {
  totalCountIsEstimate: () => Promise<boolean>;
  facets: () => Promise<F>;
};

/** A search's total: exact, or estimated past a bound (src/db/searches.ts). */
export function toSearchConnection<T, F>(
  fetched: T[],
  window: PageWindow,
  search: { count: () => Promise<{ count: number; estimate: boolean }>; facets: () => Promise<F> },
): SearchConnection<T, F> {
  return {
    ...toLazyConnection(fetched, window, async () => (await search.count()).count),
    totalCountIsEstimate: async () => (await search.count()).estimate,
    facets: search.facets,
  };
}

export function toLazyConnection<T>(fetched: T[], window: PageWindow, count: () => Promise<number>): LazyConnection<T> {
  const items = fetched.slice(0, window.take);
  const { totalCount: _, ...page } = toConnection(items, 0, window);
  let counted: Promise<number> | undefined;
  return {
    ...page,
    pageInfo: { ...page.pageInfo, hasNextPage: fetched.length > window.take },
    totalCount: () => (counted ??= count()),
  };
}
