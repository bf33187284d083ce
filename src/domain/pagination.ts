// Page windows and connections, the same for every list. Forward: `first` 1..max (default 20)
// from the start, after `after` (an opaque cursor from a previous page) or `offset` items.
// Backward (Relay's `last`/`before`): the `last` items before `before`, or, without `before`, the
// list's last items (which needs its total). Cursors encode a position from the start, so paging
// backwards is arithmetic on that position; pageInfo follows the Relay connection spec's
// HasPreviousPage and HasNextPage (docs/relay.md).
import { badInput } from "../contract/errors.ts";

/** The page sizes the schema's `first`/`last` descriptions promise clients (part of the contract, not a setting). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export type PageArgs = {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  offset?: number | null;
};

/**
 * Which items of the list a page shows: `take` of them (0 when the cursors leave none) after
 * `skip`, and what its pageInfo says beyond the rows read.
 */
export type PageWindow = {
  skip: number;
  take: number;
  /** Relay's HasPreviousPage, known from the arguments alone. */
  hasPreviousPage: boolean;
  /**
   * False when the arguments end the page before the list does (`first` reaching `before`, or
   * `last` without `before`): Relay's HasNextPage is then false whatever follows. Otherwise a
   * next page exists when a row follows the window.
   */
  nextPageMayFollow: boolean;
};

const encodeCursor = (position: number) => Buffer.from(`o:${position}`).toString("base64url");

function decodeCursor(cursor: string, argument: "after" | "before"): number {
  const text = Buffer.from(cursor, "base64url").toString();
  const match = /^o:(\d{1,9})$/.exec(text);
  if (!match) {
    const which = argument === "after" ? "endCursor" : "startCursor";
    throw badInput(`${argument}: "${cursor.slice(0, 60)}" is not a cursor from this API; pass a pageInfo.${which}`, {
      field: argument,
    });
  }
  return Number(match[1]);
}

function pageSize(value: number | null | undefined, argument: "first" | "last", max: number): number | null {
  if (value == null) return null;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw badInput(`${argument} must be a whole number from 1 to ${max}`, { field: argument, max });
  }
  return value;
}

/**
 * The window the arguments ask for. `countAll` counts the whole list: only `last` without
 * `before` calls it (the window is then counted from the end).
 */
export async function pageWindow(
  args: PageArgs,
  countAll: () => Promise<number>,
  maxPageSize = MAX_PAGE_SIZE,
): Promise<PageWindow> {
  const window = windowOf(args, maxPageSize);
  return typeof window === "function" ? window(await countAll()) : window;
}

/**
 * The window the arguments ask for, known at once unless it is counted from the list's end
 * (`last` without `before`): then a function of the list's total. Bad arguments throw.
 */
export function windowOf(args: PageArgs, maxPageSize = MAX_PAGE_SIZE): PageWindow | ((total: number) => PageWindow) {
  let first = pageSize(args.first, "first", maxPageSize);
  let last = pageSize(args.last, "last", maxPageSize);
  // The spec lets a client give both and slice twice; "strongly discouraged" there, refused here.
  if (first !== null && last !== null) {
    throw badInput("first and last: give one of them (first pages forward, last pages backward)", { field: "last" });
  }
  if (args.offset != null && (!Number.isInteger(args.offset) || args.offset < 0 || args.offset > 1_000_000)) {
    throw badInput("offset must be a whole number from 0 to 1000000", { field: "offset" });
  }
  if (args.offset != null && (last !== null || args.before)) {
    throw badInput("offset pages forward from the start: page backwards with last and before alone", {
      field: "offset",
    });
  }
  const before = args.before ? decodeCursor(args.before, "before") : null;
  // Without a size: 20 from the start or after `after`; with `before` alone, the 20 before it.
  if (first === null && last === null) {
    if (before !== null && !args.after) last = DEFAULT_PAGE_SIZE;
    else first = DEFAULT_PAGE_SIZE;
  }
  // The first position the cursors allow; `before` is the first they exclude.
  const start = args.after ? decodeCursor(args.after, "after") + 1 : (args.offset ?? 0);
  if (first !== null) {
    const room = before === null ? Infinity : Math.max(0, before - start);
    return { skip: start, take: Math.min(first, room), hasPreviousPage: start > 0, nextPageMayFollow: room > first };
  }
  const backward = (end: number): PageWindow => {
    const skip = Math.max(start, end - last!);
    return { skip, take: Math.max(0, end - skip), hasPreviousPage: skip > start, nextPageMayFollow: before !== null };
  };
  return before !== null ? backward(before) : backward;
}

/**
 * What to read for a window: at least one row, even when it shows none (the reads refuse an empty
 * page); the connection shows `take` of them. Reads whose extra row tells that a next page
 * exists read one more than this.
 */
export const readWindow = ({ skip, take }: PageWindow) => ({ skip, take: Math.max(1, take) });

/**
 * A search's total for a window counted from the end (`last` without `before`): only an exact one
 * will do, so a search whose total is an estimate (past `exactUpTo` matches) is refused.
 */
export async function exactTotal(count: () => Promise<{ count: number; estimate: boolean }>, exactUpTo: number) {
  const total = await count();
  if (total.estimate) {
    throw badInput(
      `last without before counts back from the end of the list, and this search has more than ${exactUpTo.toLocaleString("en")} ` +
        "matches, whose end it only estimates: narrow the search, or page with first/after (or last/before from a cursor)",
      { field: "last" },
    );
  }
  return total.count;
}

export type Connection<T> = {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
};

/** Builds a connection from the rows read from the window's start (only `take` are shown) and the total count. */
export function toConnection<T>(fetched: T[], totalCount: number, window: PageWindow): Connection<T> {
  const items = fetched.slice(0, window.take);
  const edges = items.map((node, i) => ({ cursor: encodeCursor(window.skip + i), node }));
  return {
    edges,
    nodes: items,
    pageInfo: {
      hasNextPage: window.nextPageMayFollow && window.skip + items.length < totalCount,
      hasPreviousPage: window.hasPreviousPage,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount,
  };
}

/** The promise of the first call, shared by the later ones (a total a window and its page both need). */
export function once<T>(compute: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= compute());
}

/**
 * A page of a list whose total every page shows: the list is counted once, for the window (when
 * `last` counts from the end) and the connection alike, beside the read of the page's rows.
 */
export async function countedConnection<T>(
  page: PageArgs,
  count: () => Promise<number>,
  read: (window: { skip: number; take: number }) => Promise<T[]>,
): Promise<Connection<T>> {
  const total = once(count);
  const window = await pageWindow(page, total);
  const [items, counted] = await Promise.all([read(readWindow(window)), total()]);
  return toConnection(items, counted, window);
}

/**
 * A connection whose total is counted only when asked for: GraphQL's default resolver calls the
 * `totalCount` function only if the field is selected (the REST shim never selects it), so a
 * search that is not asked for its total skips the statement that would scan every match.
 * `fetched` holds up to `take + 1` items (readWindow): the extra one tells that a next page exists.
 */
export type LazyConnection<T> = Omit<Connection<T>, "totalCount"> & { totalCount: () => Promise<number> };

/** A search's page: its total may be an estimate past a bound, and it can count its matches by list value. */
export type SearchConnection<T, F> = LazyConnection<T> & {
  totalCountIsEstimate: () => Promise<boolean>;
  facets: () => Promise<F>;
};

/** A search's total: exact, or estimated past a bound (src/db/search/searches.ts). */
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
  const { totalCount: _, ...page } = toConnection(fetched, 0, window);
  return {
    ...page,
    pageInfo: { ...page.pageInfo, hasNextPage: window.nextPageMayFollow && fetched.length > window.take },
    totalCount: once(count),
  };
}
