// Map cells as words of the restaurants' search documents, so that a search with words and near
// asks the word index itself for "these words AND one of the cells the circle touches": FTS5
// intersects the two doclists, PostgreSQL's GIN index the two posting lists, and only the rows in
// those cells are then read and tested against the exact circle, not every match of the words.
//
// The same cells are written by SQL (migration 20261126040000_search_cells: SQLite's view
// "RestaurantSearchDocument", PostgreSQL's function restaurant_cells) and named here: one token a
// level, `g<level>y<row>x<column>`, row = floor((latitude + 90) / size), column = floor((longitude
// + 180) / size). Sizes are powers of two, so the division is exact and JavaScript, SQLite and
// PostgreSQL (all in IEEE doubles) get the same cell from the same coordinates; floor is monotonic,
// so the cells of a box's corners bound the cells of every point inside it.
//
// Cell tokens never meet what users type: they live in a column of their own (SQLite's FTS5
// column "place", which the users' words are kept off by a column filter; PostgreSQL's separate
// tsvector restaurant_cells(...), never in "document"). Cells only narrow the candidates: the
// circle is still tested on every row they keep.

import type { Box } from "../search-plan.ts";

/** Cell sizes in degrees, finest first (about 3.5, 14, 56, 222 and 890 km of latitude). */
export const CELL_SIZES = [1 / 32, 1 / 8, 1 / 2, 2, 8] as const;

/**
 * Most cells a search names: the finest level whose cells covering the box are this many or fewer
 * is used. A 5 km circle takes 12 to 20 cells of 1/32° (then 4 of 1/8°), a 50 km one 4 to 12 of
 * 1/2° at mid latitudes. Past the coarsest level (a circle around a pole spans every longitude),
 * none: the circle is then tested on every match of the words, as without cells.
 */
export const MAX_CELLS = 16;

export const cellToken = (level: number, row: number, column: number) => `g${level}y${row}x${column}`;

const rowOf = (latitude: number, size: number) => Math.floor((latitude + 90) / size);
const columnOf = (longitude: number, size: number) => Math.floor((longitude + 180) / size);

/** The cells of a point, one a level (what the migration's SQL writes for a restaurant). */
export const cellsOf = (latitude: number, longitude: number): string[] =>
  CELL_SIZES.map((size, level) => cellToken(level, rowOf(latitude, size), columnOf(longitude, size)));

/** The cells of `level` covering the box, or undefined when they are more than `max`. */
function cellsAtLevel(box: Box, level: number, max: number): string[] | undefined {
  const size = CELL_SIZES[level]!;
  const rows = rowOf(box.north, size) - rowOf(box.south, size) + 1;
  const columns = box.spans.map(([west, east]) => [columnOf(west, size), columnOf(east, size)] as const);
  if (rows * columns.reduce((sum, [w, e]) => sum + e - w + 1, 0) > max) return undefined;
  const cells: string[] = [];
  for (let row = rowOf(box.south, size); row <= rowOf(box.north, size); row++) {
    for (const [w, e] of columns) for (let column = w; column <= e; column++) cells.push(cellToken(level, row, column));
  }
  return cells;
}

/** The cells covering the box at the finest level that needs at most MAX_CELLS (and that level), or undefined. */
export function coveringCells(box: Box): { level: number; cells: string[] } | undefined {
  for (const level of CELL_SIZES.keys()) {
    const cells = cellsAtLevel(box, level, MAX_CELLS);
    if (cells) return { level, cells };
  }
  return undefined;
}

/**
 * The levels (the finest three: 1/32, 1/8 and 1/2 degree, circles up to about 50 km) at which
 * PostgreSQL also indexes each word of a document within its cell (migration
 * 20261130020000_words_in_cells: `restaurant_word_cells`, lexemes `<cell>_<word>`). In a dense
 * city the cells covering a circle hold most of the city, and intersecting a word's entries with
 * the cells' read most of the cells' (13-15 ms for "pizza" within 5 km of a Lisbon of 500,000);
 * a word within a cell is one entry list of exactly the documents wanted.
 */
export const WORD_CELL_LEVELS = 3;
