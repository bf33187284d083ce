// A search's conditions but the words as SQL over the catalogue's row, in the forms the planner may
// read from an index or, tested row by row, in the forms that keep it off one (the engine says how
// its database writes each: search-plan.ts SearchEngine.conditions).
import { Prisma } from "../prisma.ts";
import type { Box, Catalogue, Near, SearchEngine, SearchPlan, TagCondition } from "../search-plan.ts";
import { number, OWNER_KEY, table, whereAll } from "./sql.ts";

// ---- Title substring ---------------------------------------------------------------------------

// "!" escapes LIKE's wildcards: unlike a backslash, it means the same in SQLite and in
// PostgreSQL whatever standard_conforming_strings says.
const likeLiteral = (key: string) => `%${key.replace(/[!%_]/g, (c) => `!${c}`)}%`;

/** The title contains the key, by LIKE with its wildcards escaped (Prisma's `contains` leaves them live, prisma/orm#19506). */
export const titleLike = (p: SearchPlan, key: string) =>
  Prisma.sql`${table(p.catalogue)}."titleSearch" LIKE ${likeLiteral(key)} ESCAPE '!'`;

// ---- Lists -------------------------------------------------------------------------------------

/**
 * The row has one of the values. `perRow`: tested row by row (a page read in its order's index):
 * a scalar subquery, which PostgreSQL cannot turn into a semi-join that reads every match first;
 * otherwise `id IN` the tag rows, which the planner may read from the tag index.
 */
export function hasTag(catalogue: Catalogue, { kind, keys }: TagCondition, perRow = false) {
  const tags = Prisma.raw(`"${catalogue}Tag"`);
  const owner = Prisma.raw(OWNER_KEY[catalogue]);
  const value = keys.length === 1 ? Prisma.sql`= ${keys[0]}` : Prisma.sql`IN (${Prisma.join(keys)})`;
  if (perRow) {
    return Prisma.sql`(SELECT TRUE FROM ${tags} t WHERE t.${owner} = ${table(catalogue)}."id" AND t."kind" = ${kind} AND t."valueKey" ${value} LIMIT 1)`;
  }
  return Prisma.sql`${table(catalogue)}."id" IN (SELECT t.${owner} FROM ${tags} t WHERE t."kind" = ${kind} AND t."valueKey" ${value})`;
}

// ---- Near --------------------------------------------------------------------------------------

/** The mean radius (IUGG), the one great-circle distances are usually given in. */
const EARTH_RADIUS_KM = 6371.0088;
const KM_PER_DEGREE = (Math.PI * EARTH_RADIUS_KM) / 180;

/** Great-circle distance in km from the point to the coordinates (haversine; same functions on both databases). */
export function distanceKm({ latitude, longitude }: Near, at = `"Restaurant"`): Prisma.Sql {
  const lat = Prisma.raw(`${at}."latitude"`);
  const lng = Prisma.raw(`${at}."longitude"`);
  return Prisma.sql`(${number(2 * EARTH_RADIUS_KM)} * asin(sqrt(
    power(sin(radians(${lat} - ${number(latitude)}) / 2), 2)
    + cos(radians(${number(latitude)})) * cos(radians(${lat})) * power(sin(radians(${lng} - ${number(longitude)}) / 2), 2))))`;
}

/** Degrees added around a circle's box: the distance is computed in SQL and may round the other way at its edge. */
const BOX_MARGIN = 1e-9;

/**
 * The box around the circle: south, north, and one or two west-east spans (split where it crosses
 * ±180°). On the sphere the distances are measured on, the circle's widest longitude is
 * asin(sin(d) / cos(latitude)) away (d its angular radius), a little more than d / cos(latitude),
 * which missed points near the box's east and west edges at high latitudes; a circle that holds
 * a pole spans every longitude.
 */
export function boxOf(near: Near): Box {
  const dLat = near.radiusKm / KM_PER_DEGREE;
  const south = Math.max(-90, near.latitude - dLat - BOX_MARGIN);
  const north = Math.min(90, near.latitude + dLat + BOX_MARGIN);
  const ratio = Math.sin((dLat * Math.PI) / 180) / Math.cos((near.latitude * Math.PI) / 180);
  const dLng = south <= -90 || north >= 90 || !(ratio < 1) ? 360 : (Math.asin(ratio) * 180) / Math.PI + BOX_MARGIN;
  const west = near.longitude - dLng;
  const east = near.longitude + dLng;
  const spans: [number, number][] =
    dLng >= 180 || (west < -180 && east > 180)
      ? [[-180, 180]]
      : west < -180
        ? [
            [west + 360, 180],
            [-180, east],
          ]
        : east > 180
          ? [
              [west, 180],
              [-180, east - 360],
            ]
          : [[west, east]];
  return { south, north, spans };
}

/**
 * The rows within the circle, tested on the coordinates of `at`: the box, then the distance. The
 * box in the engine's form, read from its spatial index; `perRow` (a prefix, the engine's
 * off-index mark or ""): as two ranges, tested row by row, whose share of the rows the planner
 * knows from its statistics (PostgreSQL guessed 200 of the 100,000 restaurants in a box of the
 * spatial index, and read them all to sort them where walking the rating's index found the page).
 */
export function within(p: SearchPlan, near: Near, at = `"Restaurant"`, perRow?: string): Prisma.Sql[] {
  const box = boxOf(near);
  const [lat, lng] = [Prisma.raw(`${perRow ?? ""}${at}."latitude"`), Prisma.raw(`${perRow ?? ""}${at}."longitude"`)];
  const spans = box.spans.map((span) =>
    perRow === undefined ? p.engine.conditions.inBox(lat, lng, box, span) : inRanges(lat, lng, box, span),
  );
  return [
    spans.length === 1 ? spans[0] : Prisma.sql`(${Prisma.join(spans, " OR ")})`,
    Prisma.sql`${distanceKm(near, at)} <= ${number(near.radiusKm)}`,
  ];
}

/** The point lies in one span of the box, as two ranges. */
export const inRanges = (lat: Prisma.Sql, lng: Prisma.Sql, { south, north }: Box, [w, e]: [number, number]) =>
  Prisma.sql`(${lat} BETWEEN ${number(south)} AND ${number(north)} AND ${lng} BETWEEN ${number(w)} AND ${number(e)})`;

// ---- Open at ----------------------------------------------------------------------------------

/**
 * Open at an instant: the restaurant's opening pattern is one of the open ones, one bound value
 * whatever their number, read from the index on the pattern; `offIndex`: kept off that index (a
 * page walked in its order's index). `at`: the row holding the pattern (SQLite's search row holds
 * a copy). None open: no restaurant.
 */
export function patternIn(engine: SearchEngine, ids: number[], offIndex = false, at = `"Restaurant"`): Prisma.Sql {
  if (ids.length === 0) return Prisma.raw("1 = 0");
  const column = Prisma.raw(`${offIndex ? engine.conditions.offIndex : ""}${at}."openingPattern"`);
  return engine.conditions.inIds(column, ids);
}

// ---- The conditions together -------------------------------------------------------------------

/**
 * Every condition but the words as SQL over the catalogue's row. `perRow`: in the forms tested row
 * by row (a page read in its order's index, or rows already found by another index): list values
 * by a scalar subquery, the title by LIKE, the city, the rating and the open patterns kept off
 * their indexes. Otherwise in the forms the planner may read from an index. `sortedBy`: the order
 * whose index the rows come from (its own column's test may use it).
 */
export function conditionsOf(p: SearchPlan, perRow: boolean, sortedBy?: string): Prisma.Sql[] {
  const offIndex = (column: string) => Prisma.raw(perRow && sortedBy !== column ? p.engine.conditions.offIndex : "");
  const t = table(p.catalogue);
  const conditions: Prisma.Sql[] = [];
  if (p.titleKey) conditions.push(...p.engine.conditions.titleContains(p, perRow));
  for (const tag of p.tags) conditions.push(hasTag(p.catalogue, tag, perRow));
  if (p.cityKey) conditions.push(Prisma.sql`${offIndex("city")}${t}."citySearch" = ${p.cityKey}`);
  if (p.minRating != null) conditions.push(Prisma.sql`${offIndex("rating")}${t}."ratingAvg" >= ${number(p.minRating)}`);
  if (p.near) conditions.push(...within(p, p.near, `"Restaurant"`, perRow ? offIndex("near").sql : undefined));
  if (p.openPatterns) conditions.push(patternIn(p.engine, p.openPatterns, perRow));
  conditions.push(...p.rowTests);
  return conditions;
}

/** "FROM" the catalogue's rows matching every condition but the words, with `joins`. */
export const filteredRows = (p: SearchPlan, joins: Prisma.Sql, perRow = false, sortedBy?: string) =>
  Prisma.sql`FROM ${table(p.catalogue)} ${joins} ${whereAll(conditionsOf(p, perRow, sortedBy))}`;

/** "FROM" the catalogue's rows matching every condition but the words, in the forms an index may read. */
export const matchingCatalogueRows = (p: SearchPlan) =>
  Prisma.sql`FROM ${table(p.catalogue)} ${whereAll(conditionsOf(p, false))}`;
