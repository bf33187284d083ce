// What a search asks once its input is checked (SearchPlan), and what each database answers it
// with (SearchEngine: src/db/sqlite/search/, src/db/postgres/search/). The shared code of
// src/db/search/ plans, pages, counts and facets; an engine answers where the two databases read
// differently: their text and spatial indexes, the forms their planners read best, their samples.
import type { Prisma } from "./prisma.ts";
import type { RawRows, SqlReader } from "./raw-rows.ts";
import type { SearchLimits } from "../config.ts";

export type Catalogue = "Restaurant" | "Grocery";

/** One list condition: the row has at least one of these values (lower-cased search keys). */
export type TagCondition<K extends string = string> = { kind: K; keys: string[] };

export type Near = { latitude: number; longitude: number; radiusKm: number };

/** A box of latitudes and longitude spans (west to east), around a circle (search/cells.ts, conditions.ts). */
export type Box = { south: number; north: number; spans: [number, number][] };

/**
 * A page by relevance, and the matches counted up to one past the exact-count limit when ranking
 * them counted them anyway (totals.ts totalOf takes it as a page statement's total); `allMatches`:
 * when the rank window held every match, how many they are and, when asked, their facets' counts.
 */
export type RelevancePage = RawRows & { matchesCounted?: number; allMatches?: AllMatches };

/** One list value's (or city's) count among rows, as the facets' and stored counts' statements read it. */
export type CountRow = { kind: string; valueKey: string; value: string; n: number };

/** The lists facets count, by facet name: a tag kind, or the city column ("CITY"). */
export type FacetSpec = Record<string, string>;

/** Every match of a search, counted (and faceted: facets.ts facetCounts' rows) by the statement that ranked them. */
export type AllMatches = { count: number; facets?: CountRow[] };

/** One value a facet lists, with how many matches have it. */
export type FacetValue = { value: string; count: number };

/** What a search answered from its sample, past the exact-count limit: its total, and its facets when asked. */
export type Estimate = { total?: number; lists?: Record<string, FacetValue[]> };

/** The estimates searches answered lately, by search (search/recent-estimates.ts). */
export type RecentEstimates = {
  /** The search's estimate, if kept; past its age, `renew` is called (once) to read it anew beside the searches given it. */
  get(key: string, renew: () => void): Estimate | undefined;
  /** Adds to the search's estimate (its total, or its facets). */
  keep(key: string, part: Estimate): void;
};

/** Rows skipped, then rows taken. */
export type Window = { skip: number; take: number };

/**
 * A search's conditions, kept apart by what can read them: the words and the title substring
 * from the text indexes, the lists and the city from their indexes (and the stored counts), near
 * from the spatial index; `rowTests` only row by row.
 */
export type SearchPlan = {
  engine: SearchEngine;
  limits: SearchLimits;
  catalogue: Catalogue;
  /** The words as the engine's query text, typos widened (words.ts). */
  words?: string;
  titleKey?: string;
  tags: TagCondition[];
  cityKey?: string;
  minRating?: number;
  near?: Near;
  /**
   * With words and near: the map cells covering the circle as the engine's query text
   * (cells.ts), asked of the word index with the words. Undefined when the circle needs too many.
   */
  cells?: string;
  /**
   * With words and near, on an engine that indexes each word within its cell: the words within
   * each cell covering the circle, as one query of that index (in place of the words and the cells).
   */
  wordCells?: string;
  /** Flags. */
  rowTests: Prisma.Sql[];
  /** Open at an instant: the ids of the opening patterns open then. */
  openPatterns?: number[];
  /**
   * The stored counts of the catalogue, its lists' values and city (stored-counts.ts), read when
   * the search names any, or a title substring the engine counts; up to a few seconds old, so they
   * choose how a search reads and never give an answer.
   */
  storedCounts?: Map<string, number>;
  /** Counts read again once a few seconds old (db.recentCounts, its type): what a sample's share is taken from. */
  recentCounts?: (key: string, read: () => Promise<Map<string, number>>) => Promise<Map<string, number>>;
  /** The estimates the same search answered lately, reused instead of a new sample (db.recentEstimates). */
  recentEstimates?: RecentEstimates;
};

/** What every page statement of a catalogue shares: the columns of each row, and the joins they need. */
export type PageShape = { select: Prisma.Sql; joins: Prisma.Sql };

/**
 * A fixed sample of the catalogue: "m", its matches (id, city key, city), and the share of the
 * catalogue it is. Each row is in it or not by its key alone (a hash, or a place in the key order
 * spread evenly), so a catalogue loaded city by city is sampled as evenly as a shuffled one.
 */
export type Sample = { m: Prisma.Sql; share: number };

/** How one database reads a search. Every `Prisma.Sql` "rows" answer is a FROM clause (with its WHERE). */
export type SearchEngine = {
  /** The syntax of the engine's word queries (words.ts composes them). */
  words: {
    /** The stored words of a catalogue (a table with a "term" column), to look typos up in. */
    vocabulary(catalogue: Catalogue): Prisma.Sql;
    /** One word; `asPrefix`: any word starting with it. */
    term(word: string, asPrefix: boolean): string;
    /** Between alternatives, and between words. */
    any: string;
    all: string;
    /** Whether the last word, though long enough to be a prefix, is matched whole. */
    lastWordWhole(db: SqlReader, word: string, alternatives: string[]): Promise<boolean>;
    /** The composed text as the query the engine's index reads. */
    finish(db: SqlReader, catalogue: Catalogue, text: string): Promise<string>;
    /** The map cells covering a circle, as a query of the cells' index. */
    cells(cells: string[]): string;
    /** The words (finish's query) within any of the cells, as a query of the index of words within cells, where there is one. */
    wordsInCells?(words: string, cells: string[]): string;
  };
  /** The ids of the opening patterns open at an instant, ascending. */
  openPatterns(db: SqlReader, at: Date): Promise<number[]>;
  /** Condition forms (conditions.ts puts them together). */
  conditions: {
    /** Written before a column tested row by row so the planner does not lead with its index ("" when the planner weighs that itself). */
    offIndex: string;
    /** The title holds the key: `perRow`, tested on each row only. */
    titleContains(p: SearchPlan, perRow: boolean): Prisma.Sql[];
    /** The point (`lat`, `lng`) lies in one span of the box (west to east), read from the spatial index where there is one. */
    inBox(lat: Prisma.Sql, lng: Prisma.Sql, box: Box, span: [number, number]): Prisma.Sql;
    /** `column` is one of `ids`, bound as one value. */
    inIds(column: Prisma.Sql, ids: number[]): Prisma.Sql;
  };
  /** Whether a title substring's matches are counted from an index to choose a plan (titleKeys). */
  countsTitleMatches: boolean;
  /** The keys of the rows whose title holds the key, from an index, when there is one for it. */
  titleKeys(p: SearchPlan): Prisma.Sql | undefined;
  /**
   * A page by relevance; `exactMatches`: the search's number of matches, when another statement
   * counts them all anyway; `facets`: the facets asked, which it may count (its `allMatches`).
   */
  relevancePage(
    db: SqlReader,
    p: SearchPlan,
    shape: PageShape,
    window: Window,
    exactMatches?: () => Promise<number | undefined>,
    facets?: FacetSpec,
  ): Promise<RelevancePage>;
  /** Whether relevancePage counts the matches in the page's statement (its `matchesCounted`). */
  countsWhileRanking(p: SearchPlan): boolean;
  /** The rows matching the words and every other condition, for an order other than relevance. */
  wordRows(p: SearchPlan, shape: PageShape): Prisma.Sql;
  /** The rows within `circle` (instead of the plan's own) matching every other condition. */
  nearRows(p: SearchPlan, circle: Near, shape: PageShape): Prisma.Sql;
  /**
   * The statement of a page without words that is not read in its order's index: its matches in
   * `order` (which ends with the id), windowed; `total`, the total's column (", ... AS
   * totalCount"), counted over the matches.
   */
  unwalkedPage(p: SearchPlan, shape: PageShape, order: Prisma.Sql, window: Window, total?: Prisma.Sql): Prisma.Sql;
  /** Whether a shallow page of the whole catalogue reads as any bounded read (db.read) rather than in the searches' share. */
  readsShallowPagesDirectly: boolean;
  /** Whether the page statement counts the matches in its own pass over them (COUNT(*) OVER ()). */
  countsInPagePass(p: SearchPlan): boolean;
  /** Every row matching every condition, led by the index that narrows them best, to be counted (nothing of it selected). */
  matchingRows(p: SearchPlan): Prisma.Sql;
  /** Every match as a total's or the facets' "m" (totals.ts sampleSelect's columns), led as matchingRows. */
  matches(p: SearchPlan): Prisma.Sql;
  /**
   * What a count up to the limit can read instead of the matching rows themselves. `besideFacets`:
   * the facets are asked too, and one statement over the matches answers both (facets.ts), so no
   * shortcut that reads as much as they do.
   */
  countShortcut(p: SearchPlan, besideFacets?: boolean): Prisma.Sql | undefined;
  /** The fixed sample totals and facets are estimated from; `countOnly`: "m" is only counted. */
  sample(db: SqlReader, p: SearchPlan, options: { countOnly?: boolean }): Promise<Sample>;
  /** The list values of these kinds of "m"'s rows, as t (kind, valueKey, value, n: how many of the rows have it). */
  facetTags(p: SearchPlan, kinds: string[]): Prisma.Sql;
};

/** Whether the plan has no condition at all. */
export const unfiltered = (p: SearchPlan) =>
  !p.words &&
  !p.titleKey &&
  p.tags.length === 0 &&
  !p.cityKey &&
  p.minRating == null &&
  !p.near &&
  rowTestCount(p) === 0;

/** Whether the words are the plan's only condition: every row the words' index finds is a match. */
export const wordsAlone = (p: SearchPlan) => Boolean(p.words) && unfiltered({ ...p, words: undefined });

/** The conditions tested on each row only: the flags, and open at an instant. */
export const rowTestCount = (p: SearchPlan) => p.rowTests.length + (p.openPatterns ? 1 : 0);
